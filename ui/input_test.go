package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/theme"
	"covey/ui/keys"
)

func newTestInput() inputModel {
	th := theme.New(theme.ModeDark, true, false)
	in := newInput(&th.Styles, keys.Default())
	in.SetSize(60)
	return in
}

func press(in inputModel, msgs ...tea.KeyMsg) inputModel {
	for _, k := range msgs {
		in, _ = in.Update(k)
	}
	return in
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	up   = tea.KeyMsg{Type: tea.KeyUp}
	down = tea.KeyMsg{Type: tea.KeyDown}
)

func TestInputHistory(t *testing.T) {
	in := newTestInput()
	for _, s := range []string{"one", "two", "two", "three"} {
		in = press(in, runes(s))
		in.Submit()
	}
	in = press(in, runes("draft"))
	steps := []struct {
		key  tea.KeyMsg
		want string
	}{
		{up, "three"},
		{up, "two"}, // a repeated message is kept once
		{up, "one"},
		{up, "one"}, // the oldest stays
		{down, "two"},
		{down, "three"},
		{down, "draft"}, // back to what was being typed
		{down, "draft"},
	}
	for i, s := range steps {
		in = press(in, s.key)
		if got := in.Value(); got != s.want {
			t.Fatalf("step %d: %q, want %q", i, got, s.want)
		}
	}
}

func TestInputMultiline(t *testing.T) {
	in := newTestInput()
	in = press(in, runes("first"), tea.KeyMsg{Type: tea.KeyEnter, Alt: true}, runes("second"),
		tea.KeyMsg{Type: tea.KeyCtrlJ}, runes("third"))
	if got := in.Value(); got != "first\nsecond\nthird" {
		t.Fatalf("value %q", got)
	}
	if h := in.ta.Height(); h != 3 {
		t.Errorf("height %d, want 3 for three lines", h)
	}
	t.Run("up inside the text moves the cursor, not the history", func(t *testing.T) {
		in.history = []string{"old"}
		in.hist = 1
		in = press(in, up)
		if in.Value() != "first\nsecond\nthird" {
			t.Errorf("history recalled from the middle of the text: %q", in.Value())
		}
	})
	t.Run("height stops growing", func(t *testing.T) {
		in = press(in, runes(strings.Repeat("x\n", 30)))
		if h := in.ta.Height(); h != maxInputLines {
			t.Errorf("height %d, want %d", h, maxInputLines)
		}
	})
}

func TestInputQueue(t *testing.T) {
	in := newTestInput()
	in.Enqueue("a\nsecond line")
	in.Enqueue("b")
	if !strings.Contains(in.View(), "queued: a") || in.Height() != 1+2+in.ta.Height() {
		t.Errorf("queue not shown:\n%s", in.View())
	}
	for _, want := range []string{"a\nsecond line", "b"} {
		if got, ok := in.Dequeue(); !ok || got != want {
			t.Errorf("Dequeue = %q, %v; want %q", got, ok, want)
		}
	}
	if _, ok := in.Dequeue(); ok {
		t.Error("Dequeue on an empty queue")
	}
	if got := in.Submit(); got != "" {
		t.Errorf("blank input submitted %q", got)
	}
}

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
