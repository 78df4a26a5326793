// Package transcript is the conversation as covey draws it: the blocks
// (an answer, a tool call, a child's pane, a notice, ...) and the
// transcript that lays them out, scrolls them and moves the focus among
// them. Blocks only render: the root model's router gives them their
// events through their methods (NewToolBlock, AppendText, Finish, ...).
package transcript

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
	// help text only), so a rebinding changes what the screen says. A
	// pointer: the context is copied for every block drawn. Nil names none.
	Keys *Keys
}

// hintKeys is ctx's Keys, or none.
func (ctx RenderContext) hintKeys() *Keys {
	if ctx.Keys == nil {
		return &Keys{}
	}
	return ctx.Keys
}

// Keys are the bindings the transcript and its blocks name in their hints;
// the root model fills them from its KeyMap.
type Keys struct {
	Toggle key.Binding // expand or collapse the focused block
	Bottom key.Binding // back to the end of the transcript, following it
}

// Changes is embedded by the blocks whose look changes after they are
// shown (answers, tool calls, panes, approvals): it counts the changes (the
// version their line caches key on) and tells every transcript holding the
// block, so the code that changes a block never has to tell the transcript.
type Changes struct {
	version uint64
	holders map[*Transcript]Block
}

// Version counts the block's changes; equal versions render alike.
func (c *Changes) Version() uint64 { return c.version }

// Changed records one change of the block.
func (c *Changes) Changed() {
	c.version++
	for t, b := range c.holders {
		t.touched = append(t.touched, b)
	}
}

// changeSet gives the transcript the block's changes to watch.
func (c *Changes) changeSet() *Changes { return c }

// watched is a block that reports its own changes.
type watched interface{ changeSet() *Changes }

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

// CacheKey is everything a block's rendering depends on besides its own
// content, whose changes bump version. Live blocks add the spinner frame
// and the elapsed time as shown (tick), so a tick that changes neither
// costs nothing.
type CacheKey struct {
	Width    int
	Version  uint64
	Expanded bool
	Focused  bool
	Frame    int
	Tick     string
	// Styles are the styles drawn with: new ones (the terminal's
	// background answered after the first frame) draw everything anew.
	Styles *theme.Styles
}

// LineCache holds a block's last rendering.
type LineCache struct {
	valid bool
	key   CacheKey
	lines []string
}

// Get returns the lines cached for k, if k is what they were drawn for.
func (c *LineCache) Get(k CacheKey) ([]string, bool) {
	if c.valid && c.key == k {
		return c.lines, true
	}
	return nil, false
}

// Put keeps lines as the rendering for k.
func (c *LineCache) Put(k CacheKey, lines []string) {
	c.valid, c.key, c.lines = true, k, lines
}
