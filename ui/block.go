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
	"covey/ui/cells"
	"covey/ui/markdown"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
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
	Markdown *markdown.Renderer
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

// The helpers below are shared by the blocks. Every line a block returns
// goes through cells.Fit or cells.Wrap, which is what keeps the promise that
// no line is wider than ctx.Width.

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
		out[i] = cells.Fit(p+st.Render(l), width)
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
