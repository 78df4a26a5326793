package ui

// NoticeLevel is the severity of a NoticeBlock.
type NoticeLevel int

// Notice levels.
const (
	NoticeInfo NoticeLevel = iota
	NoticeWarning
	NoticeError
)

// NoticeBlock shows a message from covey itself.
type NoticeBlock struct {
	level NoticeLevel
	text  string
}

// NewNoticeBlock returns a notice; text may span several lines.
func NewNoticeBlock(level NoticeLevel, text string) *NoticeBlock {
	return &NoticeBlock{level: level, text: text}
}

// Lines implements Block.
func (b *NoticeBlock) Lines(ctx RenderContext) []string { return []string{clipLine(b.text, ctx.Width)} }

// Focusable implements Block.
func (b *NoticeBlock) Focusable() bool { return false }

// Expanded implements Block.
func (b *NoticeBlock) Expanded() bool { return false }

// SetExpanded implements Block.
func (b *NoticeBlock) SetExpanded(bool) {}

// Live implements Block.
func (b *NoticeBlock) Live() bool { return false }
