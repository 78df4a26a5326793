package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/ui/cells"
	"covey/ui/screens"
)

// TestHelpScreen: /help is a screen, not a notice: at 80x24 the root's
// help text starts on screen (the title and the first heading), no line
// passes the width, the root's help ends with the last command, and q or
// esc closes it with nothing left in the transcript. The screen's own
// scrolling is tested in ui/screens (TestHelpScrolls).
func TestHelpScreen(t *testing.T) {
	for _, closeKey := range []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("q")}, {Type: tea.KeyEsc}} {
		h := newHarness(t, 80, 24)
		blocks := h.m.tr.Len()
		h.typeText("/help")
		h.key(tea.KeyEnter)
		if _, ok := h.m.scr.(*screens.Help); !ok {
			t.Fatalf("/help opened no help screen:\n%s", strings.Join(h.screenLines(), "\n"))
		}
		lines := h.screenLines()
		if len(lines) > 24 {
			t.Errorf("%d lines at 24 rows", len(lines))
		}
		if !strings.HasPrefix(lines[0], "covey help · lines 1–") || strings.TrimSpace(lines[1]) != "Keys" {
			t.Errorf("the help's start is not at the top:\n%s", strings.Join(lines, "\n"))
		}
		for _, l := range lines {
			if cells.Width(l) > 80 {
				t.Errorf("line wider than 80: %q", l)
			}
		}
		if h.screenContains("leave covey") {
			t.Errorf("the help's end shows on its first page: not scrolled?\n%s", strings.Join(lines, "\n"))
		}
		h.send(tea.KeyMsg{Type: tea.KeyEnd})
		if !h.screenContains("leave covey") {
			t.Errorf("end does not show the last command:\n%s", strings.Join(h.screenLines(), "\n"))
		}
		h.send(closeKey)
		if h.m.scr != nil || h.screenContains("covey help") {
			t.Errorf("%s did not close the help:\n%s", closeKey, strings.Join(h.screenLines(), "\n"))
		}
		if h.m.tr.Len() != blocks {
			t.Errorf("/help left %d blocks in the transcript", h.m.tr.Len()-blocks)
		}
	}
}
