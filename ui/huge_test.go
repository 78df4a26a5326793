package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/theme"
)

// hugeText is a message of about n bytes in lines of prose.
func hugeText(n int) string {
	line := strings.Repeat("word ", 15) + "\n"
	return strings.Repeat(line, n/len(line))
}

// BenchmarkResumeHugeMessage is the TUI's work from a loaded session with
// a 50 MB user message to its first frame (New, the first size, View).
func BenchmarkResumeHugeMessage(b *testing.B) {
	replay := []agent.Event{
		agent.UserMessage{Source: agent.Source{AgentID: agent.MainAgentID}, Text: hugeText(50 << 20)},
		agent.TextDelta{Source: agent.Source{AgentID: agent.MainAgentID}, Text: "short answer"},
	}
	th := theme.New(theme.ModeDark, true, false)
	b.ResetTimer()
	for range b.N {
		m := New(Options{Theme: th, Replay: replay, ResumeNote: "resumed", MarkdownStyle: "dark"})
		next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		if next.View() == "" {
			b.Fatal("no frame")
		}
	}
}
