package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// TestFastTypingIsText: characters that arrive in one read (typed faster
// than covey read them, or pasted without bracketed paste) are text, even
// when they spell a key's name: "follow up" must not recall the history
// with the up key, nor "?" open help inside a word.
func TestFastTypingIsText(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("earlier")
	h.key(tea.KeyEnter)
	for _, chunk := range []string{"follow ", "up", " and ", "down", " ?"} {
		h.send(runes(chunk))
	}
	if got := h.m.input.Value(); got != "follow up and down ?" {
		t.Errorf("input = %q, want the text as typed", got)
	}
	if h.m.fullHelp {
		t.Error("a ? inside typed text opened the help")
	}
}
