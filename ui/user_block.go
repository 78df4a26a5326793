package ui

// UserBlock shows one message the user sent.
type UserBlock struct {
	text string
}

// NewUserBlock returns the block of a user message.
func NewUserBlock(text string) *UserBlock { return &UserBlock{text: text} }

// Lines implements Block.
func (b *UserBlock) Lines(ctx RenderContext) []string {
	return []string{clipLine("> "+b.text, ctx.Width)}
}

// Focusable implements Block.
func (b *UserBlock) Focusable() bool { return false }

// Expanded implements Block.
func (b *UserBlock) Expanded() bool { return false }

// SetExpanded implements Block.
func (b *UserBlock) SetExpanded(bool) {}

// Live implements Block.
func (b *UserBlock) Live() bool { return false }
