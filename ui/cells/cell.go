// Package cells measures, cuts, wraps and cleans text in terminal cells: the
// helpers every line on covey's screen goes through, so that no line is
// wider than the screen and no outside text moves the cursor.
package cells

import (
	"strings"
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
// width either, so they become spaces.
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
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsCleaning reports whether s holds anything Clean changes.
func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n') || c == 0x7f {
			return true
		}
		// C1 controls, U+0080..U+009F, are encoded 0xC2 0x80..0x9F.
		if c == 0xc2 && i+1 < len(s) && s[i+1] < 0xa0 {
			return true
		}
	}
	return !utf8.ValidString(s)
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
// controls or escapes, no emoji, joiners or variation selectors.
func fastRune(r rune) bool {
	return r >= 0x20 && r != 0x7f && (r < 0x80 || (r >= 0xa0 && r < 0x1f000 && r != 0x200d && (r < 0xfe00 || r > 0xfe0f)))
}

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

// PlainWidth is the width of plain text in cells as go-runewidth measures
// it; ASCII needs no lookup.
func PlainWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return runewidth.StringWidth(s)
		}
	}
	return len(s)
}

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
