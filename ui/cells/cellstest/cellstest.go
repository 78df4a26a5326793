// Package cellstest holds the width checks the screen's packages share in
// their tests; only tests import it.
package cellstest

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// CheckWidth fails the test when a line is wider than width cells.
func CheckWidth(t testing.TB, lines []string, width int) {
	t.Helper()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, width, l)
		}
	}
}

// ASCII makes Lip Gloss draw plain text (no colours or attributes) until
// the test ends, so what a test compares is text.
func ASCII(t testing.TB) {
	t.Helper()
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.Ascii)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
}

// Plain is lines without escape codes and trailing spaces: what a reader
// sees of them.
func Plain(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return out
}
