// Package ui is covey's full-screen terminal interface: a Bubble Tea model
// holding the conversation as a list of blocks, one SubagentBlock per child.
package ui

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"covey/internal/safefile"
	"covey/theme"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// RenderContext is what a block needs to draw itself.
type RenderContext struct {
	Width   int       // content width in cells (the focus gutter is outside it)
	Now     time.Time // for elapsed times of live blocks
	Frame   int       // spinner frame counter, advanced by the UI's tick
	Focused bool
	Styles  *theme.Styles
	// Markdown renders assistant markdown; it is shared by every block and
	// owned by the root model. Nil means markdown is shown as plain text.
	Markdown *MarkdownRenderer
	// Keys names the keys blocks mention in their hints (read for the
	// help text only), so a rebinding changes what the screen says. Nil
	// means the default KeyMap.
	Keys *KeyMap
}

// changes is embedded by the blocks whose look changes after they are
// shown (answers, tool calls, panes, approvals): it counts the changes (the
// version their line caches key on) and tells every transcript holding the
// block, so the code that changes a block never has to tell the transcript.
type changes struct {
	version uint64
	holders map[*transcript]Block
}

// changed records one change of the block.
func (c *changes) changed() {
	c.version++
	for t, b := range c.holders {
		t.touched = append(t.touched, b)
	}
}

// changeSet gives the transcript the block's changes to watch.
func (c *changes) changeSet() *changes { return c }

// watched is a block that reports its own changes.
type watched interface{ changeSet() *changes }

// keyName is the key a binding is shown as ("tab", "y"), from its help.
func keyName(b key.Binding) string { return b.Help().Key }

// firstKey is the first of a binding's shown keys ("↑" of "↑/k").
func firstKey(b key.Binding) string {
	k, _, _ := strings.Cut(b.Help().Key, "/")
	return k
}

// keysOf is ctx's KeyMap, or the default one.
func keysOf(ctx RenderContext) *KeyMap {
	if ctx.Keys != nil {
		return ctx.Keys
	}
	k := DefaultKeyMap()
	return &k
}

// Block is one entry of the transcript. Implementations cache their lines by
// width and an internal version bumped on every change; a block that no
// longer changes (finished) is frozen and costs nothing to draw again.
type Block interface {
	// Lines returns the rendered lines of the block, each at most
	// ctx.Width cells wide.
	Lines(ctx RenderContext) []string
	// Focusable reports whether Tab may land on the block.
	Focusable() bool
	// Expanded reports whether the block shows its long form.
	Expanded() bool
	// SetExpanded switches between the short and the long form.
	SetExpanded(bool)
	// Live reports whether the block's look still changes with time (a
	// spinner, an elapsed time); such blocks are redrawn on every tick.
	Live() bool
}

// The helpers below are shared by the blocks: every line a block returns
// goes through fitLine or wrapText, which is what keeps the promise that no
// line is wider than ctx.Width.

// fitLine cuts s to at most width cells, ending it with … when cut.
func fitLine(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// tabWidth is how many spaces a tab becomes: terminals disagree about tab
// stops, and a tab's width must be known to keep lines inside the screen.
const tabWidth = 4

// cleanText makes outside text (model output, tool output, arguments)
// safe to draw: escape sequences and other control characters would move
// the cursor or recolour the screen, invalid UTF-8 has no known width,
// carriage returns would jump to the line's start, and tabs have no known
// width either, so they become spaces.
func cleanText(s string) string {
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

// needsCleaning reports whether s holds anything cleanText changes.
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

// wrapText wraps plain text to width cells, breaking words that do not fit
// on a line, and returns one entry per screen line.
func wrapText(s string, width int) []string {
	if width <= 0 {
		return nil
	}
	s = cleanText(s)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = appendWrapped(out, para, width)
	}
	return out
}

// appendWrapped appends the screen lines of one line of text (no newline).
func appendWrapped(out []string, line string, width int) []string {
	if fast, ok := wrapFast(out, line, width); ok {
		return fast
	}
	if ansi.StringWidth(line) <= width {
		return append(out, line)
	}
	for _, l := range strings.Split(ansi.Wrap(line, width, ""), "\n") {
		out = append(out, fitLine(strings.TrimRight(l, " "), width))
	}
	return out
}

// fastRune reports whether r's width is the same rune by rune as by
// grapheme cluster, so wrapFast can measure it without segmentation: no
// controls or escapes, no emoji, joiners or variation selectors.
func fastRune(r rune) bool {
	return r >= 0x20 && r != 0x7f && (r < 0x80 || (r >= 0xa0 && r < 0x1f000 && r != 0x200d && (r < 0xfe00 || r > 0xfe0f)))
}

func runeCells(r rune) int {
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
		rw := runeCells(r)
		if rw > width {
			return out[:n0], false // a rune wider than the line: let fitLine cut it
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

// maxShownText bounds the text of one message the transcript draws: a
// 50 MB message (pasted, or from an old session) drawn whole kept the
// first frame waiting 10-45 s, and no one reads it on a screen. The whole
// message stays in the conversation and the session file.
const maxShownText = 256 << 10

// shownText is text cut to maxShownText at a line end, with a last line
// saying how much was left out.
func shownText(text string) string {
	if len(text) <= maxShownText {
		return text
	}
	cut := maxShownText
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(text[:cut], '\n'); i > cut/2 {
		cut = i
	}
	return fmt.Sprintf("%s\n\n[… %s more of this message not shown here; the whole message is in the conversation]",
		text[:cut], safefile.Size(int64(len(text)-cut)))
}

// prefixedLines styles body lines and puts first before the first and
// rest before the others, keeping every line within width.
func prefixedLines(body []string, width int, first, rest string, st lipgloss.Style) []string {
	out := make([]string, len(body))
	for i, l := range body {
		p := rest
		if i == 0 {
			p = first
		}
		out[i] = fitLine(p+st.Render(l), width)
	}
	return out
}

// styleLines applies st to every line, in place.
func styleLines(lines []string, st lipgloss.Style) []string {
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

// cacheKey is everything a block's rendering depends on besides its own
// content, whose changes bump version. Live blocks add the spinner frame
// and the elapsed time as shown (tick), so a tick that changes neither
// costs nothing.
type cacheKey struct {
	width    int
	version  uint64
	expanded bool
	focused  bool
	frame    int
	tick     string
}

// lineCache holds a block's last rendering.
type lineCache struct {
	valid bool
	key   cacheKey
	lines []string
}

func (c *lineCache) get(k cacheKey) ([]string, bool) {
	if c.valid && c.key == k {
		return c.lines, true
	}
	return nil, false
}

func (c *lineCache) put(k cacheKey, lines []string) {
	c.valid, c.key, c.lines = true, k, lines
}
