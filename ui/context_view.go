package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/internal/plural"
	"covey/ui/cells"
	"covey/ui/transcript"
)

// cmdContext shows what the next request carries: the fill against the
// window, then each part in tokens, and what a compaction would free.
func (m *Model) cmdContext(string) tea.Cmd {
	e, ok := m.engine.(ContextEngine)
	if !ok {
		g, _ := transcript.ContextGauge(m.rt.fill.Tokens, m.rt.fill.Window)
		if g == "" {
			g = "nothing known yet"
		}
		m.notice(transcript.NoticeInfo, "Context: "+g)
		return nil
	}
	m.notice(transcript.NoticeInfo, contextText(e.ContextBreakdown()))
	return nil
}

// contextText is /context's report of b.
func contextText(b agent.ContextBreakdown) string {
	var s strings.Builder
	tok := agent.FormatTokens
	switch {
	case b.Window > 0:
		fmt.Fprintf(&s, "Context: %s of %s tokens (%d%%) in the next request", tok(b.Tokens), tok(b.Window), b.Tokens*100/b.Window)
		from := b.WindowFrom
		if from == "" {
			from = "set"
		}
		fmt.Fprintf(&s, "\n  window: %d tokens, from %s", b.Window, windowFromText(from))
	default:
		fmt.Fprintf(&s, "Context: %s tokens in the next request; the model's window is unknown (set context_window in config)", tok(b.Tokens))
	}
	memory := "memory files"
	if len(b.MemoryFiles) > 0 {
		memory += " (" + strings.Join(b.MemoryFiles, ", ") + ")"
	}
	rows := []struct {
		name string
		n    int
	}{
		{"system prompt", b.System},
		{memory, b.Memory},
		{fmt.Sprintf("tools, built-in (%d)", b.Builtins), b.BuiltinTools},
		{fmt.Sprintf("tools, MCP (%d)", b.MCPs), b.MCPTools},
		{fmt.Sprintf("messages (%d)", b.MessageCount), b.Messages},
		{fmt.Sprintf("tool results (%d)", b.ResultCount), b.ToolResults},
	}
	width := 0
	for _, r := range rows {
		width = max(width, cells.Width(r.name))
	}
	for _, r := range rows {
		fmt.Fprintf(&s, "\n  %s%s  %6s", r.name, strings.Repeat(" ", width-cells.Width(r.name)), tok(r.n))
	}
	s.WriteString(compactPromise(b))
	s.WriteString("\n  (parts are estimates, about 4 bytes a token; the total counts what the server counted)")
	return s.String()
}

// compactPromise is /context's line on what /compact would do: the
// messages it would summarise, and what that frees once a summary (of at
// most the length asked for) stands in their place.
func compactPromise(b agent.ContextBreakdown) string {
	tok := agent.FormatTokens
	switch {
	case b.CompactMessages == 0:
		return "\n  /compact would free nothing yet: the conversation is empty"
	case b.Compactable <= 0:
		return fmt.Sprintf("\n  /compact would free nothing: a summary would be as long as the %s it replaces (%s tokens)",
			plural.Count(b.CompactMessages, "message"), tok(b.CompactTokens))
	}
	return fmt.Sprintf("\n  /compact would free about %s tokens: %s (%s) become a summary of up to %s",
		tok(b.Compactable), plural.Count(b.CompactMessages, "message"), tok(b.CompactTokens), tok(b.SummaryTokens))
}

// windowFromText says where a window came from in words.
func windowFromText(from string) string {
	switch from {
	case "config":
		return "config (context_window)"
	case "server":
		return "the server"
	case "catalog":
		return "the catalog of hosted models"
	case agent.WindowFromOverflow:
		return "the server's overflow error"
	}
	return from
}
