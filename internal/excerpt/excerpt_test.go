package excerpt

import "testing"

func TestExcerpt(t *testing.T) {
	tests := map[string]struct {
		in              string
		n               int
		line, more, cut string
	}{
		"short":          {"hello", 10, "hello", "hello", "hello"},
		"lines":          {"first line\nsecond", 20, "first line", "first line …", "first line second"},
		"blank lead":     {"\n\n  padded \r\nrest", 20, "padded", "padded …", "padded rest"},
		"crlf only":      {"one\r\n", 20, "one", "one", "one"},
		"cut":            {"abcdefghij", 5, "abcdefghij", "abcdefghij", "abcd…"},
		"cut multibyte":  {"äöüßéèêë", 4, "äöüßéèêë", "äöüßéèêë", "äöü…"},
		"cut at a space": {"ab  cd ef", 4, "ab  cd ef", "ab  cd ef", "ab…"},
		"empty":          {"", 5, "", "", ""},
		"exact":          {"abcde", 5, "abcde", "abcde", "abcde"},
		"tabs and runs":  {" a\n\tb  c ", 10, "a", "a …", "a b c"},
		"zero width":     {"abc", 0, "abc", "abc", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line = %q, want %q", got, tc.line)
			}
			if got := LineMore(tc.in); got != tc.more {
				t.Errorf("LineMore = %q, want %q", got, tc.more)
			}
			if got := Cut(tc.in, tc.n); got != tc.cut {
				t.Errorf("Cut(%d) = %q, want %q", tc.n, got, tc.cut)
			}
		})
	}
}

// TestTermSafe checks what reaches a terminal: text, newlines and tabs, but
// no escape sequence that could hide the cursor, clear the screen, leave the
// alternate screen or set the title, and no other control character.
func TestTermSafe(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"plain":         {in: "fix the bug\n\tin main.go", want: "fix the bug\n\tin main.go"},
		"cursor hidden": {in: "a\x1b[?25lb", want: "ab"},
		"screen":        {in: "a\x1b[?1049l\x1b[2Jb", want: "ab"},
		"title":         {in: "a\x1b]0;PWNED\x07b", want: "ab"},
		"colour":        {in: "\x1b[31mred\x1b[0m", want: "red"},
		"controls":      {in: "a\rb\bc\x00d\x7f", want: "abcd"},
		"unicode":       {in: "naïve ✓ 日本", want: "naïve ✓ 日本"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := TermSafe(tc.in); got != tc.want {
				t.Errorf("TermSafe(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestClip: Clip keeps text as it is (indentation, newlines) and cuts by
// runes, never inside one.
func TestClip(t *testing.T) {
	for in, want := range map[string]string{
		"short":            "short",
		"\tindented  line": "\tindente…",
		"a\nb\nc d e f g":  "a\nb\nc d …",
		"äöüßéèêëx":        "äöüßéèêë…",
	} {
		if got := Clip(in, 8); got != want {
			t.Errorf("Clip(%q, 8) = %q, want %q", in, got, want)
		}
	}
}
