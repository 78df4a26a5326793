package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
)

// longCommands are slash commands whose names, arguments and descriptions
// are longer than the columns used to be.
var longCommands = []CustomCommand{
	{Name: "frontend:component-generator-with-tests", ArgumentHint: "<component-name> [--story]",
		Description: "generate a React component with its tests, a story and an index file, in the folder of the current feature"},
	{Name: "qa:triage", Description: "sort the open issues"},
}

// TestCompletionFitsLongEntries: the popup's descriptions start in one
// column whatever the names' lengths, a long path keeps its file name
// (cut at its start), and no line is wider than the screen.
func TestCompletionFitsLongEntries(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	deep := "internal/scripted/scriptedtest/fixtures/conversations/very_long_fixture_name_test.go"
	for _, w := range []int{40, 80, 200} {
		c := newCompletion(withCustom(defaultCommands(keys.Default()), longCommands), keys.Default(), &th.Styles)
		c.SetSize(w)
		c.Filter("/qa")
		one := ansi.Strip(c.View())
		if !strings.Contains(one, "/qa:triage sort the open issues") {
			t.Errorf("%d: a short name is padded far from its description: %q", w, one)
		}
		// Both custom commands: their descriptions start in one column.
		both := newCompletion(withCustom(nil, longCommands), keys.Default(), &th.Styles)
		both.SetSize(w)
		both.Filter("/")
		lines := strings.Split(ansi.Strip(both.View()), "\n")
		if len(lines) != 2 {
			t.Fatalf("%d: want 2 rows:\n%s", w, strings.Join(lines, "\n"))
		}
		a, b := cellIndex(lines[0], "generate a"), cellIndex(lines[1], "sort the")
		if a < 0 || a != b {
			t.Errorf("%d: descriptions start at %d and %d:\n%s", w, a, b, strings.Join(lines, "\n"))
		}
		for _, l := range lines {
			if cells.Width(l) > w {
				t.Errorf("%d: line wider than the screen: %q", w, l)
			}
		}
		c.SetFiles([]string{deep, "docs/"}, nil, time.Now())
		c.Filter("@very_long")
		got := ansi.Strip(c.View())
		if !strings.Contains(got, "very_long_fixture_name_test.go") {
			t.Errorf("%d: the file name of a long path is cut:\n%s", w, got)
		}
		for _, l := range strings.Split(got, "\n") {
			if cells.Width(l) > w {
				t.Errorf("%d: line wider than the screen: %q", w, l)
			}
		}
	}
}

// TestHelpColumnsFit: /help's descriptions start in one column and wrap
// under it; a name too wide for the column has its description below it;
// no line is wider than the screen.
func TestHelpColumnsFit(t *testing.T) {
	for _, w := range []int{60, 80, 200} {
		h := newHarness(t, w, 200)
		h.m.cmds = withCustom(h.m.cmds, longCommands)
		h.m.comp = newCompletion(h.m.cmds, *h.m.keys, h.m.styles)
		h.typeText("/help")
		h.key(tea.KeyEnter)
		var rows []string
		in := false
		for _, l := range h.screenLines() {
			if strings.Contains(l, "Commands") {
				in = true
				continue
			}
			if in && strings.HasPrefix(l, "    ") {
				rows = append(rows, l)
			}
			if cells.Width(l) > w {
				t.Errorf("%d: line wider than the screen: %q", w, l)
			}
		}
		text := strings.Join(rows, "\n")
		col := -1
		for _, r := range rows {
			if i := cellIndex(r, "show keys and commands"); i >= 0 {
				col = i
			}
		}
		if col < 0 {
			t.Fatalf("%d: /help lists no /help:\n%s", w, text)
		}
		for _, want := range []string{"sort the open issues", "generate a React", "tests, a story"} {
			found := false
			for _, r := range rows {
				if i := cellIndex(r, want); i >= 0 {
					found = true
					if i != col && !(want == "tests, a story" && i >= col) {
						t.Errorf("%d: %q starts at column %d, the others at %d:\n%s", w, want, i, col, text)
					}
				}
			}
			if !found && w < 200 {
				t.Errorf("%d: %q not found:\n%s", w, want, text)
			}
		}
		// Wrapped description lines stay in the column.
		for _, r := range rows {
			if strings.TrimSpace(r[:min(col, len(r))]) == "" && len(r) > col && r[col] == ' ' {
				t.Errorf("%d: a wrapped line leaves the column: %q", w, r)
			}
		}
	}
}

// cellIndex is the cell column where sub starts in s, or -1.
func cellIndex(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return -1
	}
	return cells.Width(s[:i])
}
