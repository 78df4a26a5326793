package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/ui/cells"
	"covey/ui/transcript"
)

// costRow is one agent's line of /cost: who, and what it spent.
type costRow struct {
	label   string
	in, out string
	cost    string // "" without a price table
}

// cmdCost shows the tokens (and, with a price table, the cost) of the
// main agent, each subagent and the session, one row each, the figures in
// right-aligned columns.
func (m *Model) cmdCost(string) tea.Cmd {
	priced := m.cost != nil
	price := func(v float64, ok bool) string {
		switch {
		case !priced:
			return ""
		case !ok:
			return "no price"
		}
		return transcript.Dollars(v)
	}
	main := m.rt.usage
	var rows []costRow
	var unpriced []string
	total := m.rt.mainCost
	for _, c := range m.rt.order {
		main.InputTokens -= c.Usage().InputTokens
		main.OutputTokens -= c.Usage().OutputTokens
	}
	rows = append(rows, costRow{label: "main agent", in: agent.FormatTokens(max(main.InputTokens, 0)),
		out: agent.FormatTokens(max(main.OutputTokens, 0)), cost: price(m.rt.mainCost, true)})
	for _, c := range m.rt.tree() {
		if c.IsShell() {
			continue // a background shell spends no tokens
		}
		label := strings.Repeat("  ", max(c.Depth()-1, 0)) + c.Name() + " [" + c.TypeName() + "] " + cells.OneLine(c.Description())
		if c.Running() {
			label += " (" + c.StateName() + ")"
		}
		u := c.Usage()
		v, ok := c.Cost()
		if ok {
			total += v
		} else if priced {
			unpriced = append(unpriced, cells.OneLine(c.Model()))
		}
		rows = append(rows, costRow{label: label, in: agent.FormatTokens(u.InputTokens), out: agent.FormatTokens(u.OutputTokens), cost: price(v, ok)})
	}
	u := m.rt.usage
	rows = append(rows, costRow{label: "session total", in: agent.FormatTokens(u.InputTokens), out: agent.FormatTokens(u.OutputTokens), cost: price(total, true)})
	var b strings.Builder
	b.WriteString(costTable(rows, max(m.width-6, 40))) // the notice indents 4 cells; 2 spare
	if u.CachedTokens > 0 || u.CacheWriteTokens > 0 {
		b.WriteString("\n  input cache: " + agent.FormatTokens(u.CachedTokens) + " read, " + agent.FormatTokens(u.CacheWriteTokens) + " written")
	}
	switch {
	case !priced:
		b.WriteString("\n  (no price table: add prices: to the config for costs)")
	case len(unpriced) > 0:
		b.WriteString("\n  (no price for " + strings.Join(dedupe(unpriced), ", ") + ": not in the total)")
	}
	m.notice(transcript.NoticeInfo, b.String())
	return nil
}

// costTable lays rows out in width cells: a heading, then each row's label
// (cut to what the columns leave) and its figures right-aligned under
// "in", "out" and, when priced, "cost".
func costTable(rows []costRow, width int) string {
	heads := []string{"in", "out", "cost"}
	cols := 2
	if len(rows) > 0 && rows[0].cost != "" {
		cols = 3
	}
	widths := make([]int, cols)
	labelW := 0
	for _, r := range rows {
		for i, f := range r.figures()[:cols] {
			widths[i] = max(widths[i], cells.Width(f), cells.Width(heads[i]))
		}
		labelW = max(labelW, cells.Width(r.label))
	}
	figures := 0
	for _, w := range widths {
		figures += 2 + w
	}
	// Two cells of indent before the label.
	labelW = max(min(labelW, width-2-figures), 8)
	line := func(label string, fs []string) string {
		var s strings.Builder
		s.WriteString("\n  ")
		s.WriteString(cells.Pad(cells.Fit(label, labelW), labelW))
		for i, f := range fs[:cols] {
			s.WriteString("  ")
			s.WriteString(strings.Repeat(" ", widths[i]-cells.Width(f)) + f)
		}
		return strings.TrimRight(s.String(), " ")
	}
	title := "Tokens"
	if cols == 3 {
		title = "Tokens and cost"
	}
	var b strings.Builder
	b.WriteString(title)
	b.WriteString(line("", heads))
	for _, r := range rows {
		b.WriteString(line(r.label, r.figures()))
	}
	return b.String()
}

// figures are the row's columns: in, out, cost.
func (r costRow) figures() []string { return []string{r.in, r.out, r.cost} }

// dedupe keeps the first of each string, in order.
func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
