package ui

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/permission"
	"covey/theme"
	"covey/tools/tool"
)

// player is a replay driven by hand: a fake wall clock, ticks sent by the
// test.
type playerHarness struct {
	t    *testing.T
	m    Model
	wall time.Time
	tick tea.Cmd
}

// recorded is a small crew session: the user's message, a child that
// asks to write, writes, fails a call and ends, then the main answer.
func recorded(start time.Time) []ReplayEvent {
	child := agent.Source{AgentID: "general-purpose-1", Name: "scribe", AgentType: "general-purpose", Description: "write notes", Depth: 1, ParentID: agent.MainAgentID, ParentCallID: "t1"}
	main := agent.Source{AgentID: agent.MainAgentID}
	req, _ := json.Marshal(permission.Request{Tool: "write_file", Path: "NOTES.md", Agent: "[general-purpose] write notes", AgentID: child.AgentID,
		Change: &permission.FileChange{Path: "NOTES.md", Created: true, Diff: "--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1 @@\n+notes\n", Added: 1}})
	evs := []agent.Event{
		agent.UserMessage{Source: main, Text: "write the notes"},
		agent.ToolStarted{Source: main, CallID: "t1", Name: "task", KeyArg: "write notes"},
		agent.ChildStarted{Source: child, Model: "m"},
		agent.ToolStarted{Source: child, CallID: "w1", Name: "write_file", KeyArg: "NOTES.md"},
		agent.ApprovalAsked{Source: child, ID: 1, Tool: "write_file", Summary: "NOTES.md", Request: req},
		agent.ApprovalAnswered{Source: child, ID: 1, Tool: "write_file", Allowed: true, Outcome: agent.OutcomeAllowed},
		agent.ToolFinished{Source: child, CallID: "w1", Name: "write_file", KeyArg: "NOTES.md",
			Result: tool.Result{Content: "wrote", Display: &tool.FileChange{Path: "NOTES.md", Created: true, Diff: "+notes\n", Added: 1}}},
		agent.ToolStarted{Source: child, CallID: "b1", Name: "bash", KeyArg: "false"},
		agent.ToolFinished{Source: child, CallID: "b1", Name: "bash", KeyArg: "false", Result: tool.Result{Content: "exit 1", IsError: true}},
		agent.ChildFinished{Source: child, Reason: agent.StopOK, Summary: "written"},
		agent.ToolFinished{Source: main, CallID: "t1", Name: "task", Result: tool.Result{Content: "done"}},
		agent.TextDelta{Source: main, Text: "REPLAYED ANSWER"},
		agent.Done{Source: main, Reason: agent.StopOK},
	}
	out := make([]ReplayEvent, len(evs))
	for i, e := range evs {
		out[i] = ReplayEvent{Event: e, At: start.Add(time.Duration(i) * time.Second)}
	}
	return out
}

func newPlayerHarness(t *testing.T, evs []ReplayEvent, speed float64) *playerHarness {
	t.Helper()
	h := &playerHarness{t: t, wall: time.Unix(1_800_000_000, 0)}
	h.m = New(Options{Playback: &Playback{Events: evs, Speed: speed, Model: "m"}, Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii"})
	h.m.play.wallNow = func() time.Time { return h.wall }
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.tick = h.m.Init()
	return h
}

func (h *playerHarness) send(msg tea.Msg) tea.Cmd {
	h.t.Helper()
	nm, cmd := h.m.Update(msg)
	h.m = nm.(Model)
	return cmd
}

func (h *playerHarness) press(k string) {
	h.t.Helper()
	msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
	switch k {
	case " ":
		msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "ctrl+c":
		msg = tea.KeyMsg{Type: tea.KeyCtrlC}
	}
	h.tick = h.send(msg)
}

func (h *playerHarness) screen() string { return ansi.Strip(h.m.View()) }

// fire advances the wall clock by d and delivers the tick the player asked
// for last.
func (h *playerHarness) fire(d time.Duration) {
	h.t.Helper()
	h.wall = h.wall.Add(d)
	h.send(playTickMsg{gen: h.m.play.gen})
}

func TestPlaybackKeys(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	tests := map[string]struct {
		keys []string
		want []string // on screen after the keys
		pos  int
		gone []string
	}{
		"space pauses":             {keys: []string{" "}, want: []string{"‖ paused", "event 0/13"}},
		"step delivers one event":  {keys: []string{"."}, want: []string{"‖ paused", "event 1/13", "write the notes", "at your message"}, pos: 1},
		"n steps too":              {keys: []string{"n", "n"}, want: []string{"event 2/13", "task"}, pos: 2},
		"a jumps to the approval":  {keys: []string{"a"}, want: []string{"event 5/13", "at approval: write_file NOTES.md (scribe)", "awaiting approval", "Allow write_file NOTES.md", "the user answers later in the session"}, pos: 5, gone: []string{"answer this request", "y allow"}},
		"e jumps to the edit":      {keys: []string{"e"}, want: []string{"event 7/13", "at edit NOTES.md (scribe)", "allowed"}, pos: 7},
		"x jumps to the error":     {keys: []string{"x"}, want: []string{"event 9/13", "at failed bash false (scribe)"}, pos: 9},
		"no second approval":       {keys: []string{"a", "a"}, want: []string{"no question or approval after this point"}, pos: 5},
		"+ goes faster":            {keys: []string{"+", "+"}, want: []string{" 10× "}},
		"- goes slower":            {keys: []string{"-"}, want: []string{" 1× "}},
		"letters reach no input":   {keys: []string{"h", "i", "p", "m"}, want: []string{"▶ playing"}, gone: []string{"hipm"}},
		"steps play to the end":    {keys: strings.Split(strings.Repeat(".", 14), ""), want: []string{"end of the session", "REPLAYED ANSWER", "event 13/13"}, pos: 13},
		"space at the end is kept": {keys: append(strings.Split(strings.Repeat(".", 13), ""), " "), want: []string{"end of the session"}, pos: 13},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newPlayerHarness(t, recorded(start), 2)
			for _, k := range tc.keys {
				h.press(k)
			}
			s := h.screen()
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("the screen lacks %q:\n%s", w, s)
				}
			}
			for _, g := range tc.gone {
				if strings.Contains(s, g) {
					t.Errorf("the screen shows %q:\n%s", g, s)
				}
			}
			if h.m.play.pos != tc.pos {
				t.Errorf("at event %d, want %d", h.m.play.pos, tc.pos)
			}
		})
	}
}

// TestPlaybackQuits: q and ctrl+c quit at once.
func TestPlaybackQuits(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		h := newPlayerHarness(t, recorded(time.Unix(1_700_000_000, 0)), 1)
		h.press(k)
		if h.tick == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := h.tick().(tea.QuitMsg); !ok && !quits(h.tick) {
			t.Errorf("%s does not quit", k)
		}
	}
}

// quits reports whether cmd (or one of a batch) quits.
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if quits(c) {
				return true
			}
		}
	}
	return false
}

// TestPlaybackPace: events come at their time over the speed, the clock
// the panes read is the session's, and an idle gap is cut short and said.
func TestPlaybackPace(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	evs := recorded(start)
	// Ten idle minutes before the answer.
	for i := 11; i < len(evs); i++ {
		evs[i].At = evs[i].At.Add(10 * time.Minute)
	}
	h := newPlayerHarness(t, evs, 2)
	h.fire(0)
	if h.m.play.pos != 1 {
		t.Fatalf("at the start %d events delivered, want the first", h.m.play.pos)
	}
	h.fire(400 * time.Millisecond) // 0.8 s of the session: the next is at 1 s
	if h.m.play.pos != 1 {
		t.Errorf("at 0.8 s %d events delivered, want 1", h.m.play.pos)
	}
	h.fire(100 * time.Millisecond)
	if h.m.play.pos != 2 {
		t.Errorf("at 1 s %d events delivered, want 2", h.m.play.pos)
	}
	if got := h.m.clock(); !got.Equal(start.Add(time.Second)) {
		t.Errorf("the UI's clock reads %v, want the session's %v", got, start.Add(time.Second))
	}
	for h.m.play.pos < 11 {
		h.fire(500 * time.Millisecond)
	}
	if !strings.Contains(h.screen(), "skipping 10m") {
		t.Errorf("the idle gap is not said:\n%s", h.screen())
	}
	h.fire(idleCap)
	if h.m.play.pos != 12 || !strings.Contains(h.screen(), "idle skipped") {
		t.Errorf("after the cut gap at event %d:\n%s", h.m.play.pos, h.screen())
	}
}

// BenchmarkPlaybackJump: e through a crew session of 10,000 tool calls to
// the one edit at its end, everything routed on the way.
func BenchmarkPlaybackJump(b *testing.B) {
	start := time.Unix(1_700_000_000, 0)
	child := agent.Source{AgentID: "explore-1", Name: "scout", AgentType: "Explore", Description: "scan", Depth: 1, ParentID: agent.MainAgentID, ParentCallID: "t1"}
	main := agent.Source{AgentID: agent.MainAgentID}
	evs := []ReplayEvent{
		{Event: agent.UserMessage{Source: main, Text: "go"}, At: start},
		{Event: agent.ToolStarted{Source: main, CallID: "t1", Name: "task"}, At: start},
		{Event: agent.ChildStarted{Source: child, Model: "m"}, At: start},
	}
	for i := range 10_000 {
		at := start.Add(time.Duration(i) * time.Millisecond)
		id := "g" + strconv.Itoa(i)
		evs = append(evs, ReplayEvent{Event: agent.ToolStarted{Source: child, CallID: id, Name: "grep", KeyArg: "x"}, At: at},
			ReplayEvent{Event: agent.ToolFinished{Source: child, CallID: id, Name: "grep", KeyArg: "x", Result: tool.Result{Content: "a.go:1"}}, At: at})
	}
	evs = append(evs, ReplayEvent{Event: agent.ToolFinished{Source: main, CallID: "w", Name: "write_file",
		Result: tool.Result{Display: &tool.FileChange{Path: "a.go", Diff: "+x\n", Added: 1}}}, At: start.Add(11 * time.Second)})
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		m := New(Options{Playback: &Playback{Events: evs, Speed: 1}, Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii"})
		nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m = nm.(Model)
		b.StartTimer()
		nm, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("e")})
		m = nm.(Model)
		if m.play.pos != len(evs) {
			b.Fatalf("at event %d of %d", m.play.pos, len(evs))
		}
		_ = m.View()
	}
}

// TestResumeShowsJournaledAnswers: a resumed session shows each journaled
// request as the record its answer left, under its child's pane; one
// never answered (covey stopped first) is not left waiting.
func TestResumeShowsJournaledAnswers(t *testing.T) {
	var evs []agent.Event
	for _, e := range recorded(time.Unix(1_700_000_000, 0)) {
		evs = append(evs, e.Event)
	}
	unanswered := agent.ApprovalAsked{Source: agent.Source{AgentID: agent.MainAgentID}, ID: 9, Tool: "bash", Summary: "make deploy",
		Request: json.RawMessage(`{"Tool":"bash","Command":"make deploy"}`)}
	m := New(Options{Replay: append(evs, unanswered), Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii"})
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	s := ansi.Strip(nm.(Model).View())
	if !strings.Contains(s, "✓ allowed  write_file NOTES.md") {
		t.Errorf("no record of the answer:\n%s", s)
	}
	if strings.Contains(s, "make deploy") || strings.Contains(s, "awaiting approval") {
		t.Errorf("an unanswered request is left on screen:\n%s", s)
	}
}
