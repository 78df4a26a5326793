package transcript

import (
	"strings"

	"covey/ui/cells"
)

// userPrompt marks the user's messages in the transcript.
const userPrompt = "❯ "

// UserBlock shows one message the user sent: a prompt marker and the text,
// wrapped and indented under the marker.
type UserBlock struct {
	text  string
	cache LineCache
}

// NewUserBlock returns the block of a user message.
func NewUserBlock(text string) *UserBlock {
	return &UserBlock{text: strings.TrimRight(text, "\n")}
}

// Text returns the message as sent.
func (b *UserBlock) Text() string { return b.text }

// Lines implements Block. The returned slice must not be modified.
func (b *UserBlock) Lines(ctx RenderContext) []string {
	key := CacheKey{Styles: ctx.Styles, Width: ctx.Width}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	lines := prefixedLines(cells.Wrap(shownText(b.text), max(ctx.Width-2, 1)), ctx.Width,
		ctx.Styles.User.Prompt.Render(userPrompt), "  ", ctx.Styles.User.Text)
	b.cache.Put(key, lines)
	return lines
}

// Focusable implements Block: a user message has no long form.
func (b *UserBlock) Focusable() bool { return false }

// Expanded implements Block.
func (b *UserBlock) Expanded() bool { return false }

// SetExpanded implements Block; a user message is always shown whole.
func (b *UserBlock) SetExpanded(bool) {}

// Live implements Block.
func (b *UserBlock) Live() bool { return false }
