package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// seqIDs returns an id generator counting call_gen1, call_gen2, ...
func seqIDs() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("call_gen%d", n) }
}

// tcs builds a tool-call delta chunk from the tool_calls JSON array.
func tcs(array string) string {
	return `{"choices":[{"index":0,"delta":{"tool_calls":` + array + `}}]}`
}

func finish(reason string) string {
	return `{"choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}`
}

func TestAccumulator(t *testing.T) {
	tests := map[string]struct {
		chunks   []string
		done     bool
		want     Completion // Role is filled in
		complete bool
	}{
		"role and content": {
			chunks: []string{`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`, `{"choices":[{"delta":{"content":"Hi"}}]}`, finish("stop")},
			want:   Completion{Message: Message{Content: "Hi"}, FinishReason: "stop"}, complete: true,
		},
		"done without finish reason is stop": {
			chunks: []string{`{"choices":[{"delta":{"content":"Hi"}}]}`}, done: true,
			want: Completion{Message: Message{Content: "Hi"}, FinishReason: "stop"}, complete: true,
		},
		"no finish and no done is incomplete": {
			chunks: []string{`{"choices":[{"delta":{"content":"Hi"}}]}`},
			want:   Completion{Message: Message{Content: "Hi"}},
		},
		"header then argument fragments": {
			chunks: []string{
				tcs(`[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}]`),
				tcs(`[{"index":0,"function":{"arguments":"{\"x\":"}}]`),
				tcs(`[{"index":0,"function":{"arguments":"1}"}}]`),
				finish("tool_calls"),
			},
			want: Completion{Message: Message{ToolCalls: []ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"missing index: new id opens a call, no id continues": {
			chunks: []string{
				tcs(`[{"id":"a","function":{"name":"f","arguments":"{\"x\""}}]`),
				tcs(`[{"function":{"arguments":":1}"}}]`),
				tcs(`[{"id":"b","function":{"name":"g","arguments":"{}"}}]`),
			},
			done: true,
			want: Completion{Message: Message{ToolCalls: []ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}, {ID: "b", Name: "g", Arguments: `{}`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"argument-less calls without index": {
			chunks: []string{
				tcs(`[{"id":"a","function":{"name":"now","arguments":""}}]`),
				tcs(`[{"id":"b","function":{"name":"now","arguments":""}}]`),
			},
			done: true,
			want: Completion{Message: Message{ToolCalls: []ToolCall{{ID: "a", Name: "now", Arguments: `{}`}, {ID: "b", Name: "now", Arguments: `{}`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"duplicate index in one chunk is merged": {
			chunks: []string{tcs(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}},{"index":0,"function":{"arguments":":2}"}}]`)},
			done:   true,
			want:   Completion{Message: Message{ToolCalls: []ToolCall{{ID: "a", Name: "f", Arguments: `{"x":2}`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"three calls glued with no ids are split": {
			chunks: []string{tcs(`[{"index":0,"id":"","function":{"name":"f","arguments":"{\"a\":1}{\"b\":2} {\"c\":3}"}}]`)},
			done:   true,
			want: Completion{Message: Message{ToolCalls: []ToolCall{
				{ID: "call_gen1", Name: "f", Arguments: `{"a":1}`},
				{ID: "call_gen2", Name: "f", Arguments: `{"b":2}`},
				{ID: "call_gen3", Name: "f", Arguments: `{"c":3}`},
			}}, FinishReason: "tool_calls"}, complete: true,
		},
		"indexes ordered by first appearance": {
			chunks: []string{
				tcs(`[{"index":5,"id":"x","function":{"name":"f","arguments":""}},{"index":2,"id":"y","function":{"name":"g","arguments":""}}]`),
				tcs(`[{"index":2,"function":{"arguments":"{\"g\":1}"}},{"index":5,"function":{"arguments":"{\"f\":1}"}}]`),
			},
			done: true,
			want: Completion{Message: Message{ToolCalls: []ToolCall{{ID: "x", Name: "f", Arguments: `{"f":1}`}, {ID: "y", Name: "g", Arguments: `{"g":1}`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"stray fragment with only an id is dropped": {
			chunks: []string{
				tcs(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]`),
				tcs(`[{"index":0,"id":"b","function":{"name":"","arguments":""}}]`),
			},
			done: true,
			want: Completion{Message: Message{ToolCalls: []ToolCall{{ID: "a", Name: "f", Arguments: `{}`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"duplicate ids are made unique": {
			chunks: []string{tcs(`[{"index":0,"id":"same","function":{"name":"f","arguments":"{}"}},{"index":1,"id":"same","function":{"name":"g","arguments":"{}"}}]`)},
			done:   true,
			want:   Completion{Message: Message{ToolCalls: []ToolCall{{ID: "same", Name: "f", Arguments: `{}`}, {ID: "call_gen1", Name: "g", Arguments: `{}`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"invalid arguments are kept": {
			chunks: []string{tcs(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\": tru"}}]`), finish("length")},
			want:   Completion{Message: Message{ToolCalls: []ToolCall{{ID: "a", Name: "f", Arguments: `{"x": tru`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"double-encoded and object arguments": {
			chunks: []string{tcs(`[{"index":0,"id":"a","function":{"name":"f","arguments":"\"{\\\"x\\\":1}\""}},{"index":1,"id":"b","function":{"name":"g","arguments":{"y":2}}}]`)},
			done:   true,
			want:   Completion{Message: Message{ToolCalls: []ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}, {ID: "b", Name: "g", Arguments: `{"y":2}`}}}, FinishReason: "tool_calls"}, complete: true,
		},
		"usage on every chunk, last non-null wins": {
			chunks: []string{
				`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
				`{"choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`,
				`{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}`,
			},
			want: Completion{Message: Message{Content: "ab"}, FinishReason: "stop", Usage: Usage{InputTokens: 5, OutputTokens: 2}}, complete: true,
		},
		"both reasoning fields with the same text": {
			chunks: []string{`{"choices":[{"delta":{"reasoning_content":"hm","reasoning":"hm"}}]}`, `{"choices":[{"delta":{"reasoning":"m"}}]}`},
			done:   true,
			want:   Completion{Message: Message{Reasoning: "hmm"}, FinishReason: "stop"}, complete: true,
		},
		"odd field types do not cost the chunk": {
			chunks: []string{`{"object":7,"choices":[{"index":"0","delta":{"content":"ok","reasoning":{"text":"x"}},"finish_reason":null}],"usage":"n/a"}`},
			done:   true,
			want:   Completion{Message: Message{Content: "ok"}, FinishReason: "stop"}, complete: true,
		},
		"finish reasons normalised": {
			chunks: []string{`{"choices":[{"delta":{"content":"x"},"finish_reason":"MAX_TOKENS"}]}`},
			want:   Completion{Message: Message{Content: "x"}, FinishReason: "length"}, complete: true,
		},
		"content filter": {
			chunks: []string{finish("content_filter")},
			want:   Completion{FinishReason: "content_filter"}, complete: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a := newAccumulator(seqIDs(), StreamLimits{})
			for _, c := range tc.chunks {
				if _, err := a.add([]byte(c)); err != nil {
					t.Fatalf("add(%s): %v", c, err)
				}
			}
			if tc.done {
				a.markDone()
			}
			if a.complete() != tc.complete {
				t.Errorf("complete = %v, want %v", a.complete(), tc.complete)
			}
			tc.want.Message.Role = RoleAssistant
			if got := a.result(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("result:\n got %s\nwant %s", dump(got), dump(tc.want))
			}
		})
	}
}

func TestAccumulatorErrors(t *testing.T) {
	tests := map[string]struct {
		chunk   string
		kind    error
		message string
	}{
		"error string":        {`{"error":"boom"}`, ErrProvider, "provider error: boom"},
		"error object":        {`{"error":{"message":"Provider disconnected unexpectedly","code":"server_error"}}`, ErrServer, "provider error: Provider disconnected unexpectedly"},
		"message array":       {`{"error":{"message":["a","b"],"code":400}}`, ErrBadRequest, "provider error: a, b"},
		"object error":        {`{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","code":400}`, ErrContextLength, "maximum context length"},
		"finish_reason error": {finish("error"), ErrProvider, `finish_reason "error"`},
		"context error code":  {`{"error":{"message":"too long","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`, ErrContextLength, "too long"},
		"not JSON":            {`{"choices":[`, ErrProvider, "not JSON"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := newAccumulator(seqIDs(), StreamLimits{}).add([]byte(tc.chunk))
			var pe *ProviderError
			if !errors.As(err, &pe) || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("err = %v, want a %v ProviderError containing %q", err, tc.kind, tc.message)
			}
			if !pe.InStream {
				t.Errorf("InStream = false")
			}
		})
	}
}

// FuzzAccumulate feeds each line of the input as one chunk. Whatever
// arrives, the accumulator must not panic, and the result must keep its
// promises: every call has a unique non-empty id and non-empty arguments
// that are valid JSON or kept as sent (never silently split wrong), calls
// mean "tool_calls", and the text equals what was shown live.
func FuzzAccumulate(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "sse_*.txt"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok && d != "[DONE]" {
				lines = append(lines, d)
			}
		}
		f.Add([]byte(strings.Join(lines, "\n")))
	}
	f.Add([]byte(tcs(`[{"index":0,"id":"","function":{"name":"f","arguments":"{\"a\":1}{\"b\":2}"}}]`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		a := newAccumulator(seqIDs(), StreamLimits{})
		var shown strings.Builder
		for _, line := range bytes.Split(in, []byte("\n")) {
			d, _ := a.add(line)
			shown.WriteString(d.text)
		}
		shown.WriteString(a.flush().text) // the stream's end, as readStream shows it
		got := a.result()
		if got.Message.Content != shown.String() {
			t.Fatalf("content %q differs from the text shown %q", got.Message.Content, shown.String())
		}
		ids := map[string]bool{}
		for _, c := range got.Message.ToolCalls {
			if c.ID == "" || ids[c.ID] {
				t.Fatalf("empty or duplicate id in %s", dump(got.Message.ToolCalls))
			}
			ids[c.ID] = true
			if c.Arguments == "" {
				t.Fatalf("empty arguments in %s", dump(c))
			}
			if !json.Valid([]byte(c.Arguments)) {
				if _, ok := splitJSONObjects(c.Arguments); ok {
					t.Fatalf("glued arguments were not split: %q", c.Arguments)
				}
			}
		}
		if len(got.Message.ToolCalls) > 0 && got.FinishReason != "tool_calls" {
			t.Fatalf("calls with finish reason %q", got.FinishReason)
		}
	})
}

func BenchmarkAccumulateText(b *testing.B) {
	chunk := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hello "},"finish_reason":null}],"usage":null}`)
	b.ReportAllocs()
	for b.Loop() {
		a := newAccumulator(seqIDs(), StreamLimits{})
		for range 1000 {
			if _, err := a.add(chunk); err != nil {
				b.Fatal(err)
			}
		}
		a.result()
	}
}

// BenchmarkAccumulateFreshIDFragments streams a 100 KB argument in 5,000
// fragments that each carry a new id (OCI's habit): the work must stay
// linear in the size of the arguments.
func BenchmarkAccumulateFreshIDFragments(b *testing.B) {
	chunks := [][]byte{[]byte(tcs(`[{"index":0,"id":"call_0","function":{"name":"write_file","arguments":"{\"content\":\""}}]`))}
	for i := range 5000 {
		chunks = append(chunks, []byte(tcs(fmt.Sprintf(`[{"index":0,"id":"call_%d","function":{"name":"","arguments":"%s"}}]`, i+1, strings.Repeat("x}", 10)))))
	}
	chunks = append(chunks, []byte(tcs(`[{"index":0,"id":"call_end","function":{"name":"","arguments":"\"}"}}]`)))
	b.ReportAllocs()
	for b.Loop() {
		a := newAccumulator(seqIDs(), StreamLimits{})
		for _, c := range chunks {
			if _, err := a.add(c); err != nil {
				b.Fatal(err)
			}
		}
		if got := a.result().Message.ToolCalls; len(got) != 1 || !json.Valid([]byte(got[0].Arguments)) {
			b.Fatalf("calls = %d", len(got))
		}
	}
}
