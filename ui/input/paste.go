package input

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// This file holds the input's pasted text: a long paste shows as one
// "[pasted 120 lines]" marker, and the whole text is what is sent. The
// expand key, or an edit that reaches into the marker, puts the text
// itself in the input.

// A paste longer than either bound collapses into a marker.
const (
	pasteMaxLines = 10
	pasteMaxBytes = 800
)

// paste is one collapsed paste: its marker in the input and its text.
type paste struct {
	marker string
	text   string
}

// collapses reports whether a paste of text shows as a marker.
func collapses(text string) bool {
	return strings.Count(text, "\n")+1 > pasteMaxLines || len(text) > pasteMaxBytes
}

// pasteMarker is the marker of text; n > 1 tells it from earlier pastes
// of the same size.
func pasteMarker(text string, n int) string {
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	what := fmt.Sprintf("%d lines", lines)
	if lines == 1 {
		what = fmt.Sprintf("%d chars", len([]rune(text)))
	}
	if n > 1 {
		return fmt.Sprintf("[pasted %s #%d]", what, n)
	}
	return "[pasted " + what + "]"
}

// isPaste reports whether k is pasted text rather than a typed key.
func isPaste(k tea.KeyMsg) bool { return k.Paste && k.Type == tea.KeyRunes }

// pastedText is a paste's text with its line ends as "\n" (terminals
// send "\r").
func pastedText(k tea.KeyMsg) string {
	text := strings.ReplaceAll(string(k.Runes), "\r\n", "\n")
	return strings.ReplaceAll(text, "\r", "\n")
}

// insertPaste puts a long paste into the input as a marker.
func (m *Model) insertPaste(text string) {
	marker := pasteMarker(text, 1)
	for n := 2; strings.Contains(m.ta.Value(), marker) || m.hasMarker(marker); n++ {
		marker = pasteMarker(text, n)
	}
	m.pastes = append(m.pastes, paste{marker: marker, text: text})
	m.ta.InsertString(marker)
}

func (m *Model) hasMarker(marker string) bool {
	for _, p := range m.pastes {
		if p.marker == marker {
			return true
		}
	}
	return false
}

// HasPastes reports whether the input holds a collapsed paste.
func (m *Model) HasPastes() bool { return len(m.pastes) > 0 }

// expandAll replaces every marker with its text.
func (m *Model) expandAll(v string) string {
	for _, p := range m.pastes {
		v = strings.Replace(v, p.marker, p.text, 1)
	}
	return v
}

// ExpandPastes puts the pasted texts themselves into the input.
func (m *Model) ExpandPastes() {
	if len(m.pastes) == 0 {
		return
	}
	v := m.expandAll(m.ta.Value())
	m.pastes = nil
	m.ta.SetValue(v)
	m.fitHeight()
}

// guardPastes runs after an edit that changed the text from before: a
// marker the edit reached into (changed without removing it whole)
// expands instead, so no key edits a marker into garbage; a marker removed
// whole takes its paste with it.
func (m *Model) guardPastes(before string) {
	if len(m.pastes) == 0 {
		return
	}
	after := m.ta.Value()
	if after == before {
		return
	}
	var kept []paste
	var broken *paste
	for _, p := range m.pastes {
		switch {
		case strings.Contains(after, p.marker):
			kept = append(kept, p)
		case broken == nil && strings.Contains(before, p.marker) && len(before)-len(after) < len(p.marker):
			// Fewer bytes went than the marker has: the edit reached
			// into it. The others stay as they were before the edit.
			broken = &p
		}
	}
	if broken == nil {
		m.pastes = kept
		return
	}
	kept = kept[:0]
	for _, p := range m.pastes {
		if p.marker != broken.marker && strings.Contains(before, p.marker) {
			kept = append(kept, p)
		}
	}
	m.pastes = kept
	m.ta.SetValue(strings.Replace(before, broken.marker, broken.text, 1))
}

// TakeShown is how the transcript shows a message sent from the input:
// with its long pastes as markers, as it was in the input. It gives text
// itself for a message that held none.
func (m *Model) TakeShown(text string) string {
	if s, ok := m.shown[text]; ok {
		delete(m.shown, text)
		return s
	}
	return text
}
