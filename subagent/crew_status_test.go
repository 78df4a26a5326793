package subagent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"covey/agent"
	"covey/internal/scripted"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// TestCrewStatusShowsWhatThePanesShow: two running background children and
// a paused one; crew_status names each with its state as the panes word it,
// the last tool call of the one that made one, and the files nobody changed
// are not invented.
func TestCrewStatusShowsWhatThePanesShow(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		scripted.Turn{ToolCalls: []scripted.Call{
			call("task_1", toolname.Task, bgTask("alpha", "child-alpha")),
			call("task_2", toolname.Task, bgTask("beta", "child-beta")),
			call("task_3", toolname.Task, bgTask("gamma", "child-gamma")),
		}},
		scripted.Turn{Text: "started three"})
	h.child("child-alpha", scripted.Turn{Stall: true})
	h.child("child-beta",
		scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.Glob, Args: map[string]string{"pattern": "*.go"}}}},
		scripted.Turn{Stall: true})
	h.child("child-gamma", scripted.Turn{Stall: true})
	defer h.closeAll(nil)
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("tool_finished", func(e agent.Event) bool { return e.From().Name == "beta" })
	gamma := h.waitFor("child_started", func(e agent.Event) bool { return e.From().Name == "gamma" }).From().AgentID
	if !h.manager.Pause(gamma, true) {
		t.Fatal("gamma was not running")
	}
	status := statusTool(t, h)
	res := status.Run(context.Background(), json.RawMessage(`{}`))
	if res.IsError {
		t.Fatalf("crew_status failed: %s", res.Content)
	}
	got := res.Content
	for _, want := range []string{
		"- alpha (id explore-", "type Explore, model child-model): running, in the background",
		"- beta (id explore-", "last call: glob *.go (ok,", "turns 1 of",
		"- gamma (id explore-", "): paused, in the background",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("crew_status lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "files changed") {
		t.Errorf("no child changed a file, yet:\n%s", got)
	}
	if res.Summary != "2 running, 1 paused" {
		t.Errorf("summary = %q", res.Summary)
	}
	one := status.Run(context.Background(), json.RawMessage(`{"to":"beta"}`))
	if strings.Contains(one.Content, "alpha") || !strings.Contains(one.Content, "- beta") {
		t.Errorf("crew_status for beta alone:\n%s", one.Content)
	}
	bad := status.Run(context.Background(), json.RawMessage(`{"to":"nobody"}`))
	if !bad.IsError || !strings.Contains(bad.Content, "alpha") {
		t.Errorf("an unknown child should be an error naming the crew:\n%s", bad.Content)
	}
}

// TestCrewStatusWithoutChildren: an agent with no children is told so.
func TestCrewStatusWithoutChildren(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	defer h.closeAll(nil)
	res := statusTool(t, h).Run(context.Background(), nil)
	if res.IsError || res.Content != "You have no subagents." {
		t.Fatalf("crew_status = %+v", res)
	}
}

func statusTool(t *testing.T, h *harness) tool.Tool {
	t.Helper()
	for _, ct := range h.manager.CrewTools(agent.Source{AgentID: agent.MainAgentID}) {
		if ct.Name() == toolname.CrewStatus {
			return ct
		}
	}
	t.Fatal("no crew_status among the crew tools")
	return nil
}
