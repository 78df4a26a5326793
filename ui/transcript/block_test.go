package transcript

import (
	"strings"
	"testing"
	"time"

	xgolden "github.com/charmbracelet/x/exp/golden"

	"covey/agent"
	"covey/theme"
	"covey/ui/markdown"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// testNow is the fixed clock of block tests.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// blockCtx is a render context with fixed clock, frame and an ASCII colour
// profile, so renderings are stable text.
func blockCtx(t testing.TB, width int) RenderContext {
	t.Helper()
	lipgloss.SetColorProfile(termenv.Ascii)
	th := theme.New(theme.ModeDark, true, false)
	return RenderContext{
		Width:    width,
		Now:      testNow,
		Frame:    3,
		Styles:   &th.Styles,
		Markdown: markdown.NewRenderer("dark", &th.Styles),
	}
}

// checkWidth fails when a line is wider than width.
func checkWidth(t testing.TB, lines []string, width int) {
	t.Helper()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, width, l)
		}
	}
}

// golden compares lines with testdata/<test name>.golden (x/exp/golden;
// -update rewrites it). It also checks the width, which every golden case
// must respect.
func golden(t *testing.T, lines []string, width int) {
	t.Helper()
	checkWidth(t, lines, width)
	// Lip Gloss draws nothing but text under the ASCII profile; the
	// markdown renderer may still emit bold and reset codes, which are
	// stripped to keep the files readable.
	xgolden.RequireEqual(t, ansi.Strip(strings.Join(lines, "\n"))+"\n")
}

func TestFormatting(t *testing.T) {
	tokens := map[int]string{0: "0", 950: "950", 1000: "1k", 12_400: "12.4k", 124_000: "124k", 1_200_000: "1.2M", 3_000_000: "3M"}
	for n, want := range tokens {
		if got := agent.FormatTokens(n); got != want {
			t.Errorf("agent.FormatTokens(%d) = %q, want %q", n, got, want)
		}
	}
}
