package status

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"covey/agent"
	"covey/theme"
	"covey/ui/transcript"
)

var fixedNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// TestStatusBarView checks the bar's text, its exact width and its colours
// at widths that drop the workspace, the model, and cut the rest.
func TestStatusBarView(t *testing.T) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	th := theme.New(theme.ModeDark, true, false)
	s := New(&th.Styles, "/work/project", "default")
	s.model = "gpt-x"
	s.usage = agent.Usage{InputTokens: 1200, OutputTokens: 34}
	s.SetContext(5200, 8192)
	s.running, s.started, s.now, s.frame = true, fixedNow, fixedNow.Add(2900*time.Millisecond), 0
	tests := map[string]struct {
		width int
		plain string
	}{
		"wide":              {80, " gpt-x · /work/project · default · ctx 63% · ⠋ 2.9s"},
		"workspace dropped": {45, " gpt-x · default · ctx 63% · ⠋ 2.9s"},
		"model dropped too": {34, " default · ctx 63% · ⠋ 2.9s"},
		"cut":               {20, " default · ctx 63%…"},
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

// TestContextGauge checks the gauge's words: a share of a known window, the
// tokens of an unknown one, a warning from ctxWarn percent.
func TestContextGauge(t *testing.T) {
	tests := map[string]struct {
		tokens, window int
		want           string
		warn           bool
	}{
		"nothing yet":    {0, 0, "", false},
		"unknown window": {5200, 0, "ctx 5.2k", false},
		"known window":   {5200, 8192, "ctx 63%", false},
		"near full":      {7000, 8192, "ctx 85%", true},
		"over":           {9000, 8192, "ctx 109%", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, warn := transcript.ContextGauge(tc.tokens, tc.window)
			if got != tc.want || warn != tc.warn {
				t.Errorf("contextGauge(%d, %d) = %q, %v; want %q, %v", tc.tokens, tc.window, got, warn, tc.want, tc.warn)
			}
		})
	}
}

func TestStatusBarDiagnostics(t *testing.T) {
	tests := map[string]struct {
		errs, warns int
		want        string // "" when the bar must say nothing of them
	}{
		"none":             {0, 0, ""},
		"one error":        {1, 0, "1 error"},
		"errors, warnings": {3, 2, "3 errors, 2 warnings"},
		"a warning alone":  {0, 1, "1 warning"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			b := New(nil, "/w", "default")
			b.SetSize(120)
			b.SetModel("m")
			b.SetDiagnostics(tt.errs, tt.warns)
			v := ansi.Strip(b.View())
			if tt.want == "" {
				if strings.Contains(v, "error") || strings.Contains(v, "warning") {
					t.Errorf("bar %q", v)
				}
				return
			}
			if !strings.Contains(v, tt.want) {
				t.Errorf("bar %q lacks %q", v, tt.want)
			}
		})
	}
}
