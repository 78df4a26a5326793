package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
	"covey/ui/keys"
)

var testFiles = []string{
	"README.md", "go.mod", "main.go",
	"src/main.go", "src/main_test.go", "src/util/strings.go",
	"docs/ui.md", "internal/scripted/server.go",
}

// TestPathIndexMatch: paths that start with what is typed come first, then
// those with a name or folder that does, then substrings, then fuzzy
// matches; folders are entries of their own; nothing typed lists the top
// level.
func TestPathIndexMatch(t *testing.T) {
	x := newPathIndex(testFiles, time.Now())
	tests := map[string]struct {
		typed string
		want  []string // the first matches, in order
		none  []string // never among the matches
	}{
		"prefix first":         {typed: "src/ma", want: []string{"src/main.go", "src/main_test.go"}, none: []string{"main.go"}},
		"a name's prefix":      {typed: "strings", want: []string{"src/util/strings.go"}},
		"folders too":          {typed: "src/u", want: []string{"src/util/", "src/util/strings.go"}},
		"prefix before a name": {typed: "main", want: []string{"main.go", "src/main.go"}},
		"substring":            {typed: "cripted", want: []string{"internal/scripted/", "internal/scripted/server.go"}},
		"fuzzy last":           {typed: "isv", want: []string{"internal/scripted/server.go"}, none: []string{"src/util/strings.go"}},
		"case is ignored":      {typed: "readme", want: []string{"README.md"}},
		"nothing matches":      {typed: "zzz", none: testFiles},
		"the top level":        {typed: "", want: []string{"README.md", "docs/", "go.mod", "internal/", "main.go", "src/"}, none: []string{"src/main.go"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := x.Match(strings.ToLower(tc.typed))
			if len(got) < len(tc.want) {
				t.Fatalf("Match(%q) = %q, want it to start %q", tc.typed, got, tc.want)
			}
			for i, w := range tc.want {
				if got[i] != w {
					t.Fatalf("Match(%q) = %q, want it to start %q", tc.typed, got, tc.want)
				}
			}
			for _, n := range tc.none {
				for _, g := range got {
					if g == n {
						t.Errorf("Match(%q) holds %q: %q", tc.typed, n, got)
					}
				}
			}
		})
	}
}

// TestPathIndexBounds: a huge listing is cut to maxListedFiles, and a
// match returns at most maxPathMatches paths.
func TestPathIndexBounds(t *testing.T) {
	files := make([]string, maxListedFiles+500)
	for i := range files {
		files[i] = fmt.Sprintf("f/%07d.go", i)
	}
	x := newPathIndex(files, time.Now())
	if n := len(x.paths); n != maxListedFiles+1 { // the files kept, and f/
		t.Errorf("%d paths kept", n)
	}
	if n := len(x.Match("go")); n != maxPathMatches {
		t.Errorf("%d matches, want %d", n, maxPathMatches)
	}
}

func BenchmarkPathIndexMatch(b *testing.B) {
	files := make([]string, 0, 50_000)
	for i := range 50_000 {
		files = append(files, fmt.Sprintf("pkg%03d/sub%02d/file_%05d.go", i%500, i%37, i))
	}
	x := newPathIndex(files, time.Now())
	b.ResetTimer()
	for range b.N {
		x.Match("pkg42/fil")
	}
}

// TestCompletionAt: after "@" the popup lists agent types first (only for
// a word that starts the input), then paths; completing keeps the text
// before the word; a file is followed by a space, a folder is not.
func TestCompletionAt(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	c := newCompletion(nil, keys.Default(), &th.Styles)
	c.agents = agentEntries([]AgentInfo{{Name: "Explore"}, {Name: "Plan"}})
	c.files = newPathIndex([]string{"explain.md", "src/main.go"}, time.Now())
	names := func() []string {
		var out []string
		for _, m := range c.matches {
			out = append(out, m.name)
		}
		return out
	}
	tests := map[string]struct {
		value, want, completed string
	}{
		"types first":         {value: "@exp", want: "Explore explain.md", completed: "@Explore "},
		"a path mid-text":     {value: "look at @exp", want: "explain.md", completed: "look at @explain.md "},
		"a folder goes on":    {value: "see @sr", want: "src/ src/main.go", completed: "see @src/"},
		"a path with a slash": {value: "@src/m", want: "src/main.go", completed: "@src/main.go "},
		"a finished word":     {value: "@src/main.go and", want: ""},
		"a command still":     {value: "/he", want: ""},
		"an @ inside a word":  {value: "mail@exp", want: ""},
		"a line of its own":   {value: "first\n@sr", want: "src/ src/main.go", completed: "first\n@src/"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c.Filter(tc.value)
			_, _, at := atWord(tc.value)
			if c.wantsFiles(time.Now().Add(time.Hour)) != at {
				t.Errorf("wants a listing: %v, want %v", !at, at)
			}
			if got := strings.Join(names(), " "); got != tc.want {
				t.Fatalf("matches %q, want %q", got, tc.want)
			}
			if tc.completed != "" {
				if got, _ := c.Complete(tc.value); got != tc.completed {
					t.Errorf("completed %q, want %q", got, tc.completed)
				}
			}
		})
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

// TestShellModeHintSaysRun: in "!" mode the key bar says what enter does
// there (runs the command), not "send"; out of it, "send" again.
func TestShellModeHintSaysRun(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := newHarness(t, size[0], size[1])
		h.typeText("!")
		if !h.screenContains("enter run command") || h.screenContains("enter send") {
			t.Errorf("%dx%d: the shell mode's hint:\n%s", size[0], size[1], ansi.Strip(h.m.View()))
		}
		h.key(tea.KeyBackspace)
		if !h.screenContains("enter send") || h.screenContains("enter run command") {
			t.Errorf("%dx%d: out of shell mode, the hint:\n%s", size[0], size[1], ansi.Strip(h.m.View()))
		}
	}
}

func TestShellCommand(t *testing.T) {
	tests := map[string]struct {
		cmd string
		ok  bool
	}{
		"!ls":       {"ls", true},
		"! git st ": {"git st", true},
		"!":         {"", true},
		"ls":        {"", false},
		"say !ls":   {"", false},
	}
	for text, tc := range tests {
		if cmd, ok := shellCommand(text); cmd != tc.cmd || ok != tc.ok {
			t.Errorf("shellCommand(%q) = %q, %v", text, cmd, ok)
		}
	}
}

// TestCompletionAtView: the popup after "@" at the start of the input:
// agent types, then paths, folders marked; at both sizes.
func TestCompletionAtView(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	c := newCompletion(nil, keys.Default(), &th.Styles)
	c.agents = agentEntries([]AgentInfo{{Name: "Explore", Description: "fast read-only search of the codebase"}})
	c.files = newPathIndex(append([]string{"exp/lib.go", "docs/explain.md"}, testFiles...), time.Now())
	c.Filter("@exp")
	for _, w := range []int{80, 200} {
		c.SetSize(w)
		checkGolden(t, fmt.Sprintf("%d", w), ansi.Strip(c.View())+"\n")
	}
}
