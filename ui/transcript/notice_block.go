package transcript

import "covey/ui/cells"

// NoticeLevel is the severity of a NoticeBlock.
type NoticeLevel int

// Notice levels, from least to most severe.
const (
	NoticeInfo NoticeLevel = iota
	NoticeWarning
	NoticeError
)

// NoticeBlock shows a message from covey itself: command output (/help,
// /cost, /agents), warnings and errors. Its text may span several lines.
type NoticeBlock struct {
	level NoticeLevel
	text  string
	// columns: its lines with a tab are rows of two columns (ColumnText),
	// laid out at the width it is drawn at.
	columns bool
	cache   LineCache
}

// NewNoticeBlock returns a notice of the given level.
func NewNoticeBlock(level NoticeLevel, text string) *NoticeBlock {
	return &NoticeBlock{level: level, text: text}
}

// NewColumnsNotice returns a notice whose lines with a tab are rows of two
// columns ("/name args\tdescription"), laid out at the width it is drawn
// at (/help).
func NewColumnsNotice(level NoticeLevel, text string) *NoticeBlock {
	return &NoticeBlock{level: level, text: text, columns: true}
}

// Level returns the notice's severity.
func (b *NoticeBlock) Level() NoticeLevel { return b.level }

// Text is what the notice says.
func (b *NoticeBlock) Text() string { return b.text }

// Lines implements Block. The returned slice must not be modified.
func (b *NoticeBlock) Lines(ctx RenderContext) []string {
	key := CacheKey{Styles: ctx.Styles, Width: ctx.Width}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	st, glyph := ctx.Styles.Notice.Info, "ℹ "
	switch b.level {
	case NoticeWarning:
		st, glyph = ctx.Styles.Notice.Warning, "⚠ "
	case NoticeError:
		st, glyph = ctx.Styles.Notice.Error, cells.GlyphFailed+" "
	}
	wrapped := cells.Wrap
	if b.columns {
		wrapped = ColumnText
	}
	lines := prefixedLines(wrapped(b.text, max(ctx.Width-2, 1)), ctx.Width, st.Render(glyph), "  ", st)
	b.cache.Put(key, lines)
	return lines
}

// Focusable implements Block.
func (b *NoticeBlock) Focusable() bool { return false }

// Expanded implements Block.
func (b *NoticeBlock) Expanded() bool { return false }

// SetExpanded implements Block; a notice is always shown whole.
func (b *NoticeBlock) SetExpanded(bool) {}

// Live implements Block.
func (b *NoticeBlock) Live() bool { return false }
