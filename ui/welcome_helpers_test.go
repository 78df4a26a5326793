package ui

import (
	"strings"
	"testing"
	"time"

	"covey/theme"
	"covey/ui/cells/cellstest"
	"covey/ui/markdown"
	"covey/ui/transcript"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	xgolden "github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
)

// testNow is the fixed clock of the block tests here (the welcome card).
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// blockCtx is a render context with a fixed clock and frame and the ASCII
// colour profile, so renderings are stable text.
func blockCtx(t testing.TB, width int) transcript.RenderContext {
	t.Helper()
	lipgloss.SetColorProfile(termenv.Ascii)
	st := &theme.New(theme.ModeDark, true, false).Styles
	return transcript.RenderContext{Width: width, Now: testNow, Frame: 3, Styles: st, Markdown: markdown.NewRenderer("dark", st)}
}

// golden compares lines, escape codes stripped, with the test's golden
// file (-update rewrites it), after checking their width.
func golden(t *testing.T, lines []string, width int) {
	t.Helper()
	cellstest.CheckWidth(t, lines, width)
	xgolden.RequireEqual(t, ansi.Strip(strings.Join(lines, "\n"))+"\n")
}
