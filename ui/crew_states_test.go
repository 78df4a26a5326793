package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/theme"
	"covey/ui/transcript"
)

// paneIn returns a running pane of a child, after the events given.
func paneIn(t *testing.T, name string, background bool, evs ...agent.Event) *transcript.SubagentBlock {
	t.Helper()
	src := agent.Source{AgentID: name, Name: name, AgentType: "Explore", Description: "do " + name, Depth: 1}
	b := transcript.NewSubagentBlock(agent.ChildStarted{Source: src, Background: background})
	b.Observe(fixedNow)
	for _, ev := range evs {
		b.Apply(ev)
	}
	return b
}

func TestPausedBackgroundShowsBothStates(t *testing.T) {
	b := paneIn(t, "a", true, agent.ChildState{State: agent.StatePaused, Paused: true, Background: true})
	if got := b.StateName(); got != "paused · background" {
		t.Errorf("state %q, want paused · background", got)
	}
	if s := b.Stats(fixedNow); !strings.HasPrefix(s, "paused · background · ") {
		t.Errorf("header stats %q do not say both", s)
	}
	b.Apply(agent.ChildState{State: agent.StateRunning, Background: true})
	if got := b.StateName(); got != "background" {
		t.Errorf("resumed: state %q, want background", got)
	}
	for _, tc := range []struct {
		w    int
		want string
	}{{20, "paused · background"}, {12, "paused · ba"}, {8, "paused"}, {4, "paus"}} {
		if got := transcript.StateTrim("paused · background", tc.w); got != tc.want {
			t.Errorf("stateTrim at %d: %q, want %q", tc.w, got, tc.want)
		}
	}
}

func TestSentMessageQueuedThenRead(t *testing.T) {
	h := newHarness(t, 100, 30)
	kids := namedPanes(h)
	h.send(tea.KeyMsg{Type: tea.KeyCtrlG})
	h.typeText("m")
	h.typeText("focus on the api")
	h.key(tea.KeyEnter)
	pane := h.m.rt.children[kids[2].AgentID]
	if pane.QueuedMessages() != 1 {
		t.Fatalf("%d messages queued in the pane, want 1", pane.QueuedMessages())
	}
	h.key(tea.KeyEsc)
	if !h.screenContains("✉ queued: focus on the api") || !h.screenContains("✉ 1 queued") {
		t.Errorf("the pane does not show the message queued:\n%s", ansi.Strip(h.m.View()))
	}
	// The full-screen view shows it queued too.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlG})
	h.key(tea.KeyEnter)
	if h.m.shownChild() == nil || h.m.shownChild().Pane() != pane {
		t.Fatal("enter did not open the child's view")
	}
	if !h.screenContains("✉ queued: focus on the api") {
		t.Errorf("the child's view does not show the message queued:\n%s", ansi.Strip(h.m.View()))
	}
	// The child's next request takes it: read.
	h.events(agent.ChildMessage{Source: kids[2], Text: "focus on the api"})
	s := ansi.Strip(h.m.View())
	if strings.Contains(s, "queued") {
		t.Errorf("the child's view still says queued after the child read it:\n%s", s)
	}
	if !strings.Contains(s, "focus on the api") {
		t.Errorf("the child's view lost the message:\n%s", s)
	}
	h.key(tea.KeyEsc)
	h.key(tea.KeyEsc)
	s = ansi.Strip(h.m.View())
	if !strings.Contains(s, "✉ read: focus on the api") || strings.Contains(s, "✉ queued") || strings.Contains(s, "1 queued") {
		t.Errorf("the pane does not show the message read:\n%s", s)
	}
	if pane.QueuedMessages() != 0 {
		t.Errorf("%d messages still queued", pane.QueuedMessages())
	}
}

func TestMessagesQueuedTogetherReadAsOne(t *testing.T) {
	b := paneIn(t, "a", false)
	b.MarkSent("one")
	b.MarkSent("two")
	b.UnmarkSent("nothing like it")
	b.Apply(agent.ChildMessage{Text: "one\n\ntwo"})
	if b.QueuedMessages() != 0 {
		t.Errorf("%d still queued after both entered as one", b.QueuedMessages())
	}
	b.MarkSent("three")
	b.UnmarkSent("three")
	if b.QueuedMessages() != 0 {
		t.Error("a message that failed to send stays queued")
	}
	b.SetExpanded(true)
	got := ansi.Strip(strings.Join(b.Lines(transcript.RenderContext{Styles: &theme.New(theme.ModeDark, true, false).Styles, Width: 60, Now: fixedNow}), "\n"))
	for _, want := range []string{"✉ read: one", "✉ read: two", "✉ not sent: three"} {
		if !strings.Contains(got, want) {
			t.Errorf("the pane lacks %q:\n%s", want, got)
		}
	}
}

func TestParentWaitsOnPausedChild(t *testing.T) {
	h := newHarness(t, 120, 30)
	kids := namedPanes(h)
	h.events(agent.ChildState{Source: kids[0], State: agent.StatePaused, Paused: true})
	if got := h.m.status.View(); !strings.Contains(ansi.Strip(got), "waiting on paused scout") {
		t.Errorf("the status bar does not say the turn waits on the paused child: %q", ansi.Strip(got))
	}
	h.events(agent.ChildState{Source: kids[1], State: agent.StatePaused, Paused: true})
	if got := ansi.Strip(h.m.status.View()); !strings.Contains(got, "waiting on 2 paused subagents") {
		t.Errorf("status %q", got)
	}
	// A paused child in the background holds nobody up.
	h.events(
		agent.ChildState{Source: kids[0], State: agent.StatePaused, Paused: true, Background: true},
		agent.ChildState{Source: kids[1], State: agent.StateRunning},
	)
	if got := ansi.Strip(h.m.status.View()); strings.Contains(got, "waiting on") {
		t.Errorf("status %q still waits on a background child", got)
	}
}

func TestParentPaneWaitsOnPausedChild(t *testing.T) {
	r := crewRouter(t) // helper, fixer's child, is paused in the foreground
	waits := r.pausedWaits()
	fixer := r.find("fixer")
	if got := waits[fixer]; len(got) != 1 || got[0] != "helper" {
		t.Fatalf("fixer waits on %v, want [helper]", got)
	}
	if len(waits[nil]) != 0 {
		t.Errorf("the main agent waits on %v, want none (helper is not its child)", waits[nil])
	}
	fixer.SetWaitingOn(pausedWaitText(waits[fixer]))
	if s := fixer.Stats(fixedNow); !strings.HasPrefix(s, "waiting on paused helper · ") {
		t.Errorf("fixer's header stats %q do not say it waits on helper", s)
	}
}

func TestHoldsMessage(t *testing.T) {
	for _, tc := range []struct {
		text, sent string
		want       bool
	}{
		{"look at a.go", "look at a.go", true},
		{"one\n\ntwo", "one", true},
		{"one\n\ntwo", "two", true},
		{"one\n\ntwo\n\nthree", "two", true},
		{"banana", "a", false},
		{"one\n\ntwo", "one\n\ntwo", true},
		{"two words", "two", false},
	} {
		if got := transcript.HoldsMessage(tc.text, tc.sent); got != tc.want {
			t.Errorf("holdsMessage(%q, %q) = %v, want %v", tc.text, tc.sent, got, tc.want)
		}
	}
}
