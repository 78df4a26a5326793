package screens

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/ui/cells"
)

// helpTestText is a help text of two sections, longer than a screen,
// whose last line is the last command.
func helpTestText() string {
	var sb strings.Builder
	sb.WriteString("Keys\n")
	for i := range 20 {
		fmt.Fprintf(&sb, "  ctrl+%c  does thing %d of the keys, a line long enough to be laid out in the column\n", 'a'+i, i)
	}
	sb.WriteString("Commands\n")
	for i := range 20 {
		fmt.Fprintf(&sb, "  /cmd%d  runs command %d\n", i, i)
	}
	sb.WriteString("  /quit  leave covey\n")
	return sb.String()
}

// TestHelpScrolls: at 80x23 (a 24-row terminal less the view bar) the
// help's start (the title and the first heading) is at the top, the page
// keys and the arrows scroll it to its end (the last command), no line
// passes the width, and q or esc asks to go back. (ui's TestHelpScreen
// opens and closes it through the root.)
func TestHelpScrolls(t *testing.T) {
	for _, closeKey := range []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("q")}, {Type: tea.KeyEsc}} {
		h := NewHelp(testStyles(), defaultKeys(), helpTestText())
		h.SetSize(80, 23)
		lines := func() []string { return strings.Split(ansi.Strip(h.View()), "\n") }
		contains := func(s string) bool { return strings.Contains(ansi.Strip(h.View()), s) }
		if got := len(lines()); got != 23 {
			t.Errorf("%d lines at 23 rows", got)
		}
		if l := lines(); !strings.HasPrefix(l[0], "covey help · lines 1–") || strings.TrimSpace(l[1]) != "Keys" {
			t.Errorf("the help's start is not at the top:\n%s", strings.Join(l, "\n"))
		}
		for _, l := range lines() {
			if cells.Width(l) > 80 {
				t.Errorf("line wider than 80: %q", l)
			}
		}
		if contains("leave covey") {
			t.Errorf("the help's end shows on its first page: not scrolled?\n%s", strings.Join(lines(), "\n"))
		}
		h.Update(tea.KeyMsg{Type: tea.KeyPgDown})
		if contains("covey help · lines 1–") {
			t.Errorf("pgdown did not scroll:\n%s", strings.Join(lines(), "\n"))
		}
		h.Update(tea.KeyMsg{Type: tea.KeyEnd})
		if !contains("leave covey") {
			t.Errorf("end does not show the last command:\n%s", strings.Join(lines(), "\n"))
		}
		h.Update(tea.KeyMsg{Type: tea.KeyHome})
		h.Update(tea.KeyMsg{Type: tea.KeyDown})
		if !contains("covey help · lines 2–") {
			t.Errorf("down after home does not show from line 2:\n%s", strings.Join(lines(), "\n"))
		}
		if a, _ := h.Update(closeKey); a != (Back{}) {
			t.Errorf("%s asked %#v, want Back", closeKey, a)
		}
	}
}
