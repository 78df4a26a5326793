package transcript

import (
	"strings"

	"covey/agent"
	"covey/ui/cells"
)

// CompactionBlock marks a compaction in the transcript: a divider saying
// what happened (everything above it stays on screen, but the model now
// sees the summary instead), which expands to show the summary. It shows
// "compacting…" from the moment the summary is asked for.
type CompactionBlock struct {
	Changes
	ev       agent.Compacted
	pending  *agent.Compacting // set until Finish
	expanded bool
	cache    LineCache
}

// NewCompactionBlock returns the divider of one compaction.
func NewCompactionBlock(ev agent.Compacted) *CompactionBlock {
	return &CompactionBlock{ev: ev}
}

// NewCompactingBlock returns the divider of a compaction under way; Finish
// completes it.
func NewCompactingBlock(ev agent.Compacting) *CompactionBlock {
	return &CompactionBlock{pending: &ev}
}

// Finish shows how the compaction ended.
func (b *CompactionBlock) Finish(ev agent.Compacted) {
	b.ev, b.pending = ev, nil
	b.Changed()
}

// Summary returns the summary the model sees now.
func (b *CompactionBlock) Summary() string { return b.ev.Summary }

// Lines implements Block. The returned slice must not be modified.
func (b *CompactionBlock) Lines(ctx RenderContext) []string {
	key := CacheKey{Styles: ctx.Styles, Width: ctx.Width, Version: b.version, Expanded: b.expanded, Focused: ctx.Focused}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	st := ctx.Styles.App.Muted
	var label string
	switch {
	case b.pending != nil:
		label = " compacting the conversation (" + agent.FormatTokens(b.pending.TokensBefore) + " tokens)… "
	case b.ev.Error != "":
		st = ctx.Styles.Notice.Error
		label = " " + agent.CompactionNote(b.ev) + " "
	default:
		label = " " + agent.CompactionNote(b.ev) + " "
		if !b.expanded {
			toggle, _, _ := strings.Cut(ctx.hintKeys().Toggle.Help().Key, "/") // "enter" of "enter/space"
			label += "· " + toggle + ": summary "
		}
	}
	lines := []string{st.Render(cells.Fit(divider(label, ctx.Width), ctx.Width))}
	if b.expanded && b.pending == nil && b.ev.Error == "" {
		body := cells.Wrap(cells.Clean(b.ev.Summary), max(ctx.Width-2, 1))
		lines = append(lines, prefixedLines(body, ctx.Width, "  ", "  ", ctx.Styles.App.Text)...)
		lines = append(lines, st.Render(strings.Repeat("─", max(ctx.Width, 1))))
	}
	b.cache.Put(key, lines)
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
func (b *CompactionBlock) Focusable() bool { return b.pending == nil && b.ev.Error == "" }

// Expanded implements Block.
func (b *CompactionBlock) Expanded() bool { return b.expanded }

// SetExpanded implements Block.
func (b *CompactionBlock) SetExpanded(on bool) {
	if b.expanded != on {
		b.expanded = on
		b.Changed()
	}
}

// Live implements Block.
func (b *CompactionBlock) Live() bool { return false }
