package e2e

import (
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestHeadlessCollisionNamesFirstWriter runs, through the built binary,
// two children working in place that write greet.go in turn: the second
// writer's tool result, as its next request carries it to the model,
// names the first, what it did and how long ago; the first, still at
// work, is not told of a write it did not collide with; stderr says so.
func TestHeadlessCollisionNamesFirstWriter(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	firstWrote, release := newGate(t), newGate(t)
	write := func(id, text string) scripted.Turn {
		return scripted.Turn{ToolCalls: []scripted.Call{{ID: id, Name: "write_file", Args: map[string]any{
			"path": "greet.go", "content": "package main\n\n// " + text + "\nfunc greeting() string { return \"hi\" }\n"}}}}
	}
	read := scripted.Turn{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "greet.go"})}}
	// The first reads and writes, then stays at work until the second has
	// written; the second reads only once the first has written.
	h.srv.Add(scripted.Conversation{Name: "first", Match: scripted.Match{FirstUser: "[e2e:first]"}, Turns: []scripted.Turn{
		read, write("w-first", "first"),
		{Func: func(scripted.Request) scripted.Turn {
			firstWrote.open()
			return release.hold(scripted.Turn{Text: "first done"}).Func(scripted.Request{})
		}},
	}})
	h.srv.Add(scripted.Conversation{Name: "second", Match: scripted.Match{FirstUser: "[e2e:second]"}, Turns: []scripted.Turn{
		firstWrote.hold(read), write("w-second", "second"),
		{Func: func(scripted.Request) scripted.Turn {
			release.open()
			return scripted.Turn{Text: "second done"}
		}},
	}})
	task := func(name string) map[string]string {
		return map[string]string{"description": name + " edits greet", "name": name, "subagent_type": "general-purpose", "prompt": "[e2e:" + name + "] Edit greet.go."}
	}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": []map[string]string{task("first"), task("second")}}}}},
		{Text: "COLLISION ANSWER"},
	}})

	r := h.run(t, "", "--permission-mode", "acceptEdits", "-p", "edit greet twice")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "COLLISION ANSWER" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// The request after the second's write carries the note to the model.
	reqs := requestsOf(h.srv, "second")
	if len(reqs) != 3 {
		t.Fatalf("the second made %d requests, want 3", len(reqs))
	}
	var res string
	for _, m := range reqs[2].Messages {
		if m.Role == "tool" && m.ToolCallID == "w-second" {
			res = m.Content
		}
	}
	note := regexp.MustCompile(`\[covey: collision\] .*touched greet\.go during its task: first \(general-purpose-\d+\) read and wrote it \(\d+s ago\)`)
	if !note.MatchString(res) {
		t.Errorf("the second's write result, in its next request, does not name the first and when:\n%s", res)
	}
	for _, m := range requestsOf(h.srv, "first")[2].Messages {
		if m.Role == "tool" && strings.Contains(m.Content, "[covey: collision]") {
			t.Errorf("the first writer, who wrote first, got a collision note:\n%s", m.Content)
		}
	}
	if !regexp.MustCompile(`\[general-purpose\] second edits greet: ⚠ collision: wrote greet\.go, which first \(general-purpose-\d+\) read and wrote \d+(ms|\.\ds) ago`).MatchString(r.stderr) {
		t.Errorf("stderr does not report the collision:\n%s", r.stderr)
	}
	// The journal keeps it: the crew report lists it on the writer's row,
	// and the session loads without a damaged line.
	j := h.run(t, "", "report", "--format", "json")
	if j.code != 0 || !regexp.MustCompile(`"collisions": \[\s*"read and wrote greet\.go with first \(general-purpose-\d+\)"`).MatchString(j.stdout) {
		t.Errorf("the report does not list the collision (exit %d):\n%s\n%s", j.code, j.stdout, j.stderr)
	}
	if strings.Contains(j.stderr, "damaged") {
		t.Errorf("the session file has a damaged line:\n%s", j.stderr)
	}
}

// TestHeadlessCollisionDeclaredOverlap: two background children declare
// overlapping paths (touches on the task call). Before either writes, the
// parent's next request carries the warning in the task result, the later
// child's first request and the earlier child's next one carry it, and
// stream-json carries a collision event before the first write.
func TestHeadlessCollisionDeclaredOverlap(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	parentSaw := newGate(t) // opened by the parent's request after the task call
	h.srv.Add(scripted.Conversation{Name: "wide", Match: scripted.Match{FirstUser: "[e2e:wide]"}, Turns: []scripted.Turn{
		parentSaw.hold(scripted.Turn{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "README.md"})}}),
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "A.md", "content": "a\n"})}},
		{Text: "wide done"},
	}})
	h.srv.Add(scripted.Conversation{Name: "narrow", Match: scripted.Match{FirstUser: "[e2e:narrow]"}, Turns: []scripted.Turn{
		parentSaw.hold(scripted.Turn{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "NOTES.md", "content": "n\n"})}}),
		{Text: "narrow done"},
	}})
	task := func(name string, touches ...string) map[string]any {
		return map[string]any{"description": name + " writes docs", "name": name, "subagent_type": "general-purpose",
			"prompt": "[e2e:" + name + "] Write the docs.", "run_in_background": true, "touches": touches}
	}
	later := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		if r.LastMessage().Role == "tool" {
			parentSaw.open()
			return scripted.Turn{Text: "Both started."}
		}
		return scripted.Turn{Text: "OVERLAP ANSWER"}
	}}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_tasks", Name: "task", Args: map[string]any{"tasks": []map[string]any{
			task("wide", "*.md"), task("narrow", "NOTES.md")}}}}},
		later, later, later, later,
	}})

	r := h.run(t, "", "--permission-mode", "acceptEdits", "--output-format", "stream-json", "-p", "write the docs")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	warning := regexp.MustCompile(`\[covey: overlap\] The paths narrow \(general-purpose-\d+\) declared it will touch overlap those of agents running in the same tree: wide \(general-purpose-\d+\) \(NOTES\.md ~ \*\.md\)`)
	// The parent: its request after the task call (answered before any
	// child was let write).
	if res := toolResult(t, h.srv, "call_tasks"); !warning.MatchString(res) {
		t.Errorf("the task result the parent read does not warn of the overlap:\n%s", res)
	}
	// The later child: its first request, whose answer is its write.
	if n := requestsOf(h.srv, "narrow"); len(n) == 0 || !hasUser(n[0], "[covey: overlap]") {
		t.Errorf("the narrow child's first request lacks the warning")
	}
	// The earlier child: the request whose answer is its write.
	if w := requestsOf(h.srv, "wide"); len(w) < 2 || !hasUser(w[1], "[covey: overlap] narrow (general-purpose-") {
		t.Errorf("the wide child's request before its write lacks the warning")
	}
	evs := parseStream(t, r.stdout)
	warned := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "collision" && e.Name == "narrow" && strings.Contains(e.raw, `"action":"declared"`) && strings.Contains(e.raw, `"with_name":"wide (general-purpose-`)
	})
	wrote := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "tool_started" && strings.Contains(e.raw, `"name":"write_file"`)
	})
	if warned < 0 || wrote < 0 || warned > wrote {
		t.Errorf("the declared overlap is not in the stream before the first write (collision at %d, first write at %d):\n%s", warned, wrote, r.stdout)
	}
}
