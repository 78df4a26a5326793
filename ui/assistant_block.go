package ui

import "strings"

// AssistantBlock shows the main agent's answer as it streams.
type AssistantBlock struct {
	text, reasoning strings.Builder
	done, expanded  bool
}

// NewAssistantBlock returns an empty, streaming answer block.
func NewAssistantBlock() *AssistantBlock { return &AssistantBlock{} }

// AppendText adds a fragment of the answer.
func (b *AssistantBlock) AppendText(s string) { b.text.WriteString(s) }

// AppendReasoning adds a fragment of the model's thinking.
func (b *AssistantBlock) AppendReasoning(s string) { b.reasoning.WriteString(s) }

// Finish marks the answer complete.
func (b *AssistantBlock) Finish() { b.done = true }

// Lines implements Block.
func (b *AssistantBlock) Lines(ctx RenderContext) []string {
	return []string{clipLine(b.text.String(), ctx.Width)}
}

// Focusable implements Block.
func (b *AssistantBlock) Focusable() bool { return b.reasoning.Len() > 0 }

// Expanded implements Block.
func (b *AssistantBlock) Expanded() bool { return b.expanded }

// SetExpanded implements Block.
func (b *AssistantBlock) SetExpanded(v bool) { b.expanded = v }

// Live implements Block.
func (b *AssistantBlock) Live() bool { return false }
