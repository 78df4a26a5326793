package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"covey/agent"
	"covey/theme"
)

// TestStatusBarView checks the bar's text, its exact width and its colours
// at widths that drop the workspace, the model, and cut the rest.
func TestStatusBarView(t *testing.T) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	th := theme.New(theme.ModeDark, true, false)
	s := newStatusBar(&th.Styles, "/work/project", "default")
	s.model = "gpt-x"
	s.usage = agent.Usage{InputTokens: 1200, OutputTokens: 34}
	s.running, s.started, s.now, s.frame = true, fixedNow, fixedNow.Add(2900*time.Millisecond), 0
	tests := map[string]struct {
		width int
		plain string
	}{
		"wide":              {80, " gpt-x · /work/project · default · ↑1.2k ↓34 · ⠋ 2.9s"},
		"workspace dropped": {50, " gpt-x · default · ↑1.2k ↓34 · ⠋ 2.9s"},
		"model dropped too": {34, " default · ↑1.2k ↓34 · ⠋ 2.9s"},
		"cut":               {20, " default · ↑1.2k ↓…"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s.width = tc.width
			got := s.View()
			if w := ansi.StringWidth(got); w != tc.width {
				t.Errorf("width %d, want %d", w, tc.width)
			}
			if p := strings.TrimRight(ansi.Strip(got), " "); p != tc.plain {
				t.Errorf("text %q, want %q", p, tc.plain)
			}
			if !strings.Contains(got, th.Styles.Status.Mode.Render("default")) {
				t.Errorf("the mode is not drawn in its style: %q", got)
			}
		})
	}
}
