package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/theme"
	"covey/tools/tool"
)

// benchAnswer is a finished answer of realistic size and shape.
const benchAnswer = "The failure comes from `layout`: it subtracts the input height twice.\n\n" +
	"1. `Model.layout` computes the fixed rows.\n2. `transcript.SetSize` gets the rest.\n\n" +
	"```go\nfixed := m.input.Height() + 1\n```\n\nI'll fix it and run the tests."

// benchModel builds a model holding n blocks (user messages, finished
// markdown answers, tool calls and finished subagent panes) and, at the
// end, a task call with live running panes.
func benchModel(b *testing.B, n, live int) Model {
	b.Helper()
	m := New(Options{Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "dark", Workspace: "/w", PermissionMode: "ask"})
	m.clock = func() time.Time { return fixedNow }
	src := mainSrc()
	for i := 0; m.tr.Len() < n; i++ {
		switch i % 5 {
		case 0:
			m.tr.Append(transcript.NewUserBlock(fmt.Sprintf("question %d: why does the layout break at 60 columns?", i)))
		case 1:
			m.rt.route(agent.TextDelta{Source: src, Text: benchAnswer})
			m.rt.finishAssistant()
		case 2, 3:
			id := fmt.Sprintf("call%d", i)
			m.rt.route(toolStarted(src, id, toolname.ReadFile, fmt.Sprintf("pkg/file%d.go", i)))
			m.rt.route(agent.ToolFinished{Source: src, CallID: id, Name: toolname.ReadFile, Duration: time.Millisecond,
				Result: tool.Result{Content: "package pkg\n\nfunc F() {}\n", Summary: "3 lines"}})
		case 4:
			id := fmt.Sprintf("task%d", i)
			kid := childSrc(fmt.Sprintf("k%d", i), id, "Explore", "look around")
			m.rt.route(agent.ToolStarted{Source: src, CallID: id, Name: toolname.Task})
			m.rt.route(agent.ChildStarted{Source: kid})
			m.rt.route(agent.TextDelta{Source: kid, Text: "found it in ui/model.go"})
			m.rt.route(agent.ChildFinished{Source: kid, Reason: agent.StopOK, Elapsed: time.Second, Summary: "found it"})
			m.rt.route(agent.ToolFinished{Source: src, CallID: id, Name: toolname.Task, Result: tool.Result{Content: "found it"}})
		}
	}
	if live > 0 {
		m.rt.route(agent.ToolStarted{Source: src, CallID: "live_task", Name: toolname.Task})
		for j := range live {
			kid := childSrc(fmt.Sprintf("live%d", j), "live_task", "Explore", fmt.Sprintf("live child %d", j))
			m.rt.route(agent.ChildStarted{Source: kid})
			m.rt.route(agent.ToolStarted{Source: kid, CallID: fmt.Sprintf("lc%d", j), Name: toolname.Grep, KeyArg: "func main"})
			m.rt.route(agent.TextDelta{Source: kid, Text: "reading the code that matches"})
		}
	}
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = nm.(Model)
	for m.tr.Prewarm(1 << 20) {
	}
	return m
}

// BenchmarkView measures one frame at 120x40. With live panes the spinner
// frame advances on every iteration, as the UI's tick does, so the live
// panes are drawn again each time.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		for _, live := range []int{0, 10} {
			b.Run(fmt.Sprintf("blocks=%d/live=%d", n, live), func(b *testing.B) {
				m := benchModel(b, n, live)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					m.tr.SetClock(m.tr.Base().Now, i)
					m.status.SetFrame(m.tr.Base().Now, i, agent.Usage{})
					_ = m.View()
				}
			})
		}
	}
}

// BenchmarkResize measures a width change at 1,000 blocks: the update that
// reflows and the first frame at the new width.
func BenchmarkResize(b *testing.B) {
	m := benchModel(b, 1000, 0)
	widths := []int{100, 120}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nm, _ := m.Update(tea.WindowSizeMsg{Width: widths[i%2], Height: 40})
		m = nm.(Model)
		_ = m.View()
	}
}

// BenchmarkStreamToken measures one text delta arriving at a 20 KB answer
// that is still streaming: routing, layout and the frame. Every 200 tokens
// (a long paragraph) the answer starts again, untimed, so the streaming
// tail stays the size of a real paragraph.
func BenchmarkStreamToken(b *testing.B) {
	m := benchModel(b, 100, 0)
	var md strings.Builder
	for md.Len() < 20<<10 {
		md.WriteString("Some **streamed** markdown with `code` and a [link](http://x).\n\n")
	}
	start := func() {
		m.rt.finishAssistant()
		nm, _ := m.Update(eventsMsg{events: []agent.Event{agent.TextDelta{Source: mainSrc(), Text: md.String()}}})
		m = nm.(Model)
		_ = m.View()
	}
	start()
	msg := eventsMsg{events: []agent.Event{agent.TextDelta{Source: mainSrc(), Text: "tok "}}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%200 == 199 {
			b.StopTimer()
			start()
			b.StartTimer()
		}
		// As the program runs it (painterModel): in place, no copy.
		m.step(msg)
		_ = m.render()
	}
}

// BenchmarkResizeBackground measures what a width change at 1,000 blocks
// costs in all: the update, the first frame at the new width, and the
// background work that follows it (prewarm messages until none is left).
func BenchmarkResizeBackground(b *testing.B) {
	m := benchModel(b, 1000, 0)
	widths := []int{100, 120}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nm, cmd := m.Update(tea.WindowSizeMsg{Width: widths[i%2], Height: 40})
		m = nm.(Model)
		_ = m.View()
		m = drainBackground(m, cmd)
	}
}

// drainBackground runs the prewarm messages a command leads to, as the
// program would between frames, until none is asked for.
func drainBackground(m Model, cmd tea.Cmd) Model {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case prewarmMsg:
			nm, next := m.Update(msg)
			m = nm.(Model)
			_ = m.View()
			queue = append(queue, next)
		}
	}
	return m
}

// BenchmarkReplayBackground is BenchmarkReplay with the work after the
// first frame: the prewarm messages that measure the rest of the session.
func BenchmarkReplayBackground(b *testing.B) {
	evs := replayEvents()
	th := theme.New(theme.ModeDark, true, false)
	b.ReportAllocs()
	for b.Loop() {
		md := New(Options{Theme: th, MarkdownStyle: "dark", Replay: evs, ResumeNote: "resumed"})
		md.clock = func() time.Time { return fixedNow }
		cmd := md.Init()
		nm, cmd2 := md.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m := nm.(Model)
		_ = m.View()
		drainBackground(m, tea.Batch(cmd, cmd2))
	}
}

// BenchmarkScrollPage measures a page up through 1,000 blocks just after a
// width change, so the pages scrolled into are estimates: the key, the
// frame and the background work it asks for. At the top the view jumps
// back to the bottom, untimed.
func BenchmarkScrollPage(b *testing.B) {
	m := benchModel(b, 1000, 0)
	nm, cmd := m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	m = drainBackground(nm.(Model), cmd)
	pgup := tea.KeyMsg{Type: tea.KeyPgUp}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m.tr.Offset() == 0 {
			b.StopTimer()
			m.tr.Bottom()
			b.StartTimer()
		}
		nm, cmd := m.Update(pgup)
		m = nm.(Model)
		_ = m.View()
		m = drainBackground(m, cmd)
	}
}
