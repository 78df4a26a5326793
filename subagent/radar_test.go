package subagent_test

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"covey/agent"
	"covey/agentdefs"
	"covey/internal/scripted"
	"covey/tools/toolname"
)

// writerDef is a child type that reads and writes files.
var writerDef = agentdefs.Definition{Name: "writer", Description: "writes", Tools: []string{toolname.ReadFile, toolname.WriteFile, toolname.EditFile}, Prompt: "p", Scope: agentdefs.Project}

// TestCollisionNamesTheSiblingThatTouchedFirst: two children in the same
// tree; the first reads and writes auth.go and stays at work, then the
// second writes it: the second's tool result names the first, a Collision
// event names both, and a write by a child whose sibling has ended is no
// collision.
func TestCollisionNamesTheSiblingThatTouchedFirst(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{writerDef}})
	firstWrote := make(chan struct{})
	release := make(chan struct{})
	h.mainScript("go", batch(task("first", "writer", "child-first"), task("second", "writer", "child-second")))
	h.child("child-first",
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "r1", Name: toolname.ReadFile, Args: map[string]string{"path": "auth.go"}}}},
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "w1", Name: toolname.WriteFile, Args: map[string]string{"path": "auth.go", "content": "package auth // first\n"}}}},
		// At work until the second has written.
		scripted.Turn{Func: func(scripted.Request) scripted.Turn {
			close(firstWrote)
			<-release
			return scripted.Turn{Text: "first done"}
		}})
	h.child("child-second",
		scripted.Turn{Func: func(scripted.Request) scripted.Turn {
			<-firstWrote
			return scripted.Turn{ToolCalls: []scripted.Call{{ID: "r2", Name: toolname.ReadFile, Args: map[string]string{"path": "auth.go"}}}}
		}},
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "w2", Name: toolname.WriteFile, Args: map[string]string{"path": "./auth.go", "content": "package auth // second\n"}}}},
		scripted.Turn{Func: func(scripted.Request) scripted.Turn {
			close(release)
			return scripted.Turn{Text: "second done"}
		}})
	defer h.closeAll(nil)
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	second := h.taskResult("w2")
	for _, want := range []string{"[covey: collision]", "auth.go", "first (writer-", "read and wrote it ("} {
		if !strings.Contains(second, want) {
			t.Errorf("the second writer's result lacks %q:\n%s", want, second)
		}
	}
	if first := h.taskResult("w1"); strings.Contains(first, "collision") {
		t.Errorf("the first write collided with nobody, yet:\n%s", first)
	}
	var got []agent.Collision
	for _, e := range h.eventsOf("collision") {
		got = append(got, e.(agent.Collision))
	}
	if len(got) != 1 {
		t.Fatalf("%d collision events, want 1 (first read and wrote): %+v", len(got), got)
	}
	for _, c := range got {
		if c.Name != "second" || c.Path != "auth.go" || !strings.HasPrefix(c.WithName, "first (") || c.CallID != "w2" || c.Action != "read and wrote" {
			t.Errorf("collision = %+v", c)
		}
	}
}

// TestDeclaredOverlapWarnedBeforeAnyWrite: two children declare touches
// that overlap (a folder and a file in it); the later one's brief and its
// parent's task result warn, the earlier one is told before its next
// request, and a third with disjoint paths is not warned.
func TestDeclaredOverlapWarnedBeforeAnyWrite(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{writerDef}})
	with := func(name, marker string, touches ...string) map[string]any {
		return map[string]any{"description": name, "name": name, "subagent_type": "writer", "prompt": marker, "touches": touches}
	}
	h.mainScript("go", map[string]any{"tasks": []map[string]any{with("api", "child-api", "src/api/"), with("handler", "child-handler", "src/api/handler.go"), with("docs", "child-docs", "docs/**")}})
	handlerAsked := make(chan struct{})
	// api stays at work until handler has started.
	h.child("child-api", scripted.Turn{Func: func(scripted.Request) scripted.Turn {
		<-handlerAsked
		return scripted.Turn{Text: "api done"}
	}}, scripted.Turn{Text: "api saw the warning"})
	h.child("child-handler", scripted.Turn{Func: func(scripted.Request) scripted.Turn {
		close(handlerAsked)
		return scripted.Turn{Text: "handler done"}
	}})
	h.child("child-docs", scripted.Turn{Text: "docs done"})
	defer h.closeAll(nil)
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := h.taskResult("task_1")
	if !strings.Contains(res, "[covey: overlap] The paths handler (writer-") || !strings.Contains(res, "src/api/handler.go ~ src/api/") {
		t.Errorf("the parent's task result lacks the overlap warning:\n%s", res)
	}
	if strings.Count(res, "[covey: overlap]") != 1 {
		t.Errorf("only handler's declaration overlaps another, yet:\n%s", res)
	}
	reqs := h.requestsOf("child-handler")
	if len(reqs) == 0 || !strings.Contains(reqs[0].FirstUser, "[covey: overlap]") {
		t.Errorf("handler's brief lacks the warning")
	}
	api := h.requestsOf("child-api")
	if len(api) != 2 || !strings.Contains(api[1].Messages[len(api[1].Messages)-1].Content, "[covey: overlap] handler (writer-") {
		t.Errorf("api was not told of handler's overlap before its next request: %d requests", len(api))
	}
	var ev []agent.Collision
	for _, e := range h.eventsOf("collision") {
		ev = append(ev, e.(agent.Collision))
	}
	if len(ev) != 1 || ev[0].Action != "declared" || ev[0].Name != "handler" || !strings.HasPrefix(ev[0].WithName, "api (") {
		t.Errorf("collision events = %+v", ev)
	}
}
