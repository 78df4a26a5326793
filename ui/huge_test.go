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

// TestHugeMessagesShownCut: a user message or an answer of 20 MB draws at
// most maxShownText of it, with a last line saying how much is left out
// (drawn whole, a 50 MB message kept the first frame waiting 10-45 s).
func TestHugeMessagesShownCut(t *testing.T) {
	text := hugeText(20 << 20)
	ans := NewAssistantBlock()
	ans.AppendText(text)
	ans.Finish()
	for name, b := range map[string]Block{"user": NewUserBlock(text), "assistant": ans} {
		t.Run(name, func(t *testing.T) {
			lines := b.Lines(blockCtx(t, 100))
			joined := strings.Join(lines, "\n")
			if len(joined) > 2*maxShownText {
				t.Errorf("%d bytes drawn of a 20 MB message", len(joined))
			}
			if !strings.Contains(joined, "MB more of this message not shown here; the whole message is in the conversation") {
				t.Errorf("no note of what was left out; last lines:\n%s", strings.Join(lines[max(len(lines)-3, 0):], "\n"))
			}
		})
	}
	if got := shownText("short\n"); got != "short\n" {
		t.Errorf("a short message was changed: %q", got)
	}
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
