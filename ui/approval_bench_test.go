package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/theme"
	"covey/tools/tool"
)

// BenchmarkApprovalScroll is one scroll step through a 5,000-line diff, in
// both layouts: only the window is drawn, so the cost does not grow with
// the diff.
func BenchmarkApprovalScroll(b *testing.B) {
	var old, cur strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&old, "line %d of the old file\n", i)
		if i%3 == 0 {
			fmt.Fprintf(&cur, "line %d of the new file\n", i)
		} else {
			fmt.Fprintf(&cur, "line %d of the old file\n", i)
		}
	}
	for _, width := range []int{100, 160} {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			blk := newApprovalBlock(editRequest("big.txt", old.String(), cur.String()))
			blk.SetActive(true)
			blk.SetRows(30)
			ctx := approvalCtx(width)
			blk.Lines(ctx)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					blk.ScrollBy(1)
				} else {
					blk.ScrollBy(-1)
				}
				blk.Lines(ctx)
			}
		})
	}
}

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
