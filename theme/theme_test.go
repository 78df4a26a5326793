package theme

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// TestPalettesIn256Colours: in 256 colours (tmux without COLORTERM) each
// colour is the one chosen for it, not the nearest the library finds: the
// dark bar's near-black went navy (17) and the added lines' green went
// loud (22). The diff lines of the dark palette take no background there.
func TestPalettesIn256Colours(t *testing.T) {
	prev := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(prev) })
	tests := map[string]struct {
		style      func(Styles) lipgloss.Style
		dark, want string
	}{
		"dark bar":        {func(s Styles) lipgloss.Style { return s.Status.Bar }, "dark", "48;5;235"},
		"dark added line": {func(s Styles) lipgloss.Style { return s.Diff.Added }, "dark", "38;5;114m"},
		"dark text":       {func(s Styles) lipgloss.Style { return s.App.Text }, "dark", "38;5;254"},
		"light bar":       {func(s Styles) lipgloss.Style { return s.Status.Bar }, "light", "48;5;255"},
		"light added":     {func(s Styles) lipgloss.Style { return s.Diff.Added }, "light", "48;5;194"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			th := New(Mode(tc.dark), true, false)
			out := tc.style(th.Styles).Render("x")
			if !strings.Contains(out, tc.want) {
				t.Errorf("rendered %q, want %q in it", out, tc.want)
			}
			for _, loud := range []string{"48;5;17m", "48;5;22m", "48;5;52m"} {
				if strings.Contains(out, loud) {
					t.Errorf("rendered %q: a loud background %q", out, loud)
				}
			}
		})
	}
}
