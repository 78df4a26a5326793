package scripted

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Entry is the journal's record of one request. It never holds the
// Authorization header: HasAuth only says whether one was sent.
type Entry struct {
	// Time is when the request arrived; Done is when its answer was complete
	// (zero while it is still being served).
	Time time.Time `json:"time"`
	Done time.Time `json:"done"`
	// Conversation is the name of the matched conversation ("" if none).
	Conversation string `json:"conversation,omitempty"`
	// Turn is the number of assistant messages in the request; Attempt is 0
	// for the first request of that turn, 1 for the first retry, and so on.
	Turn    int `json:"turn"`
	Attempt int `json:"attempt"`
	// Status is the HTTP status answered (200 for streams, even cut ones).
	Status int `json:"status"`
	// Unmatched explains why no scripted turn answered the request: nothing
	// matched, the turn was not scripted, the request was malformed, or the
	// scripted turn itself was broken (its Func panicked, its Args could not
	// be marshalled).
	Unmatched string `json:"unmatched,omitempty"`
	// Abandoned reports a client that went away before its request was
	// read whole (a call cancelled while it was being sent): nothing to
	// answer, and nothing unexpected either.
	Abandoned bool `json:"abandoned,omitempty"`
	// PromptTokens is the request's prompt as the usage chunk counts it (a
	// quarter of the body's bytes); Overflow reports a request refused
	// because that passed its model's Window.
	PromptTokens int  `json:"prompt_tokens"`
	Overflow     bool `json:"overflow,omitempty"`

	Model     string    `json:"model"`
	Tools     []string  `json:"tools,omitempty"`
	Messages  []Message `json:"messages"`
	System    string    `json:"system,omitempty"`
	FirstUser string    `json:"first_user"`
	// Body is the raw request body.
	Body    []byte `json:"-"`
	HasAuth bool   `json:"has_auth"`
	Stream  bool   `json:"stream"`
	// StreamOptions reports whether stream_options.include_usage was asked.
	StreamOptions bool `json:"stream_options"`
	// API is the wire the request came on: "" for Chat Completions,
	// APIAnthropic for Messages.
	API string `json:"api,omitempty"`
}

// Message is one message of a request, parsed from the wire form (content may
// be a string or an array of parts).
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content,omitempty"`
	Reasoning  string `json:"reasoning,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
	ToolCalls  []Call `json:"tool_calls,omitempty"`
}

// Request is what a Turn's Func sees: the journal entry of the request being
// answered.
type Request struct {
	Entry
}

// LastMessage returns the request's last message, or the zero Message when
// there is none; the demo's Func uses it to read tool results.
func (r Request) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// LastUser returns the content of the last user message ("" if none).
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// wireRequest is the part of a chat completion request the server reads.
type wireRequest struct {
	Model         string        `json:"model"`
	Messages      []wireMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCallID       string          `json:"tool_call_id"`
	Name             string          `json:"name"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// parseRequest fills an Entry from a request body. It fails only on bodies
// that are not a chat completion request at all.
func parseRequest(body []byte) (Entry, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Entry{}, fmt.Errorf("decode request body: %w", err)
	}
	e := Entry{
		Model:         w.Model,
		Body:          body,
		Stream:        w.Stream,
		StreamOptions: w.StreamOptions != nil && w.StreamOptions.IncludeUsage,
	}
	for _, t := range w.Tools {
		e.Tools = append(e.Tools, t.Function.Name)
	}
	var system []string
	firstUserSeen := false
	for i, wm := range w.Messages {
		content, err := contentText(wm.Content)
		if err != nil {
			return Entry{}, fmt.Errorf("message %d: %w", i, err)
		}
		m := Message{
			Role:       wm.Role,
			Content:    content,
			Reasoning:  wm.ReasoningContent,
			ToolCallID: wm.ToolCallID,
			Name:       wm.Name,
		}
		if m.Reasoning == "" {
			m.Reasoning = wm.Reasoning
		}
		for _, tc := range wm.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, m.Content)
		case "user":
			if !firstUserSeen {
				e.FirstUser, firstUserSeen = m.Content, true
			}
		case "assistant":
			e.Turn++
		}
		e.Messages = append(e.Messages, m)
	}
	e.System = strings.Join(system, "\n")
	return e, nil
}

// contentText flattens a message content, which is a string, null, or an
// array of parts of which only the text parts matter here.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}
