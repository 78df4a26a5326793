// Package cells measures, cuts, wraps and cleans text in terminal cells: the
// helpers every line on covey's screen goes through, so that no line is
// wider than the screen and no outside text moves the cursor.
package cells

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"covey/internal/excerpt"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// Fit cuts s to at most width cells, ending it with … when cut.
func Fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// tabWidth is how many spaces a tab becomes: terminals disagree about tab
// stops, and a tab's width must be known to keep lines inside the screen.
const tabWidth = 4

// Clean makes outside text (model output, tool output, arguments)
// safe to draw: escape sequences and other control characters would move
// the cursor or recolour the screen, invalid UTF-8 has no known width,
// carriage returns would jump to the line's start, and tabs have no known
// width either, so they become spaces. A prepended mark (an Arabic number
// sign, say) joins whatever follows it into its own cell, the padding
// after it too, so no width holds for it: it becomes U+FFFD.
func Clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansi.Strip(s)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(strings.Repeat(" ", tabWidth))
		case r == '\n':
			b.WriteRune(r)
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			// dropped: a control character draws nothing useful
		case r >= 0x600 && unicode.Is(prependRunes, r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsCleaning reports whether s holds anything Clean changes.
func needsCleaning(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r < 0xa0 || (r >= 0x600 && unicode.Is(prependRunes, r)) {
			return true // invalid UTF-8, a C1 control or a prepended mark
		}
		i += size
	}
	return false
}

// prependRunes are the runes that join the next one into their grapheme
// cluster (Unicode's Grapheme_Cluster_Break=Prepend, as of Unicode 15
// and 17 both: the width helpers' segmenter follows the newer).
var prependRunes = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x0600, Hi: 0x0605, Stride: 1},
		{Lo: 0x06dd, Hi: 0x070f, Stride: 0x070f - 0x06dd},
		{Lo: 0x0890, Hi: 0x0891, Stride: 1},
		{Lo: 0x08e2, Hi: 0x08e2, Stride: 1},
		{Lo: 0x0d4e, Hi: 0x0d4e, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x110bd, Hi: 0x110cd, Stride: 0x110cd - 0x110bd},
		{Lo: 0x111c2, Hi: 0x111c3, Stride: 1},
		{Lo: 0x113d1, Hi: 0x113d1, Stride: 1},
		{Lo: 0x1193f, Hi: 0x11941, Stride: 2},
		{Lo: 0x11a3a, Hi: 0x11a3a, Stride: 1},
		{Lo: 0x11a84, Hi: 0x11a89, Stride: 1},
		{Lo: 0x11d46, Hi: 0x11d46, Stride: 1},
		{Lo: 0x11f02, Hi: 0x11f02, Stride: 1},
	},
}

// Wrap wraps plain text to width cells, breaking words that do not fit
// on a line, and returns one entry per screen line.
func Wrap(s string, width int) []string {
	if width <= 0 {
		return nil
	}
	s = Clean(s)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = AppendWrapped(out, para, width)
	}
	return out
}

// AppendWrapped appends the screen lines of one line of text (no newline).
func AppendWrapped(out []string, line string, width int) []string {
	if fast, ok := wrapFast(out, line, width); ok {
		return fast
	}
	if ansi.StringWidth(line) <= width {
		return append(out, line)
	}
	for _, l := range strings.Split(ansi.Wrap(line, width, ""), "\n") {
		out = append(out, Fit(strings.TrimRight(l, " "), width))
	}
	return out
}

// fastRune reports whether r's width is the same rune by rune as by
// grapheme cluster, so wrapFast can measure it without segmentation: no
// controls or escapes, no emoji, joiners or variation selectors, and
// none of the scripts whose letters join into clusters (see joiningRunes).
func fastRune(r rune) bool {
	if r < 0x80 {
		return r >= 0x20 && r != 0x7f
	}
	return r >= 0xa0 && r < 0x10000 && r != 0x200d && (r < 0xfe00 || r > 0xfe0f) &&
		!unicode.Is(joiningRunes, r)
}

// joiningRunes are the blocks (below U+10000) where a rune's width can
// depend on its neighbours: Arabic's prepended marks, the spacing vowel
// signs of the Indic and Southeast Asian scripts, which a cluster draws
// in its base's cell, and Hangul jamo, which join into one syllable.
// Text with them is measured by grapheme cluster, as Lip Gloss does;
// TestFastRunesMeasureAsClusters holds this table to that.
var joiningRunes = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x0600, Hi: 0x0605, Stride: 1},
	{Lo: 0x06dd, Hi: 0x070f, Stride: 0x070f - 0x06dd},
	{Lo: 0x0890, Hi: 0x0897, Stride: 1},
	{Lo: 0x08e2, Hi: 0x08e2, Stride: 1},
	{Lo: 0x0900, Hi: 0x0fff, Stride: 1}, // Indic, Thai, Lao, Tibetan
	{Lo: 0x1000, Hi: 0x109f, Stride: 1}, // Myanmar
	{Lo: 0x1100, Hi: 0x11ff, Stride: 1}, // Hangul jamo
	{Lo: 0x1700, Hi: 0x1cff, Stride: 1}, // Philippine to Vedic
	{Lo: 0x302e, Hi: 0x302f, Stride: 1}, // Hangul tone marks
	{Lo: 0xa800, Hi: 0xabff, Stride: 1}, // Syloti Nagri to Meetei Mayek
	{Lo: 0xd7b0, Hi: 0xd7ff, Stride: 1}, // Hangul jamo extended B
	{Lo: 0xff9e, Hi: 0xff9f, Stride: 1}, // halfwidth voiced sound marks
}}

// RuneWidth is the cells rune r takes alone; ASCII needs no lookup.
func RuneWidth(r rune) int {
	if r < 0x7f {
		return 1
	}
	return runewidth.RuneWidth(r)
}

// wrapFast wraps text at spaces, breaking words longer than width, the
// way ansi.Wrap does but some twenty times faster: models stream long
// paragraphs and the unfinished one is re-wrapped on every token. It
// reports false, appending nothing, for text it cannot measure rune by
// rune (see fastRune); spaces at the edges of broken lines are dropped.
func wrapFast(out []string, line string, width int) ([]string, bool) {
	n0 := len(out)
	start, w := 0, 0
	space, spaceW := -1, 0 // the last space of the current line, and the width through it
	for i, r := range line {
		if !fastRune(r) {
			return out[:n0], false
		}
		if r == ' ' && i == start && len(out) > n0 {
			start = i + 1 // a broken line does not start with a space
			continue
		}
		rw := RuneWidth(r)
		if rw > width {
			return out[:n0], false // a rune wider than the line: let Fit cut it
		}
		if w+rw > width {
			switch {
			case r == ' ':
				out = appendPiece(out, line[start:i])
				start, w, space = i+1, 0, -1
				continue
			case space >= start:
				out = appendPiece(out, line[start:space])
				start, w, space = space+1, w-spaceW, -1
			}
			if w+rw > width { // a word wider than the line
				out = appendPiece(out, line[start:i])
				start, w, space = i, 0, -1
			}
		}
		if r == ' ' {
			space, spaceW = i, w+rw
		}
		w += rw
	}
	if rest := strings.TrimRight(line[start:], " "); rest != "" || len(out) == n0 {
		if len(out) == n0 && start == 0 && w <= width {
			rest = line // a line that fits is kept as it is
		}
		out = append(out, rest)
	}
	return out, true
}

func appendPiece(out []string, s string) []string {
	if s = strings.TrimRight(s, " "); s != "" {
		return append(out, s)
	}
	return out
}

// Pad cuts or pads s to exactly width cells, so a coloured background
// spans the whole line.
func Pad(s string, width int) string {
	s = Fit(s, width)
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// Width is the width of plain text in cells.
func Width(s string) int {
	n := 0
	for _, r := range s {
		if !fastRune(r) {
			return ansi.StringWidth(s)
		}
		n += RuneWidth(r)
	}
	return n
}

// StyledWidth is ansi.StringWidth for the common case, some ten times
// faster: it skips CSI escape sequences and counts runes that measure the
// same alone as in a grapheme cluster (see fastRune); anything else (OSC
// sequences, emoji, joiners) goes to ansi.StringWidth. A scrolling frame
// measures every line, every frame.
func StyledWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			if i+1 >= len(s) || s[i+1] != '[' {
				return ansi.StringWidth(s)
			}
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
		case c < 0x80:
			if c >= 0x20 && c != 0x7f {
				n++
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !fastRune(r) {
				return ansi.StringWidth(s)
			}
			n += RuneWidth(r)
			i += size
		}
	}
	return n
}

// OneLine is the first line of s (excerpt.Line), cleaned for the screen.
func OneLine(s string) string { return Clean(excerpt.Line(s)) }

// WrapItems lays items (styled text) out on lines of at most width cells,
// sep (styled too) between two on a line; an item wider than a line gets
// a line of its own, cut.
func WrapItems(items []string, sep string, width int) []string {
	sepW := ansi.StringWidth(sep)
	var lines []string
	cur, curW := "", 0
	for _, it := range items {
		w := ansi.StringWidth(it)
		if curW > 0 && curW+sepW+w <= width {
			cur += sep + it
			curW += sepW + w
			continue
		}
		if curW > 0 {
			lines = append(lines, cur)
		}
		cur, curW = Fit(it, width), min(w, width)
	}
	if curW > 0 {
		lines = append(lines, cur)
	}
	return lines
}
