package input

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/theme"
	"covey/ui/keys"
)

// testKeys are the root's default bindings of the input's keys.
func testKeys() Keys { return KeysOf(keys.Default()) }

func newTestInput() Model {
	th := theme.New(theme.ModeDark, true, false)
	in := New(&th.Styles, testKeys())
	in.SetSize(60)
	return in
}

func press(in Model, msgs ...tea.KeyMsg) Model {
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

func pasteKey(s string) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true}
}

var backspace = tea.KeyMsg{Type: tea.KeyBackspace}

// TestInputPasteCollapse: a long paste shows as a marker and is sent
// whole; a short one is text; the expand key and an edit into the marker
// put the text back; deleting the marker whole drops the paste.
func TestInputPasteCollapse(t *testing.T) {
	long := strings.Repeat("pasted line\n", 120)
	wide := strings.Repeat("x", pasteMaxBytes+1)
	tests := map[string]struct {
		keys      []tea.KeyMsg
		shown     string // the input's text
		submitted string
	}{
		"a long paste": {keys: []tea.KeyMsg{runes("see "), pasteKey(long), runes(" ok")},
			shown: "see [pasted 120 lines] ok", submitted: "see " + long + " ok"},
		"a wide paste": {keys: []tea.KeyMsg{pasteKey(wide)},
			shown: fmt.Sprintf("[pasted %d chars]", len(wide)), submitted: wide},
		"terminal line ends": {keys: []tea.KeyMsg{pasteKey(strings.ReplaceAll(long, "\n", "\r"))},
			shown: "[pasted 120 lines]", submitted: long},
		"a short paste is text": {keys: []tea.KeyMsg{pasteKey("a\nb")}, shown: "a\nb", submitted: "a\nb"},
		"two pastes": {keys: []tea.KeyMsg{pasteKey(long), runes(" "), pasteKey(long + "more\n")},
			shown: "[pasted 120 lines] [pasted 121 lines]", submitted: long + " " + long + "more\n"},
		"the same size twice": {keys: []tea.KeyMsg{pasteKey(long), pasteKey(long)},
			shown: "[pasted 120 lines][pasted 120 lines #2]", submitted: long + long},
		"the expand key": {keys: []tea.KeyMsg{pasteKey(long), {Type: tea.KeyCtrlX}},
			shown: long, submitted: long},
		"backspace into the marker": {keys: []tea.KeyMsg{runes("a "), pasteKey(long), backspace},
			shown: "a " + long, submitted: "a " + long},
		"typing after it": {keys: []tea.KeyMsg{pasteKey(long), runes("!")},
			shown: "[pasted 120 lines]!", submitted: long + "!"},
		"deleting the line": {keys: []tea.KeyMsg{runes("a "), pasteKey(long), {Type: tea.KeyCtrlU}, runes("b")},
			shown: "b", submitted: "b"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := press(newTestInput(), tc.keys...)
			if got := in.Value(); got != tc.shown {
				t.Errorf("shown %q, want %q", got, tc.shown)
			}
			got := in.Submit()
			if got != tc.submitted {
				t.Errorf("submitted %q, want %q", excerptFor(got), excerptFor(tc.submitted))
			}
			// The transcript shows the message as the input did.
			if shown := in.TakeShown(got); shown != tc.shown {
				t.Errorf("transcript shows %q, want %q", excerptFor(shown), excerptFor(tc.shown))
			}
			if in.HasPastes() {
				t.Error("pastes kept after Submit")
			}
		})
	}
}

func excerptFor(s string) string {
	if len(s) > 80 {
		return fmt.Sprintf("%s… (%d bytes)", s[:80], len(s))
	}
	return s
}

// TestInputShellMode: "!" at the start turns the input into a shell
// command, shown by the prompt glyph; backspace on an empty command leaves
// the mode; the submitted text keeps its "!".
func TestInputShellMode(t *testing.T) {
	in := press(newTestInput(), runes("!"))
	if !in.shell || in.ta.Prompt != promptShell || in.ta.Value() != "" || in.Value() != "!" {
		t.Fatalf("after \"!\": shell %v, prompt %q, text %q", in.shell, in.ta.Prompt, in.ta.Value())
	}
	if !strings.Contains(in.View(), "! shell command") {
		t.Errorf("the shell placeholder is missing:\n%s", in.View())
	}
	in = press(in, backspace)
	if in.shell || in.ta.Prompt != promptMessage || in.Value() != "" {
		t.Fatalf("backspace did not leave shell mode: prompt %q, value %q", in.ta.Prompt, in.Value())
	}
	if !strings.Contains(in.View(), "! shell") {
		t.Errorf("the placeholder does not say what ! does:\n%s", in.View())
	}
	in = press(in, runes("!ls -la"))
	if got := in.Submit(); got != "!ls -la" || in.shell {
		t.Errorf("submitted %q (shell mode after: %v)", got, in.shell)
	}
	// Recalled from the history, it is a shell command again.
	in = press(in, up)
	if !in.shell || in.ta.Value() != "ls -la" {
		t.Errorf("recalled: shell %v, text %q", in.shell, in.ta.Value())
	}
	// Addressed to a child, "!" is text.
	in.Reset()
	in.SetTarget("scout")
	in = press(in, runes("!hi"))
	if in.shell || in.Value() != "!hi" {
		t.Errorf("to a child: shell %v, value %q", in.shell, in.Value())
	}
}
