package ui

import (
	"strings"

	"covey/agent"
)

// CompactionBlock marks a compaction in the transcript: a divider saying
// what happened (everything above it stays on screen, but the model now
// sees the summary instead), which expands to show the summary.
type CompactionBlock struct {
	changes
	ev       agent.Compacted
	expanded bool
	cache    lineCache
}

// NewCompactionBlock returns the divider of one compaction.
func NewCompactionBlock(ev agent.Compacted) *CompactionBlock {
	return &CompactionBlock{ev: ev}
}

// Summary returns the summary the model sees now.
func (b *CompactionBlock) Summary() string { return b.ev.Summary }

// Lines implements Block. The returned slice must not be modified.
func (b *CompactionBlock) Lines(ctx RenderContext) []string {
	key := cacheKey{width: ctx.Width, expanded: b.expanded, focused: ctx.Focused}
	if lines, ok := b.cache.get(key); ok {
		return lines
	}
	st := ctx.Styles.App.Muted
	label := " " + agent.CompactionNote(b.ev) + " "
	if !b.expanded {
		label += "· " + firstKey(keysOf(ctx).Toggle) + ": summary "
	}
	lines := []string{st.Render(fitLine(divider(label, ctx.Width), ctx.Width))}
	if b.expanded {
		body := wrapText(cleanText(b.ev.Summary), max(ctx.Width-2, 1))
		lines = append(lines, prefixedLines(body, ctx.Width, "  ", "  ", ctx.Styles.App.Text)...)
		lines = append(lines, st.Render(strings.Repeat("─", max(ctx.Width, 1))))
	}
	b.cache.put(key, lines)
	return lines
}

// divider centres label in a rule of width cells.
func divider(label string, width int) string {
	n := width - len([]rune(label))
	if n < 4 {
		return label
	}
	return strings.Repeat("─", 2) + label + strings.Repeat("─", n-2)
}

// Focusable implements Block: the summary is its long form.
func (b *CompactionBlock) Focusable() bool { return true }

// Expanded implements Block.
func (b *CompactionBlock) Expanded() bool { return b.expanded }

// SetExpanded implements Block.
func (b *CompactionBlock) SetExpanded(on bool) {
	if b.expanded != on {
		b.expanded = on
		b.changed()
	}
}

// Live implements Block.
func (b *CompactionBlock) Live() bool { return false }
