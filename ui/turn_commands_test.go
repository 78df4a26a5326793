package ui

import (
	"errors"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/permission"
	"covey/tools/workspace"
	"covey/ui/transcript"
)

func ctrl(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

func TestModeCycle(t *testing.T) {
	h := newApprovalHarness(t, 100, 30)
	if !h.screenContains("default") {
		t.Fatal("the status bar does not show the policy's mode")
	}
	want := []permission.Mode{permission.ModeAcceptEdits, permission.ModePlan, permission.ModeBypass, permission.ModeDefault, permission.ModeAcceptEdits}
	for i, w := range want {
		h.send(ctrl(tea.KeyCtrlT))
		if got := h.m.status.Mode(); got != string(w) {
			t.Errorf("press %d: status shows %q, want %q", i+1, got, w)
		}
	}
	if !slices.Equal(h.perms.set, want) {
		t.Errorf("SetMode calls %v, want %v", h.perms.set, want)
	}
	t.Run("the key is in the help", func(t *testing.T) {
		h.typeText("?")
		if !h.screenContains("ctrl+t") || !h.screenContains("permission mode") {
			t.Error("ctrl+t is not in the full help")
		}
	})
	t.Run("without a policy the key does nothing", func(t *testing.T) {
		p := newHarness(t, 100, 30)
		p.send(ctrl(tea.KeyCtrlT))
		if p.m.status.Mode() != "ask" || p.m.keys.CycleMode.Enabled() {
			t.Errorf("mode %q, key enabled %v", p.m.status.Mode(), p.m.keys.CycleMode.Enabled())
		}
	})
}

func TestUndoCommand(t *testing.T) {
	tests := []struct {
		name    string
		replies []undoReply
		want    []string // notices, in order
	}{
		{"restores and walks back", []undoReply{{summary: "restored a.go, b.go; removed new.txt"}, {summary: "restored c.go"}},
			[]string{"restored a.go, b.go; removed new.txt", "restored c.go"}},
		{"nothing to undo", nil, []string{workspace.ErrNothingToUndo.Error(), workspace.ErrNothingToUndo.Error()}},
		{"an error", []undoReply{{err: errors.New("disk full")}, {summary: "restored a.go"}},
			[]string{"undo: disk full", "restored a.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, 100, 30)
			h.eng.undoReply = tt.replies
			for i, want := range tt.want {
				h.typeText("/undo")
				h.key(tea.KeyEnter)
				h.send(await[undoDoneMsg](h))
				if got := lastNotice(h.m); got != want {
					t.Errorf("undo %d: notice %q, want %q", i+1, got, want)
				}
			}
			if h.eng.undos != len(tt.want) {
				t.Errorf("engine Undo called %d times, want %d", h.eng.undos, len(tt.want))
			}
		})
	}
	t.Run("refused while a turn runs", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.startTurn("work")
		h.typeText("/undo")
		h.key(tea.KeyEnter)
		if h.eng.undos != 0 || !h.screenContains("before /undo") {
			t.Errorf("undo ran during a turn (%d calls)", h.eng.undos)
		}
	})
}

// lastNotice is the text of the newest notice block.
func lastNotice(m Model) string {
	bs := m.tr.Blocks()
	for i := len(bs) - 1; i >= 0; i-- {
		if n, ok := bs[i].(*transcript.NoticeBlock); ok {
			return n.Text()
		}
	}
	return ""
}

func TestRetry(t *testing.T) {
	t.Run("/retry runs the last turn again like a turn", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.typeText("/retry")
		h.key(tea.KeyEnter)
		waitPrompt(t, h, "(retry)")
		if h.eng.retries != 1 || h.m.turn == nil || !h.m.status.Running() {
			t.Errorf("retries %d, turn running %v", h.eng.retries, h.m.turn != nil)
		}
		// The engine says "retrying" once it has found the message; the UI
		// claims nothing before it knows.
		if h.screenContains("retrying") {
			t.Error("the UI announced a retry before the engine found a message")
		}
		h.eng.release <- nil
		h.send(await[turnDoneMsg](h))
		if h.m.turn != nil {
			t.Error("the retried turn did not end")
		}
	})
	t.Run("nothing to retry is news, not a failure ctrl+r retries", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.typeText("/retry")
		h.key(tea.KeyEnter)
		waitPrompt(t, h, "(retry)")
		h.eng.release <- agent.ErrNothingToRetry
		h.send(await[turnDoneMsg](h))
		if got := lastNotice(h.m); got != agent.ErrNothingToRetry.Error() {
			t.Errorf("notice = %q", got)
		}
		if h.m.keys.Retry.Enabled() || h.screenContains("ctrl+r") {
			t.Error("ctrl+r is offered with nothing to retry")
		}
	})
	t.Run("ctrl+r works only after a failed turn", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.send(ctrl(tea.KeyCtrlR))
		if h.eng.retries != 0 || h.m.keys.Retry.Enabled() {
			t.Fatal("ctrl+r retried with no failed turn")
		}
		h.startTurn("hello")
		h.eng.release <- errors.New("provider: 500")
		h.send(await[turnDoneMsg](h))
		if !h.m.keys.Retry.Enabled() || !h.screenContains("ctrl+r") {
			t.Fatal("ctrl+r is not offered after the failure")
		}
		h.send(ctrl(tea.KeyCtrlR))
		waitPrompt(t, h, "(retry)")
		if h.m.keys.Retry.Enabled() {
			t.Error("ctrl+r stays enabled while the retry runs")
		}
		h.eng.release <- nil
		h.send(await[turnDoneMsg](h))
		if h.m.keys.Retry.Enabled() {
			t.Error("ctrl+r stays enabled after a turn that succeeded")
		}
	})
	t.Run("refused while a turn runs", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.startTurn("work")
		h.typeText("/retry")
		h.key(tea.KeyEnter)
		if h.eng.retries != 0 || !h.screenContains("before /retry") {
			t.Error("retry ran during a turn")
		}
	})
}

// waitPrompt waits until the engine has been asked to run prompt.
func waitPrompt(t *testing.T, h *harness, prompt string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		prompts, _, _ := h.eng.snapshot()
		if slices.Contains(prompts, prompt) {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("engine never ran %q", prompt)
		case <-time.After(time.Millisecond):
		}
	}
}
