package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/theme"
	"covey/tools/tool"
)

// recordedSession is a session as it is loaded back: two user turns, an
// answer, tool calls, and children, one of which never finished (the
// process died) along with a main-agent call.
func recordedSession() []agent.Event {
	m := mainSrc()
	done := childSrc("c1", "call_task", "Explore", "map the packages")
	lost := childSrc("c2", "call_task", "general-purpose", "fix the test")
	return []agent.Event{
		agent.UserMessage{Source: m, Text: "what is in this repo?"},
		agent.TextDelta{Source: m, Text: "A Go module with a TUI."},
		agent.Done{Source: m, Reason: agent.StopOK},
		agent.UserMessage{Source: m, Text: "now fix the flaky test"},
		toolStarted(m, "r1", toolname.ReadFile, "ui/model.go"),
		agent.ToolFinished{Source: m, CallID: "r1", Name: toolname.ReadFile, Result: tool.Result{Summary: "410 lines"}},
		agent.ToolStarted{Source: m, CallID: "call_task", Name: toolname.Task, KeyArg: "2 tasks"},
		agent.ChildStarted{Source: done, Model: "small"},
		agent.ChildStarted{Source: lost, Model: "small"},
		agent.TextDelta{Source: done, Text: "three packages"},
		agent.ChildFinished{Source: done, Reason: agent.StopOK, ToolCalls: 2, Elapsed: 3 * time.Second, Summary: "three packages"},
		agent.ToolStarted{Source: lost, CallID: "k1", Name: toolname.Bash, KeyArg: "go test ./..."},
		toolStarted(m, "w1", toolname.WriteFile, "notes.md"),
	}
}

func TestReplay(t *testing.T) {
	eng := newFakeEngine()
	m := New(Options{
		Engine:        eng,
		Theme:         theme.New(theme.ModeDark, true, false),
		MarkdownStyle: "ascii",
		Replay:        recordedSession(),
		ResumeNote:    "resumed session 20261121T130501Z-ab12cd (9 messages)",
	})
	m.clock = func() time.Time { return fixedNow }
	h := &harness{t: t, m: m, eng: eng, msgs: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 50})

	var kinds []string
	for _, b := range h.m.tr.Blocks() {
		kinds = append(kinds, strings.TrimPrefix(fmt.Sprintf("%T", b), "*transcript."))
	}
	want := []string{"UserBlock", "AssistantBlock", "UserBlock", "ToolBlock", "ToolBlock",
		"SubagentBlock", "SubagentBlock", "ToolBlock", "NoticeBlock"}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Fatalf("blocks\n %v\nwant\n %v", kinds, want)
	}
	t.Run("nothing is left running", func(t *testing.T) {
		for i, b := range h.m.tr.Blocks() {
			if b.Live() {
				t.Errorf("block %d (%T) is live", i, b)
			}
		}
		if h.m.needsTick() {
			t.Error("the replayed transcript wants ticks")
		}
	})
	t.Run("children show their final state", func(t *testing.T) {
		c1, c2 := h.m.rt.children["c1"], h.m.rt.children["c2"]
		if c1.StateName() != "done" || c2.StateName() != "cancelled" {
			t.Errorf("states %v, %v; want done and cancelled", c1.StateName(), c2.StateName())
		}
	})
	t.Run("the screen shows the conversation and the note", func(t *testing.T) {
		for _, s := range []string{"what is in this repo?", "now fix the flaky test", "[Explore] map the packages",
			"resumed session 20261121T130501Z-ab12cd (9 messages)"} {
			if !h.screenContains(s) {
				t.Errorf("screen lacks %q:\n%s", s, ansi.Strip(h.m.View()))
			}
		}
	})
	t.Run("heights are estimates until prewarmed", func(t *testing.T) {
		for h.m.tr.Prewarm(prewarmPerFrame) {
		}
		for i := range h.m.tr.Len() {
			if height, exact := h.m.tr.Measured(i); !exact || height == 0 {
				t.Errorf("entry %d: exact %v height %d after prewarm", i, exact, height)
			}
		}
	})
	t.Run("a new turn follows the replay", func(t *testing.T) {
		h.startTurn("and now?")
		if last, ok := h.m.tr.Last().(*transcript.UserBlock); !ok || last == nil {
			t.Errorf("last block %T, want the new message", h.m.tr.Last())
		}
	})
}

func TestRetryingCountdown(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.startTurn("hi")
	now := fixedNow
	h.m.clock = func() time.Time { return now }
	h.events(agent.Retrying{Source: mainSrc(), Attempt: 1, Wait: 12 * time.Second, Reason: "rate limited"})
	status := func() string { return h.screenLines()[len(h.screenLines())-2] }
	steps := []struct {
		after time.Duration
		want  string
	}{
		{0, "rate limited, retrying in 12 s"},
		{4500 * time.Millisecond, "rate limited, retrying in 8 s"},
		{12 * time.Second, "rate limited, retrying now…"},
	}
	for _, s := range steps {
		t.Run(s.want, func(t *testing.T) {
			now = fixedNow.Add(s.after)
			h.send(tickMsg{id: h.m.tickID})
			if !strings.Contains(status(), s.want) {
				t.Errorf("status %q lacks %q", status(), s.want)
			}
		})
	}
	t.Run("the next word of the main agent clears it", func(t *testing.T) {
		h.events(agent.TextDelta{Source: mainSrc(), Text: "hello"})
		if strings.Contains(status(), "retrying") {
			t.Errorf("status still says %q", status())
		}
	})
	t.Run("a child's retry shows in its pane, not the status bar", func(t *testing.T) {
		_, kids := withPanes(h)
		h.events(agent.Retrying{Source: kids[0], Attempt: 1, Wait: 5 * time.Second, Reason: "rate limited"})
		if strings.Contains(status(), "retrying") {
			t.Errorf("a child's retry reached the status bar: %q", status())
		}
		if !h.screenContains("rate limited, retrying in 5s") {
			t.Errorf("the pane does not show the retry:\n%s", ansi.Strip(h.m.View()))
		}
	})
}

// TestReplayLongSessionDrawsNearTheScreen resumes 1,000 exchanges: the
// background work draws what is near the bottom, not the whole history, and
// the top of the session is still there to scroll to, drawn in full.
func TestReplayLongSessionDrawsNearTheScreen(t *testing.T) {
	eng := newFakeEngine()
	m := New(Options{Engine: eng, Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii", Replay: replayEvents()})
	m.clock = func() time.Time { return fixedNow }
	h := &harness{t: t, m: m, eng: eng, msgs: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 40})
	for range 100 {
		if !h.m.prewarming {
			break
		}
		h.send(await[prewarmMsg](h))
	}
	exact := 0
	for i := range h.m.tr.Len() {
		if _, ok := h.m.tr.Measured(i); ok {
			exact++
		}
	}
	if exact == 0 || exact > 200 {
		t.Errorf("%d of %d blocks drawn after the resume settled, want those near the screen", exact, h.m.tr.Len())
	}
	if !h.screenContains("question 999") {
		t.Errorf("the bottom of the session is not on screen:\n%s", ansi.Strip(h.m.View()))
	}
	h.key(tea.KeyHome)
	for _, s := range []string{"question 0", "The failure comes from layout"} {
		if !h.screenContains(s) {
			t.Errorf("after home the screen lacks %q:\n%s", s, ansi.Strip(h.m.View()))
		}
	}
}
