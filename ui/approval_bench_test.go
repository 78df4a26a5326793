package ui

import (
	"fmt"
	"testing"
	"time"

	"covey/tools/toolname"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/theme"
	"covey/tools/tool"
)

// BenchmarkReplay builds the model of a resumed session of about 5,000
// events and draws its first frame: replayed blocks are measured lazily,
// so this stays near the cost of routing the events.
func BenchmarkReplay(b *testing.B) {
	evs := replayEvents()
	th := theme.New(theme.ModeDark, true, false)
	b.ReportAllocs()
	for b.Loop() {
		md := New(Options{Theme: th, MarkdownStyle: "dark", Replay: evs, ResumeNote: "resumed"})
		md.clock = func() time.Time { return fixedNow }
		nm, _ := md.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = nm.View()
	}
}

// replayEvents is a session of about 5,000 events: 1,000 exchanges of a
// question, a markdown answer and a tool call.
func replayEvents() []agent.Event {
	m := mainSrc()
	var evs []agent.Event
	for i := 0; len(evs) < 5000; i++ {
		id := fmt.Sprintf("c%d", i)
		evs = append(evs,
			agent.UserMessage{Source: m, Text: fmt.Sprintf("question %d", i)},
			agent.TextDelta{Source: m, Text: benchAnswer},
			toolStarted(m, id, toolname.ReadFile, "pkg/a.go"),
			agent.ToolFinished{Source: m, CallID: id, Name: toolname.ReadFile, Result: tool.Result{Content: "package a\n", Summary: "1 line"}},
			agent.Done{Source: m, Reason: agent.StopOK})
	}
	return evs
}
