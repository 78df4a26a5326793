// Package agent runs one agent: its conversation, the streaming provider
// client and delta accumulator, the tool loop, and the events it emits.
// It never imports the UI.
package agent

import (
	"context"
	"encoding/json"

	"covey/tools/tool"
)

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
	// Native holds items of an assistant message in the form of the wire
	// that produced them, which that wire requires back verbatim before the
	// message's text and calls: Anthropic's thinking and redacted_thinking
	// blocks (signatures included), the Responses API's reasoning items
	// (encrypted_content included). Another wire ignores them.
	Native *NativeItems `json:"native,omitempty"`
	// Images are the images of a user message (attached) or of a tool
	// result (read_file of an image), wire-neutral: each wire builds its
	// own form from MediaType and Data. The session file keeps them by
	// hash only (Data is not written), the bytes beside the file.
	Images []Image `json:"images,omitempty"`
}

// Image is an image given to a model (see tool.Image).
type Image = tool.Image

type imagesKey struct{}

// WithImages returns ctx carrying images for the user message of the run
// it starts (Agent.Run): the images attached to a prompt.
func WithImages(ctx context.Context, images []Image) context.Context {
	if len(images) == 0 {
		return ctx
	}
	return context.WithValue(ctx, imagesKey{}, images)
}

// imagesOf returns the images WithImages put on ctx.
func imagesOf(ctx context.Context) []Image {
	imgs, _ := ctx.Value(imagesKey{}).([]Image)
	return imgs
}

// Wires covey speaks: the API a provider profile or model is served by.
const (
	APIChat      = "chat"      // OpenAI-compatible Chat Completions
	APIResponses = "responses" // OpenAI Responses
	APIAnthropic = "anthropic" // Anthropic Messages
)

// NativeItems are one wire's own items of a message, kept byte for byte.
type NativeItems struct {
	// API is the wire that produced Items (APIAnthropic, APIResponses).
	API   string            `json:"api"`
	Items []json.RawMessage `json:"items"`
}

// For returns the items when they belong to wire api, else nil.
func (n *NativeItems) For(api string) []json.RawMessage {
	if n == nil || n.API != api {
		return nil
	}
	return n.Items
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
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CacheWriteTokens counts input written to a prompt cache (Anthropic's
	// cache_creation_input_tokens); InputTokens includes them.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedTokens += o.CachedTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// Total is input plus output tokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }
