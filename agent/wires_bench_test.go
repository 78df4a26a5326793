package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// bodyTransport answers every request with the same stream, in memory, so
// a benchmark measures covey's own work (encoding the request, reading
// the stream), not a network.
type bodyTransport struct{ body []byte }

func (t bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body)
	_ = r.Body.Close()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(t.body)), Request: r}, nil
}

// chatTokens is a Chat Completions stream of n text deltas of about a
// token each, in OpenAI's shape, with its usage chunk.
func chatTokens(n int) []byte {
	var b strings.Builder
	head := `{"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1750000000,"model":"gpt-5-codex","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":`
	for i := range n {
		fmt.Fprintf(&b, "data: %s%q},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null,\"obfuscation\":\"ab%d\"}\n\n", head, benchToken(i), i%10)
	}
	b.WriteString(`data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1750000000,"model":"gpt-5-codex","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1750000000,"model":"gpt-5-codex","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":1000,"total_tokens":1900}}` + "\n\ndata: [DONE]\n\n")
	return []byte(b.String())
}

// responsesTokens is the same answer as a Responses stream: its item
// events around n output_text deltas, each numbered.
func responsesTokens(n int) []byte {
	var b strings.Builder
	b.WriteString("event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"model\":\"gpt-5-codex\",\"output\":[]}}\n\n")
	b.WriteString("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"content\":[],\"role\":\"assistant\"}}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":%q,\"logprobs\":[],\"obfuscation\":\"ab%d\"}\n\n", i+2, benchToken(i), i%10)
	}
	b.WriteString("event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":9999,\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":900,\"output_tokens\":1000,\"total_tokens\":1900}}}\n\n")
	return []byte(b.String())
}

// anthropicTokens is the same answer as an Anthropic Messages stream:
// message_start (with cache usage), a text block of n deltas, its stop,
// message_delta and message_stop.
func anthropicTokens(n int) []byte {
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":888,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n", benchToken(i))
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1000}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return []byte(b.String())
}

func benchToken(i int) string {
	return [...]string{" the", " code", " func", "tion", " is", " in", " main", ".go"}[i%8]
}

// benchRequest is a request as a working session makes one: a system
// prompt, tools, a few turns.
func benchRequest() Request {
	msgs := []Message{{Role: RoleSystem, Content: strings.Repeat("You are covey, a coding agent. ", 60)}}
	for i := range 4 {
		msgs = append(msgs,
			Message{Role: RoleUser, Content: fmt.Sprintf("question %d about the code", i)},
			Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "read_file", Arguments: `{"path":"main.go"}`}}},
			Message{Role: RoleTool, ToolCallID: fmt.Sprintf("call_%d", i), Content: strings.Repeat("package main\n", 80)})
	}
	var tools []ToolSpec
	for _, n := range []string{"read_file", "glob", "grep", "bash", "edit", "write_file"} {
		tools = append(tools, ToolSpec{Name: n, Description: "The " + n + " tool.", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string", "description": "A path."}}}})
	}
	return Request{Model: "gpt-5-codex", Messages: msgs, Tools: tools, CacheKey: "bench"}
}

func benchProvider(api string, body []byte) Provider {
	p, err := NewProvider(api, OpenAIConfig{BaseURL: "http://bench.invalid/v1", HTTPClient: &http.Client{Transport: bodyTransport{body}}})
	if err != nil {
		panic(err)
	}
	return p
}

// BenchmarkWireStream is the CPU of one answer of 1,000 streamed tokens on
// each wire, request encoding included: one op is 1,000 tokens. The goal
// is Responses and Anthropic each within 1.1x of Chat Completions.
func BenchmarkWireStream(b *testing.B) {
	for _, w := range []struct {
		api  string
		body []byte
	}{{APIChat, chatTokens(1000)}, {APIResponses, responsesTokens(1000)}, {APIAnthropic, anthropicTokens(1000)}} {
		b.Run(w.api, func(b *testing.B) {
			p, req := benchProvider(w.api, w.body), benchRequest()
			b.SetBytes(int64(len(w.body)))
			b.ReportAllocs()
			for b.Loop() {
				comp, err := p.Stream(context.Background(), req, StreamHandler{Text: func(string) {}})
				if err != nil || len(comp.Message.Content) < 1000 {
					b.Fatalf("stream: %v (%d bytes)", err, len(comp.Message.Content))
				}
			}
		})
	}
}

// BenchmarkWireFirstToken is the time from Stream's call to the first
// text delta on each wire (encoding the request, reading the headers and
// the events before the first token), reported as ns/first-token.
func BenchmarkWireFirstToken(b *testing.B) {
	for _, w := range []struct {
		api  string
		body []byte
	}{{APIChat, chatTokens(10)}, {APIResponses, responsesTokens(10)}, {APIAnthropic, anthropicTokens(10)}} {
		b.Run(w.api, func(b *testing.B) {
			p, req := benchProvider(w.api, w.body), benchRequest()
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				var first time.Duration
				_, err := p.Stream(context.Background(), req, StreamHandler{Text: func(string) {
					if first == 0 {
						first = time.Since(start)
					}
				}})
				if err != nil || first == 0 {
					b.Fatalf("stream: %v, first token %s", err, first)
				}
				total += first
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/first-token")
		})
	}
}
