// Package ui is covey's full-screen terminal interface: a Bubble Tea model
// holding the conversation as a list of blocks, one SubagentBlock per child.
package ui

import (
	"time"

	"covey/theme"

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

// clipLine cuts s to at most width cells, ending it with … when cut.
func clipLine(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}
