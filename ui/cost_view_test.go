package ui

import (
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/ui/cells"
)

// costLines are the rows of /cost on screen: from its title to the
// session total.
func costLines(t *testing.T, screen string) []string {
	t.Helper()
	lines := strings.Split(ansi.Strip(screen), "\n")
	start, end := -1, -1
	for i, l := range lines {
		if strings.Contains(l, "Tokens") && start < 0 {
			start = i
		}
		if strings.Contains(l, "session total") {
			end = i
		}
	}
	if start < 0 || end < start {
		t.Fatalf("no /cost table on screen:\n%s", ansi.Strip(screen))
	}
	return lines[start+1 : end+1]
}

// TestCostTable: /cost has a row for the main agent as well as each
// child and the total, priced or not, and its figures stand in
// right-aligned columns under their headings, at 80 and 120 columns, with
// a long description cut rather than pushing the figures out.
func TestCostTable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		width  int
		priced bool
	}{{"priced 80", 80, true}, {"priced 120", 120, true}, {"unpriced 80", 80, false}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.width, 40)
			if tc.priced {
				h.m.cost, h.m.rt.cost = testPrice, testPrice
			}
			_, kids := withPanes(h)
			long := childSrc("c4", "call_task", "general-purpose", "a description far too long to sit beside its figures in eighty columns of terminal")
			h.events(
				agent.ChildStarted{Source: long, Model: "big"},
				agent.UsageReported{Source: kids[0], Usage: agent.Usage{InputTokens: 1200, OutputTokens: 300}},
				agent.UsageReported{Source: long, Usage: agent.Usage{InputTokens: 45_000, OutputTokens: 9}},
				agent.UsageReported{Source: mainSrc(), Usage: agent.Usage{InputTokens: 800, OutputTokens: 100}},
			)
			h.typeText("/cost")
			h.key(tea.KeyEnter)
			rows := costLines(t, h.m.View())
			if !strings.Contains(rows[1], "main agent") || !strings.Contains(rows[1], "800") || !strings.Contains(rows[1], "100") {
				t.Errorf("the first row is not the main agent's 800 / 100:\n%s", strings.Join(rows, "\n"))
			}
			if !strings.Contains(rows[len(rows)-1], "47k") {
				t.Errorf("the total is not 47k in:\n%s", strings.Join(rows, "\n"))
			}
			// Every row ends at the same cell, and each figure column
			// (the heading's and the rows') ends where the heading's does.
			heads := regexp.MustCompile(`\S+`).FindAllStringIndex(rows[0], -1)
			for _, r := range rows[1:] {
				r = strings.TrimRight(r, " ")
				if cells.Width(r) != cells.Width(strings.TrimRight(rows[0], " ")) {
					t.Errorf("row %q ends at %d, the heading at %d:\n%s", r, cells.Width(r), cells.Width(rows[0]), strings.Join(rows, "\n"))
				}
				rs := []rune(r) // the heading is ASCII: its byte offsets are cells
				for _, hd := range heads {
					if end := hd[1]; end > len(rs) || rs[end-1] == ' ' || (end < len(rs) && rs[end] != ' ') {
						t.Errorf("row %q has no figure ending under the heading ending at %d", r, end)
					}
				}
				if w := cells.Width(r); w > tc.width-2 {
					t.Errorf("row %q is %d cells wide at %d columns", r, w, tc.width)
				}
			}
			if tc.priced && !strings.Contains(ansi.Strip(h.m.View()), "no price for big") {
				t.Errorf("the unpriced child's model is not named:\n%s", ansi.Strip(h.m.View()))
			}
		})
	}
}
