package agent

import (
	"context"
	"time"
)

// Provider streams one chat completion. Implementations retry what may be
// retried before any byte of the answer arrived, and report deltas as they
// come so consumers can show them live.
type Provider interface {
	Stream(ctx context.Context, req Request, on StreamHandler) (Completion, error)
}

// Request is one chat completion request.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolSpec
	// MaxTokens caps the answer (max_tokens); 0 leaves it to the server.
	MaxTokens int
	// OutputRoom is the part of the window kept for an answer (config or
	// the catalog; 0: unknown), for a wire that must send a max_tokens
	// when MaxTokens is 0 (Anthropic's).
	OutputRoom int
	// CacheKey names the conversation for a provider's prompt cache (the
	// Responses API's prompt_cache_key): stable across an agent's turns,
	// one per agent of a session. "" sends none.
	CacheKey string
	// ReusePrefix marks a request whose last message is a question asked
	// of the conversation before it, as an earlier request sent it (a
	// compaction's summary request): a wire with cache breakpoints marks
	// the end of that conversation, not the question, so the question
	// reads what the turns cached.
	ReusePrefix bool
}

// ToolSpec is a tool as offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// StreamHandler receives what arrives while a completion streams. Any field
// may be nil.
type StreamHandler struct {
	Text      func(delta string)
	Reasoning func(delta string)
	// Retry is called before waiting to retry a failed attempt.
	Retry func(attempt int, wait time.Duration, reason string)
}

// Completion is the assembled answer of one request.
type Completion struct {
	Message Message // role assistant: text, reasoning, complete tool calls
	// FinishReason is normalised: "stop", "tool_calls" (whenever calls were
	// sent, whatever the server said), "length", "content_filter".
	FinishReason string
	Usage        Usage
}
