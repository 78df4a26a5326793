// Package agent runs one agent: its conversation, the streaming provider
// client and delta accumulator, the tool loop, and the events it emits.
// It never imports the UI.
package agent

import "encoding/json"

// Roles of conversation messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of a conversation, as covey keeps it. The provider
// turns it into the wire form each server accepts.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
	// Reasoning is the model's thinking text (reasoning_content / reasoning),
	// kept so it can be sent back where a provider requires it.
	Reasoning string     `json:"reasoning,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and Name are set on tool results.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
}

// ToolCall is one complete call the model asked for.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // valid JSON once accumulated
	// Extra holds provider-specific fields of the call that must be echoed
	// back verbatim (e.g. Gemini's extra_content.google.thought_signature),
	// keyed by field name.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// Usage counts the tokens of one or more requests.
type Usage struct {
	InputTokens     int `json:"input_tokens"`
	OutputTokens    int `json:"output_tokens"`
	CachedTokens    int `json:"cached_tokens,omitempty"`
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedTokens += o.CachedTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// Total is input plus output tokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }
