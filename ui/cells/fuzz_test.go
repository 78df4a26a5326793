package cells

import (
	"strings"
	"testing"

	"covey/ui/cells/cellstest"
)

// FuzzWidths holds the helpers to their promise: whatever the text, no line
// they return is wider than asked, Pad is exactly as wide, and the width
// helpers agree with each other.
func FuzzWidths(f *testing.F) {
	f.Add("hello big world", 9)
	f.Add("\t\r\n\x1b[1mbold\x1b[0m\u009b", 3)
	f.Add(strings.Repeat("日本語 ", 20), 5)
	f.Add("emoji 👍🏽 and a joiner 👨‍👩‍👧 \xe8\xaa", 2)
	f.Add("\u0600", 67) // a prepended mark joins the padding after it
	f.Add("ᄀ가 का", 4)   // jamo and a spacing vowel sign join their neighbours
	f.Fuzz(func(t *testing.T, text string, width int) {
		if width < 0 {
			width = -width
		}
		width = 1 + width%120
		cellstest.CheckWidth(t, Wrap(text, width), width)
		clean := Clean(text)
		cellstest.CheckWidth(t, []string{Fit(clean, width)}, width)
		for _, l := range strings.Split(clean, "\n") {
			if got := Width(Pad(l, width)); got != width {
				t.Fatalf("Pad(%q, %d) is %d cells", l, width, got)
			}
			if a, b := Width(l), StyledWidth(l); a != b {
				t.Fatalf("Width(%q) = %d, StyledWidth = %d", l, a, b)
			}
		}
	})
}
