package cells

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// TestFastRunesMeasureAsClusters holds fastRune (and its joiningRunes
// table) to its promise: every rune it lets Width and StyledWidth count
// alone measures the same as Lip Gloss's grapheme clusters do, whatever
// its neighbours: a base before it, a letter after it, itself again, or
// the Hangul jamo and syllables that join.
func TestFastRunesMeasureAsClusters(t *testing.T) {
	for r := rune(0xa0); r < 0x10000; r++ {
		if !utf8.ValidRune(r) || !fastRune(r) {
			continue
		}
		s := string(r)
		for _, text := range []string{s, "a" + s, s + "a", s + " ", s + s, "x" + s + s, "\u1100" + s, "가" + s} {
			if w, want := Width(text), ansi.StringWidth(text); w != want {
				t.Fatalf("%U: Width(%q) = %d, as a cluster %d: add its block to joiningRunes", r, text, w, want)
			}
		}
	}
}

// TestCleanTextPadsExactly checks every rune: once cleaned, padding it makes a line exactly as wide as
// asked, so no rune can join the padding into its cell (a prepended mark
// would) and the width helpers agree on it.
func TestCleanTextPadsExactly(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		for _, l := range strings.Split(Clean(string(r)), "\n") {
			if got := Width(Pad(l, 3)); got != 3 {
				t.Fatalf("%U: Pad(%q, 3) is %d cells", r, l, got)
			}
			if a, b := Width(l), StyledWidth(l); a != b {
				t.Fatalf("%U: Width(%q) = %d, StyledWidth = %d", r, l, a, b)
			}
		}
	}
}

func TestCleanReplacesPrependedMarks(t *testing.T) {
	if got := Clean("\u0600 42 \u06dd"); got != "\ufffd 42 \ufffd" {
		t.Errorf("Clean = %q, want the prepended marks replaced", got)
	}
	if got := Clean("سلام"); got != "سلام" {
		t.Errorf("Clean changed plain Arabic: %q", got)
	}
}
