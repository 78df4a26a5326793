package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
	"covey/ui/keys"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/tools/tool"
)

// startTurn types text, sends it and waits until the engine runs it.
func (h *harness) startTurn(text string) {
	h.t.Helper()
	h.typeText(text)
	h.key(tea.KeyEnter)
	deadline := time.After(5 * time.Second)
	for {
		prompts, _, _ := h.eng.snapshot()
		if slices.Contains(prompts, text) {
			return
		}
		select {
		case <-deadline:
			h.t.Fatalf("engine never ran %q", text)
		case <-time.After(time.Millisecond):
		}
	}
}

// withPanes sets up a task call of the main agent with three children.
func withPanes(h *harness) (task agent.ToolStarted, kids []agent.Source) {
	task = agent.ToolStarted{Source: mainSrc(), CallID: "call_task", Name: toolname.Task, KeyArg: "3 tasks"}
	kids = []agent.Source{
		childSrc("c1", "call_task", "Explore", "map the packages"),
		childSrc("c2", "call_task", "Explore", "find the flaky test"),
		childSrc("c3", "call_task", "general-purpose", "draft the fix"),
	}
	evs := []agent.Event{agent.TextDelta{Source: mainSrc(), Text: "Let me look around."}, task}
	for _, k := range kids {
		evs = append(evs, agent.ChildStarted{Source: k, Model: "small"})
	}
	h.events(evs...)
	return task, kids
}

func TestModelFocus(t *testing.T) {
	h := newHarness(t, 100, 40)
	withPanes(h)
	var fs []transcript.Block
	for _, b := range h.m.tr.Blocks() {
		if b.Focusable() {
			fs = append(fs, b)
		}
	}
	if len(fs) < 3 {
		t.Fatalf("%d focusable blocks, want at least the 3 panes", len(fs))
	}
	n := len(fs)
	tests := []struct {
		name string
		key  tea.KeyType
		want transcript.Block
	}{
		{"tab from the input lands on the newest block", tea.KeyTab, fs[n-1]},
		{"tab wraps to the oldest", tea.KeyTab, fs[0]},
		{"tab moves to the next", tea.KeyTab, fs[1]},
		{"shift+tab moves back", tea.KeyShiftTab, fs[0]},
		{"shift+tab wraps to the newest", tea.KeyShiftTab, fs[n-1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.key(tt.key)
			if h.m.focus != keys.FocusTranscript {
				t.Fatal("focus is not in the transcript")
			}
			if got := h.m.tr.Focused(); got != tt.want {
				t.Errorf("focused %T %p, want %T %p", got, got, tt.want, tt.want)
			}
		})
	}

	t.Run("the focused block is marked in the gutter", func(t *testing.T) {
		marked := 0
		for _, l := range h.screenLines() {
			if strings.HasPrefix(l, "▌") {
				marked++
			}
		}
		if marked == 0 {
			t.Error("no line carries the focus marker")
		}
	})
	t.Run("typing returns to the input", func(t *testing.T) {
		h.typeText("h")
		if h.m.focus == keys.FocusTranscript || h.m.tr.Focused() != nil {
			t.Error("focus stayed in the transcript")
		}
		if got := h.m.input.Value(); got != "h" {
			t.Errorf("input = %q, want the typed key", got)
		}
	})
	t.Run("esc returns to the input", func(t *testing.T) {
		h.key(tea.KeyTab)
		h.key(tea.KeyEsc)
		if h.m.focus == keys.FocusTranscript {
			t.Error("esc did not return to the input")
		}
	})
}

func TestModelToggle(t *testing.T) {
	tests := map[string]tea.KeyMsg{
		"enter": {Type: tea.KeyEnter},
		"space": {Type: tea.KeySpace, Runes: []rune{' '}},
	}
	for name, k := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, 100, 40)
			withPanes(h)
			h.key(tea.KeyTab)
			b := h.m.tr.Focused()
			if b.Expanded() {
				t.Fatal("pane starts expanded")
			}
			h.send(k)
			if !b.Expanded() {
				t.Error("the key did not expand the focused block")
			}
			h.send(k)
			if b.Expanded() {
				t.Error("a second press did not collapse it")
			}
			if h.m.input.Value() != "" {
				t.Errorf("the key reached the input: %q", h.m.input.Value())
			}
		})
	}
}

func TestModelToggleAll(t *testing.T) {
	h := newHarness(t, 100, 40)
	withPanes(h)
	focusable := func() []transcript.Block {
		var out []transcript.Block
		for _, b := range h.m.tr.Blocks() {
			if b.Focusable() {
				out = append(out, b)
			}
		}
		return out
	}
	h.key(tea.KeyCtrlO)
	for _, b := range focusable() {
		if !b.Expanded() {
			t.Errorf("%T not expanded after ctrl+o", b)
		}
	}
	h.key(tea.KeyCtrlO)
	for _, b := range focusable() {
		if b.Expanded() {
			t.Errorf("%T still expanded after a second ctrl+o", b)
		}
	}
}

func TestModelCancelChild(t *testing.T) {
	h := newHarness(t, 100, 40)
	_, kids := withPanes(h)
	h.key(tea.KeyTab)      // newest pane: c3
	h.key(tea.KeyShiftTab) // c2
	h.typeText("x")
	if !h.screenContains("x again to cancel") {
		t.Fatalf("a first x did not ask for a second:\n%s", ansi.Strip(h.m.View()))
	}
	h.typeText("x")
	msg := await[childCancelledMsg](h)
	if msg.agentID != kids[1].AgentID {
		t.Errorf("cancelled %q, want %q", msg.agentID, kids[1].AgentID)
	}
	_, _, cancelled := h.eng.snapshot()
	if !slices.Equal(cancelled, []string{kids[1].AgentID}) {
		t.Errorf("engine saw CancelChild(%v), want [%s]", cancelled, kids[1].AgentID)
	}
	if h.m.input.Value() != "" {
		t.Errorf("x reached the input: %q", h.m.input.Value())
	}

	t.Run("a finished pane is not cancelled", func(t *testing.T) {
		h.events(agent.ChildFinished{Source: kids[1], Reason: agent.StopOK, Summary: "done"})
		h.typeText("x")
		_, _, cancelled := h.eng.snapshot()
		if len(cancelled) != 1 {
			t.Errorf("CancelChild called again: %v", cancelled)
		}
		if h.m.focus != keys.FocusTranscript || h.m.input.Value() != "" {
			t.Error("x on a finished pane left the pane or typed into the input")
		}
		if !h.screenContains("has ended (done): nothing to cancel") {
			t.Errorf("x on a finished pane did not say why it does nothing:\n%s", ansi.Strip(h.m.View()))
		}
	})
}

func TestModelEscCancelsTurn(t *testing.T) {
	h := newHarness(t, 100, 40)
	h.startTurn("fix the tests")
	_, ctxs, _ := h.eng.snapshot()
	h.key(tea.KeyEsc)
	select {
	case <-ctxs[0].Done():
	case <-time.After(5 * time.Second):
		t.Fatal("esc did not cancel the turn's context")
	}
	done := await[turnDoneMsg](h)
	if !errors.Is(done.err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", done.err)
	}
	h.send(done)
	if h.m.turn != nil || h.m.status.Running() {
		t.Error("the turn is still marked running")
	}
	if !h.screenContains("turn cancelled") {
		t.Error("no notice of the cancelled turn")
	}
}

func TestModelQueue(t *testing.T) {
	h := newHarness(t, 100, 40)
	h.startTurn("first")
	h.typeText("second")
	h.key(tea.KeyEnter)
	if q := h.m.input.Queued(); q != 1 {
		t.Fatalf("queued = %d, want 1", q)
	}
	if !h.screenContains("queued: second") {
		t.Error("the queued message is not shown")
	}
	if prompts, _, _ := h.eng.snapshot(); len(prompts) != 1 {
		t.Fatalf("engine ran %v while a turn was running", prompts)
	}
	h.events(agent.TextDelta{Source: mainSrc(), Text: "answer one"}, agent.Done{Source: mainSrc(), Reason: agent.StopOK})
	h.eng.release <- nil
	h.send(await[turnDoneMsg](h))
	h.startTurnWait("second")
	if q := h.m.input.Queued(); q != 0 {
		t.Errorf("queued = %d after the turn ended, want 0", q)
	}
	if h.m.turn == nil {
		t.Error("the queued message did not start a turn")
	}
}

// startTurnWait waits until the engine ran text, without typing it.
func (h *harness) startTurnWait(text string) {
	h.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if prompts, _, _ := h.eng.snapshot(); slices.Contains(prompts, text) {
			return
		}
		select {
		case <-deadline:
			h.t.Fatalf("engine never ran %q", text)
		case <-time.After(time.Millisecond):
		}
	}
}

func TestModelCtrlC(t *testing.T) {
	hint := "press ctrl+c again to quit"
	t.Run("clears a draft, then asks, then quits", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.m.quitAfter = time.Hour
		h.typeText("draft")
		cmd := h.update(tea.KeyMsg{Type: tea.KeyCtrlC})
		if h.m.input.Value() != "" || cmd != nil || strings.Contains(h.m.View(), hint) {
			t.Fatal("the first ctrl+c did not just clear the draft")
		}
		cmd = h.update(tea.KeyMsg{Type: tea.KeyCtrlC})
		if cmd == nil || !h.m.quitArmed || !strings.Contains(h.m.View(), hint) {
			t.Fatalf("ctrl+c on an empty input did not ask for a second press:\n%s", h.m.View())
		}
		if cmd = h.update(tea.KeyMsg{Type: tea.KeyCtrlC}); !isQuit(cmd) {
			t.Error("the second ctrl+c did not quit")
		}
	})
	t.Run("first press interrupts the turn and keeps the draft", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.m.quitAfter = time.Hour
		h.startTurn("work")
		h.typeText("next")
		_, ctxs, _ := h.eng.snapshot()
		if cmd := h.update(tea.KeyMsg{Type: tea.KeyCtrlC}); isQuitNoWait(cmd) || ctxs[0].Err() == nil {
			t.Fatal("the first ctrl+c did not interrupt the turn, or quit")
		}
		if h.m.input.Value() != "next" || h.m.quitArmed {
			t.Fatalf("interrupting lost the draft (%q) or armed quitting", h.m.input.Value())
		}
		if !strings.Contains(h.m.View(), "cancelling…") {
			t.Errorf("the bar does not say the turn is being cancelled:\n%s", h.m.View())
		}
		// The turn may take a moment to end: the next presses clear the
		// draft, ask, and quit.
		h.update(tea.KeyMsg{Type: tea.KeyCtrlC})
		if h.m.input.Value() != "" {
			t.Fatal("the second ctrl+c did not clear the draft")
		}
		h.update(tea.KeyMsg{Type: tea.KeyCtrlC})
		if cmd := h.update(tea.KeyMsg{Type: tea.KeyCtrlC}); !isQuit(cmd) {
			t.Fatal("ctrl+c did not quit after the interrupt")
		}
	})
	t.Run("the window expires", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.m.quitAfter = time.Millisecond
		cmd := h.update(tea.KeyMsg{Type: tea.KeyCtrlC})
		msg := cmd() // the tick of this window
		if _, ok := msg.(quitExpiredMsg); !ok {
			t.Fatalf("the window's command sent %T, want quitExpiredMsg", msg)
		}
		h.update(quitExpiredMsg{id: h.m.quitID - 1}) // a stale window's tick
		if !h.m.quitArmed {
			t.Fatal("a stale tick ended the window")
		}
		if next := h.update(msg); next != nil {
			t.Errorf("the expired window scheduled more work: %T (no idle wake-ups)", next())
		}
		if h.m.quitArmed || strings.Contains(h.m.View(), hint) {
			t.Fatal("the window did not end")
		}
		if cmd := h.update(tea.KeyMsg{Type: tea.KeyCtrlC}); isQuitNoWait(cmd) {
			t.Fatal("a ctrl+c after the window quit at once")
		}
	})
	t.Run("another key ends the window", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.m.quitAfter = time.Hour
		h.update(tea.KeyMsg{Type: tea.KeyCtrlC})
		h.typeText("x")
		if h.m.quitArmed || strings.Contains(h.m.View(), hint) {
			t.Fatal("typing did not end the window")
		}
	})
}

// update sends msg to the model and returns the command Update gave back
// (the tick the model keeps for its spinner aside).
func (h *harness) update(msg tea.Msg) tea.Cmd {
	h.t.Helper()
	nm, cmd := h.m.Update(msg)
	h.m = nm.(Model)
	return cmd
}

// isQuitNoWait is isQuit for a command that may hold a long tick: it only
// looks at commands that answer at once.
func isQuitNoWait(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	done := make(chan bool, 1)
	go func() { done <- isQuit(cmd) }()
	select {
	case q := <-done:
		return q
	case <-time.After(100 * time.Millisecond):
		return false
	}
}

// isQuit reports whether cmd (or one in its batch) is tea.Quit.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if c == nil {
				continue
			}
			if _, ok := c().(tea.QuitMsg); ok {
				return true
			}
		}
	}
	return false
}

func TestModelResize(t *testing.T) {
	h := newHarness(t, 120, 40)
	withPanes(h)
	h.events(
		agent.TextDelta{Source: mainSrc(), Text: strings.Repeat("a long line of the answer that must wrap ", 8)},
		toolStarted(mainSrc(), "call_r", toolname.ReadFile, "some/very/long/path/to/a/file/that/does/not/fit/in/sixty/columns.go"),
	)
	for _, size := range []struct{ w, h int }{{120, 40}, {60, 30}, {120, 40}, {40, 20}} {
		h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
		lines := h.screenLines()
		if len(lines) != size.h {
			t.Errorf("%dx%d: %d lines, want %d", size.w, size.h, len(lines), size.h)
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size.w {
				t.Errorf("%dx%d: line %d is %d wide: %q", size.w, size.h, i, w, l)
			}
		}
	}
}

func TestModelFollow(t *testing.T) {
	h := newHarness(t, 80, 20)
	for i := range 30 {
		h.events(agent.ToolStarted{Source: mainSrc(), CallID: "c" + string(rune('a'+i)), Name: toolname.Grep, KeyArg: "pattern"})
	}
	if !h.m.tr.Following() {
		t.Fatal("not following at the start")
	}
	bottom := h.m.tr.Offset()
	if bottom != h.m.tr.MaxOffset() || bottom == 0 {
		t.Fatalf("offset %d, want the bottom %d", bottom, h.m.tr.MaxOffset())
	}

	t.Run("following keeps the bottom in view", func(t *testing.T) {
		h.events(agent.TextDelta{Source: mainSrc(), Text: "newest line"})
		if h.m.tr.Offset() != h.m.tr.MaxOffset() {
			t.Errorf("offset %d, want the bottom %d", h.m.tr.Offset(), h.m.tr.MaxOffset())
		}
		if !h.screenContains("newest line") {
			t.Error("the newest output is not on screen")
		}
	})
	t.Run("scrolled up stays put and hints", func(t *testing.T) {
		h.key(tea.KeyPgUp)
		if h.m.tr.Following() {
			t.Fatal("still following after pgup")
		}
		off := h.m.tr.Offset()
		h.events(agent.TextDelta{Source: mainSrc(), Text: " and more"}, agent.ToolStarted{Source: mainSrc(), CallID: "late", Name: toolname.Bash, KeyArg: "go test"})
		if h.m.tr.Offset() != off {
			t.Errorf("offset moved from %d to %d while scrolled up", off, h.m.tr.Offset())
		}
		if !h.screenContains("new output below") {
			t.Error("no new-output hint")
		}
	})
	t.Run("mouse wheel scrolls by three", func(t *testing.T) {
		off := h.m.tr.Offset()
		h.send(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
		if h.m.tr.Offset() != off-3 {
			t.Errorf("offset %d, want %d", h.m.tr.Offset(), off-3)
		}
	})
	t.Run("end follows again", func(t *testing.T) {
		h.key(tea.KeyEnd)
		if !h.m.tr.Following() || h.m.tr.Offset() != h.m.tr.MaxOffset() {
			t.Error("end did not return to following")
		}
		if h.screenContains("new output below") {
			t.Error("hint still shown at the bottom")
		}
	})
}

func TestModelEventsReachBlocks(t *testing.T) {
	h := newHarness(t, 100, 40)
	_, kids := withPanes(h)
	h.events(
		agent.ToolStarted{Source: kids[0], CallID: "k1", Name: toolname.Grep, KeyArg: "func main"},
		agent.UsageReported{Source: kids[0], Usage: agent.Usage{InputTokens: 1000, OutputTokens: 200}},
		agent.UsageReported{Source: mainSrc(), Usage: agent.Usage{InputTokens: 500, OutputTokens: 50}},
		agent.ContextReported{Source: kids[0], Tokens: 3000, Window: 4000},
		agent.ContextReported{Source: mainSrc(), Tokens: 4096, Window: 8192},
		agent.ToolFinished{Source: mainSrc(), CallID: "call_task", Name: toolname.Task, Result: tool.Result{Content: "ok"}},
	)
	if u := h.m.rt.usage; u.InputTokens != 1500 || u.OutputTokens != 250 {
		t.Errorf("session usage %+v, want 1500 in / 250 out", u)
	}
	if u := h.m.rt.children["c1"].Usage(); u.InputTokens != 1000 {
		t.Errorf("child usage %+v, want 1000 in", u)
	}
	if h.m.rt.tools["call_task"].Running() {
		t.Error("ToolFinished did not reach the task block")
	}
	if !h.screenContains("ctx 50%") {
		t.Errorf("status bar lacks the main agent's context gauge:\n%s", ansi.Strip(h.m.View()))
	}
	if !h.screenContains("ctx 75%") {
		t.Errorf("the child's pane lacks its own context gauge:\n%s", ansi.Strip(h.m.View()))
	}
}

// TestFullHelpSaysBackgroundSurvivesEsc checks that the full help (?) says
// what esc leaves running while it cancels a turn, and fits the screen.
func TestFullHelpSaysBackgroundSurvivesEsc(t *testing.T) {
	tests := map[string]struct {
		running bool
		want    bool
	}{
		"idle":    {running: false, want: false},
		"running": {running: true, want: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, 120, 40)
			if tt.running {
				h.startTurn("look around")
			}
			h.typeText("?")
			lines := h.screenLines()
			if len(lines) != 40 {
				t.Errorf("%d lines, want 40", len(lines))
			}
			if got := h.screenContains("background subagents keep running"); got != tt.want {
				t.Errorf("the full help names background subagents: %v, want %v:\n%s", got, tt.want, strings.Join(lines, "\n"))
			}
		})
	}
}

// TestModelFailedTurnShownOnce checks that a failed turn's error reads once,
// with the retry key, whichever of the turn's end and its ErrorEvent (held a
// frame by the event pump) arrives first.
func TestModelFailedTurnShownOnce(t *testing.T) {
	const msg = "the connection to api.example.com closed mid-answer (the server closed the connection); 7 tokens kept"
	tests := map[string]struct{ eventsFirst bool }{
		"event before the turn's end": {eventsFirst: true},
		"turn's end before the event": {eventsFirst: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, 200, 40)
			h.startTurn("hello")
			evs := []agent.Event{
				agent.TextDelta{Source: mainSrc(), Text: "partial"},
				agent.ErrorEvent{Source: mainSrc(), Message: msg},
				agent.Done{Source: mainSrc(), Reason: agent.StopError, Error: msg},
			}
			if tc.eventsFirst {
				h.events(evs...)
			}
			h.eng.release <- errors.New(msg)
			h.send(await[turnDoneMsg](h))
			if !tc.eventsFirst {
				h.events(evs...)
			}
			screen := ansi.Strip(h.m.View())
			if n := strings.Count(screen, "7 tokens kept"); n != 1 {
				t.Errorf("the error is shown %d times, want once:\n%s", n, screen)
			}
			if !strings.Contains(screen, "7 tokens kept; ctrl+r retries") {
				t.Errorf("the error does not say ctrl+r retries:\n%s", screen)
			}
			if !h.m.lastFailed {
				t.Error("ctrl+r cannot retry the failed turn")
			}
		})
	}
}
