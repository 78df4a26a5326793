// Package ui is covey's full-screen terminal interface: a Bubble Tea model
// holding the conversation as a list of blocks, one SubagentBlock per child.
package ui

import (
	"strings"
	"time"

	"covey/theme"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
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

// expandTabs replaces tabs with spaces and drops carriage returns, which
// would move the cursor to the start of the line.
func expandTabs(s string) string {
	if !strings.ContainsAny(s, "\t\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\t", strings.Repeat(" ", tabWidth))
}

// wrapText wraps plain text to width cells, breaking words that do not fit
// on a line, and returns one entry per screen line.
func wrapText(s string, width int) []string {
	if width <= 0 {
		return nil
	}
	s = expandTabs(s)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = appendWrapped(out, para, width)
	}
	return out
}

// appendWrapped appends the screen lines of one line of text (no newline).
func appendWrapped(out []string, line string, width int) []string {
	if plainASCII(line) {
		return wrapASCII(out, line, width)
	}
	if ansi.StringWidth(line) <= width {
		return append(out, line)
	}
	for _, l := range strings.Split(ansi.Wrap(line, width, ""), "\n") {
		out = append(out, fitLine(strings.TrimRight(l, " "), width))
	}
	return out
}

// plainASCII reports whether s is printable ASCII only, where one byte is
// one cell and wrapping needs no grapheme segmentation (models write
// mostly this, and the general path is some twenty times slower).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// wrapASCII wraps printable ASCII at spaces, breaking words longer than
// width, the way ansi.Wrap does for such text.
func wrapASCII(out []string, line string, width int) []string {
	if len(line) > width {
		line = strings.TrimRight(line, " ")
	}
	for len(line) > width {
		cut := strings.LastIndexByte(line[:width+1], ' ')
		if cut <= 0 {
			out = append(out, line[:width])
			line = line[width:]
			continue
		}
		if piece := strings.TrimRight(line[:cut], " "); piece != "" {
			out = append(out, piece)
		}
		line = strings.TrimLeft(line[cut+1:], " ")
	}
	return append(out, line)
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
