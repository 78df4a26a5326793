package subagent_test

import (
	"strings"
	"testing"
	"time"

	"covey/agent"
	"covey/internal/scripted"
	"covey/subagent"
	"covey/tools"
	"covey/tools/toolname"
)

// A subagent the user starts by name runs in the background as a child of
// the main agent, and its report comes back to the main agent's inbox,
// saying who asked for it.
func TestStartByUser(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	defer h.manager.Close()
	h.child("[sub:at]", scripted.Turn{Text: "found it in retry.go"})

	for name, tt := range map[string]struct{ typ, brief, want string }{
		"no brief":     {"Explore", "  ", "no brief"},
		"unknown type": {"Explorer", "find it", "unknown subagent_type"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := h.manager.StartByUser(tt.typ, tt.brief); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}

	name, id, err := h.manager.StartByUser("explore", "[sub:at] find the retry logic")
	if err != nil {
		t.Fatal(err)
	}
	in := h.manager.Inbox(agent.MainAgentID)
	deadline := time.Now().Add(30 * time.Second)
	var got []subagent.Notice
	for len(got) == 0 && time.Now().Before(deadline) {
		got = in.Take()
		time.Sleep(5 * time.Millisecond)
	}
	if len(got) != 1 || got[0].ChildID != id || got[0].Name != name || got[0].Text != "found it in retry.go" {
		t.Fatalf("notices %+v", got)
	}
	text := subagent.NoticeText(got)
	if !strings.Contains(text, `which the user started with "@Explore [sub:at] find the retry logic"`) {
		t.Errorf("notice text: %s", text)
	}
	started := h.eventsOf(agent.ChildStarted{}.Kind())
	if len(started) != 1 {
		t.Fatalf("%d children started", len(started))
	}
	if s := started[0].(agent.ChildStarted); !s.Background || s.ParentID != agent.MainAgentID || s.Depth != 1 || s.AgentType != "Explore" {
		t.Errorf("started %+v", s)
	}
}

// A child's background shells end with it: nobody could read them after.
func TestChildShellsStopWithIt(t *testing.T) {
	shells := tools.NewShells()
	defer shells.Close()
	h := newHarness(t, harnessOpts{shells: shells})
	defer h.manager.Close()
	h.mainScript("[sub:shells] go", map[string]any{"description": "serve", "prompt": "[sub:shell] start the server", "subagent_type": "general-purpose"})
	h.child("[sub:shell]",
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "b1", Name: toolname.Bash, Args: map[string]any{"command": "sleep 100", "run_in_background": true}}}},
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "b2", Name: toolname.BashOutput, Args: map[string]any{"id": "shell-1"}}}},
		scripted.Turn{Text: "server started"},
	)
	if _, err := h.main.Run(t.Context(), "[sub:shells] go"); err != nil {
		t.Fatal(err)
	}
	if got := h.taskResult("task_1"); !strings.Contains(got, "server started") {
		t.Fatalf("task result %q", got)
	}
	var read string
	for _, e := range h.srv.Journal() {
		for _, m := range e.Messages {
			if m.Role == "tool" && m.ToolCallID == "b2" {
				read = m.Content
			}
		}
	}
	if !strings.Contains(read, "shell-1 is still running") {
		t.Errorf("the child's bash_output: %q", read)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(shells.Running()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still running after its child ended: %v", shells.Running())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if info, _ := shells.Info("shell-1"); !info.Killed || info.Owner == agent.MainAgentID {
		t.Errorf("shell %+v", info)
	}
}
