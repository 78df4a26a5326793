package scripted

import (
	"encoding/json"
	"fmt"
	"strings"
)

// APIAnthropic is Entry.API for a request on Anthropic's Messages wire
// (POST /v1/messages).
const APIAnthropic = "anthropic"

// antWireRequest is the part of a Messages request the server reads.
type antWireRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

// antWireBlock is one content block of a request.
type antWireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// parseAnthropicRequest fills an Entry from a Messages request, in the
// shape a chat request gives: tool_result blocks become tool messages,
// an assistant's thinking its Reasoning and its tool_use blocks its calls.
func parseAnthropicRequest(body []byte) (Entry, error) {
	var w antWireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Entry{}, fmt.Errorf("decode request body: %w", err)
	}
	if w.MaxTokens <= 0 {
		return Entry{}, fmt.Errorf("max_tokens is required (got %d)", w.MaxTokens)
	}
	e := Entry{Model: w.Model, Body: body, Stream: w.Stream, API: APIAnthropic}
	for _, t := range w.Tools {
		e.Tools = append(e.Tools, t.Name)
	}
	system, err := antBlocks(w.System)
	if err != nil {
		return Entry{}, fmt.Errorf("system: %w", err)
	}
	var sys []string
	for _, b := range system {
		sys = append(sys, b.Text)
	}
	e.System = strings.Join(sys, "\n")
	for i, wm := range w.Messages {
		blocks, err := antBlocks(wm.Content)
		if err != nil {
			return Entry{}, fmt.Errorf("message %d: %w", i, err)
		}
		if wm.Role == "assistant" {
			e.Turn++
			e.Messages = append(e.Messages, antAssistant(blocks))
			continue
		}
		var texts []string
		for _, b := range blocks {
			switch b.Type {
			case "tool_result":
				content, _ := antBlocks(b.Content)
				var parts []string
				for _, c := range content {
					parts = append(parts, c.Text)
				}
				e.Messages = append(e.Messages, Message{Role: "tool", ToolCallID: b.ToolUseID, Content: strings.Join(parts, "\n")})
			case "text":
				texts = append(texts, b.Text)
			}
		}
		if len(texts) > 0 {
			m := Message{Role: "user", Content: strings.Join(texts, "\n")}
			if e.FirstUser == "" {
				e.FirstUser = m.Content
			}
			e.Messages = append(e.Messages, m)
		}
	}
	return e, nil
}

func antAssistant(blocks []antWireBlock) Message {
	m := Message{Role: "assistant"}
	var texts, thoughts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "thinking":
			thoughts = append(thoughts, b.Thinking)
		case "tool_use":
			m.ToolCalls = append(m.ToolCalls, Call{ID: b.ID, Name: b.Name, Args: string(b.Input)})
		}
	}
	m.Content, m.Reasoning = strings.Join(texts, "\n"), strings.Join(thoughts, "\n")
	return m
}

// antBlocks reads content that is a string, null, or an array of blocks.
func antBlocks(raw json.RawMessage) ([]antWireBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []antWireBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []antWireBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("content is neither a string nor an array of blocks: %w", err)
	}
	return blocks, nil
}

// antStopReason is the stop_reason of a turn: its FinishReason in
// Anthropic's words, or tool_use and end_turn.
func (r reply) antStopReason() string {
	switch f := r.turn.FinishReason; f {
	case "":
	case "length":
		return "max_tokens"
	case "content_filter":
		return "refusal"
	default:
		return f // refusal, pause_turn, max_tokens as they are
	}
	if len(r.calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// anthropicEvents renders a normal turn as a Messages stream: message_start
// with the usage (cache reads and writes), a ping, the thinking block (with
// a signature), the text block, a tool_use block per call with its input
// streamed as input_json_delta, message_delta with the stop reason and the
// output tokens, message_stop.
func (r reply) anthropicEvents() ([][]byte, error) {
	size := r.turn.ChunkSize
	if size <= 0 {
		size = defaultChunkSize
	}
	var out [][]byte
	var err error
	add := func(typ string, v any) {
		if err != nil {
			return
		}
		b, merr := marshal(v)
		if merr != nil {
			err = fmt.Errorf("encode %s: %w", typ, merr)
			return
		}
		out = append(out, []byte("event: "+typ+"\ndata: "+string(b)+"\n\n"))
	}
	type obj = map[string]any
	u := r.usage
	fresh := max(u.Prompt-u.Cached-u.CacheWrite, 0)
	add("message_start", obj{"type": "message_start", "message": obj{
		"id": r.id, "type": "message", "role": "assistant", "model": r.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": fresh, "cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.Cached, "output_tokens": 1},
	}})
	add("ping", obj{"type": "ping"})
	index := 0
	block := func(start obj, deltas []obj) {
		add("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": start})
		for _, d := range deltas {
			add("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": d})
		}
		add("content_block_stop", obj{"type": "content_block_stop", "index": index})
		index++
	}
	if r.turn.Reasoning != "" {
		var ds []obj
		for _, p := range split(r.turn.Reasoning, size) {
			ds = append(ds, obj{"type": "thinking_delta", "thinking": p})
		}
		ds = append(ds, obj{"type": "signature_delta", "signature": "sig-" + r.id})
		block(obj{"type": "thinking", "thinking": ""}, ds)
	}
	if r.turn.Text != "" {
		var ds []obj
		for _, p := range split(r.turn.Text, size) {
			ds = append(ds, obj{"type": "text_delta", "text": p})
		}
		block(obj{"type": "text", "text": ""}, ds)
	}
	for _, c := range r.calls {
		var ds []obj
		for _, p := range split(c.args, size) {
			ds = append(ds, obj{"type": "input_json_delta", "partial_json": p})
		}
		block(obj{"type": "tool_use", "id": c.id, "name": c.name, "input": obj{}}, ds)
	}
	add("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": r.antStopReason(), "stop_sequence": nil},
		"usage": obj{"output_tokens": u.Completion}})
	add("message_stop", obj{"type": "message_stop"})
	return out, err
}

// antOverflowBody is Anthropic's refusal of a prompt of n tokens by a
// window of max.
func antOverflowBody(n, maxTokens int) []byte {
	b, _ := marshal(map[string]any{"type": "error", "error": map[string]any{
		"type": "invalid_request_error", "message": fmt.Sprintf("prompt is too long: %d tokens > %d maximum", n, maxTokens)}})
	return b
}
