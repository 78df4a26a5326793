package subagent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"

	"covey/agent"
	"covey/internal/scripted"
	"covey/permission"
)

// TestCrewNote: covey's own record of the crew, for a summary: each child's
// name, id, type, state and task, its report cut with where to get the
// rest, the ones still working, and outcomes not yet delivered.
func TestCrewNote(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		// One after the other, so their ids are known.
		scripted.Turn{ToolCalls: []scripted.Call{call("t1", toolname.Task, bgTask("scout", "child-scout"))}},
		scripted.Turn{ToolCalls: []scripted.Call{call("t2", toolname.Task, bgTask("digger", "child-digger"))}},
		scripted.Turn{Text: "both started"})
	report := "Login is in auth.go. " + strings.Repeat("More detail. ", 80)
	h.child("child-scout", scripted.Turn{Text: report})
	h.child("child-digger", scripted.Turn{Stall: true})
	defer h.closeAll(nil)
	if note := h.manager.CrewNote(agent.MainAgentID); note != "" {
		t.Fatalf("a crew note before any child: %q", note)
	}
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("child_finished", func(e agent.Event) bool { return e.From().Name == "scout" })
	var note string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(note, "not yet delivered") {
		note = h.manager.CrewNote(agent.MainAgentID)
		time.Sleep(5 * time.Millisecond)
	}
	for _, want := range []string{
		"- scout (id explore-1, type Explore): done, in the background. Task: scout. Last report (first 600 of ",
		"send_message to scout to have it repeat the rest): Login is in auth.go.",
		"- digger (id explore-2, type Explore): running, in the background. Task: digger. Still working",
		"Background outcomes not yet delivered (each arrives as its own message after this):\n- scout (id explore-1): done",
		"send_message to a name or id reaches the child",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("the crew note lacks %q:\n%s", want, note)
		}
	}
	if strings.Count(note, "More detail.") > 50 {
		t.Errorf("the report was not cut:\n%s", note)
	}
	if other := h.manager.CrewNote("explore-1"); other != "" {
		t.Errorf("scout has no crew, its note: %q", other)
	}
}

// TestCrewNoteNamesAWaitingApproval: a child waiting for the user's answer
// to a permission request says so in the crew note.
func TestCrewNoteNamesAWaitingApproval(t *testing.T) {
	asked, answer := make(chan struct{}), make(chan struct{})
	h := newHarness(t, harnessOpts{gate: func(string) permission.Gate {
		return permission.GateFunc(func(ctx context.Context, req permission.Request) permission.Verdict {
			close(asked)
			select {
			case <-answer:
			case <-ctx.Done():
			}
			return permission.Verdict{Reason: "no"}
		})
	}})
	task := map[string]any{"description": "write notes", "subagent_type": "general-purpose", "prompt": "child-writer", "name": "writer", "run_in_background": true}
	h.crewScript("go", scripted.Turn{ToolCalls: []scripted.Call{call("t1", toolname.Task, task)}}, scripted.Turn{Text: "started"})
	h.child("child-writer",
		scripted.Turn{ToolCalls: []scripted.Call{call("w1", toolname.WriteFile, map[string]any{"path": "notes.txt", "content": "hi"})}},
		scripted.Turn{Text: "could not write"})
	defer h.closeAll(nil)
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	<-asked
	note := h.manager.CrewNote(agent.MainAgentID)
	close(answer)
	if want := "- writer (id general-purpose-1, type general-purpose): running, in the background, waiting for the user's approval of write_file notes.txt."; !strings.Contains(note, want) {
		t.Errorf("the crew note lacks %q:\n%s", want, note)
	}
}
