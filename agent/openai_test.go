package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"covey/tools/toolname"
)

// rawResponse is one scripted HTTP answer: exact bytes, flushed piece by
// piece so the client sees them arrive as a real stream.
type rawResponse struct {
	status int               // 0 means 200
	header map[string]string // Content-Type defaults to text/event-stream
	pieces []string
	// hang keeps the connection open after the pieces until the client goes.
	hang bool
}

// capturedRequest is what the scripted server received.
type capturedRequest struct {
	method, path string
	header       http.Header
	body         []byte
}

// scriptServer answers requests with the responses in order; a request
// beyond the script fails the test.
type scriptServer struct {
	*httptest.Server
	mu       sync.Mutex
	script   []rawResponse
	requests []capturedRequest
}

func newScriptServer(t *testing.T, script ...rawResponse) *scriptServer {
	t.Helper()
	s := &scriptServer{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, capturedRequest{r.Method, r.URL.Path, r.Header.Clone(), body})
		s.mu.Unlock()
		if n >= len(s.script) {
			t.Errorf("unexpected request %d to %s", n+1, r.URL.Path)
			http.Error(w, "unexpected request", http.StatusTeapot)
			return
		}
		resp := s.script[n]
		w.Header().Set("Content-Type", "text/event-stream")
		for k, v := range resp.header {
			w.Header().Set(k, v)
		}
		status := resp.status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		flusher := w.(http.Flusher)
		flusher.Flush()
		for _, p := range resp.pieces {
			if _, err := io.WriteString(w, p); err != nil {
				return
			}
			flusher.Flush()
		}
		if resp.hang {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *scriptServer) request(i int) capturedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i]
}

func (s *scriptServer) requestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// sse joins events in the standard framing.
func sse(events ...string) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = "data: " + e + "\n\n"
	}
	return out
}

func TestOpenAIRequest(t *testing.T) {
	srv := newScriptServer(t, rawResponse{pieces: sse(`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`, "[DONE]")})
	p := NewOpenAI(testConfig(srv.URL+"/v1/", nil))
	req := Request{
		Model:    "m1",
		Messages: []Message{{Role: RoleUser, Content: "hello <b>"}},
		Tools: []ToolSpec{
			{Name: toolname.ReadFile, Description: "Read a file.", Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
			{Name: "now", Description: "Time."},
		},
	}
	if _, err := p.Stream(context.Background(), req, StreamHandler{}); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	got := srv.request(0)
	if got.method != http.MethodPost || got.path != "/v1/chat/completions" {
		t.Errorf("request = %s %s, want POST /v1/chat/completions", got.method, got.path)
	}
	if a := got.header.Get("Authorization"); a != "Bearer test-key" {
		t.Errorf("Authorization = %q", a)
	}
	want := `{"model":"m1","messages":[{"role":"user","content":"hello <b>"}],"stream":true,` +
		`"stream_options":{"include_usage":true},"tools":[` +
		`{"function":{"name":"read_file","description":"Read a file.","parameters":{"properties":{"path":{"type":"string"}},"type":"object"}},"type":"function"},` +
		`{"function":{"name":"now","description":"Time.","parameters":{"properties":{},"type":"object"}},"type":"function"}]}`
	if string(got.body) != want {
		t.Errorf("body:\n got %s\nwant %s", got.body, want)
	}
}

func TestOpenAINoKeyNoAuthorization(t *testing.T) {
	srv := newScriptServer(t, rawResponse{pieces: sse(`{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}`)})
	cfg := testConfig(srv.URL, nil)
	cfg.APIKey = ""
	if _, err := NewOpenAI(cfg).Stream(context.Background(), Request{Model: "m"}, StreamHandler{}); err != nil {
		t.Fatal(err)
	}
	if a, ok := srv.request(0).header["Authorization"]; ok {
		t.Errorf("Authorization sent without a key: %q", a)
	}
}

func TestRandomCallID(t *testing.T) {
	re := regexp.MustCompile(`^call_[a-zA-Z0-9]{24}$`)
	a, b := randomCallID(), randomCallID()
	if !re.MatchString(a) || a == b {
		t.Errorf("ids %q, %q: want two different call_ + 24 alphanumerics", a, b)
	}
}

func TestOpenAIRejectsMissingModel(t *testing.T) {
	_, err := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1"}).Stream(context.Background(), Request{}, StreamHandler{})
	if err == nil || !strings.Contains(err.Error(), "no model") {
		t.Fatalf("err = %v, want a missing-model error", err)
	}
}

// streamCase is one scripted stream and what it must assemble into.
type streamCase struct {
	pieces      []string
	contentType string
	want        Completion
	text        string // the Text deltas joined
	reasoning   string // the Reasoning deltas joined
	errKind     error  // nil: success
	errText     string // a substring of the error
	noAnswer    bool   // the error comes before any answer: want the zero Completion
}

func runStreamCases(t *testing.T, cases map[string]streamCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := rawResponse{pieces: tc.pieces}
			if tc.contentType != "" {
				resp.header = map[string]string{"Content-Type": tc.contentType}
			}
			srv := newScriptServer(t, resp)
			cfg := testConfig(srv.URL, nil)
			cfg.MaxAttempts = 1
			var rec recorder
			got, err := NewOpenAI(cfg).Stream(context.Background(), Request{Model: "m"}, rec.handler())
			wantErr := tc.errKind != nil || tc.errText != ""
			switch {
			case !wantErr && err != nil:
				t.Fatalf("Stream error: %v", err)
			case wantErr && err == nil:
				t.Fatalf("Stream succeeded, want an error")
			case tc.errKind != nil && !errors.Is(err, tc.errKind):
				t.Fatalf("Stream error = %v, want kind %v", err, tc.errKind)
			case tc.errText != "" && !strings.Contains(fmt.Sprint(err), tc.errText):
				t.Fatalf("Stream error = %v, want it to contain %q", err, tc.errText)
			}
			if !tc.noAnswer {
				tc.want.Message.Role = RoleAssistant
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("completion:\n got %s\nwant %s", dump(got), dump(tc.want))
			}
			if j := strings.Join(rec.text, ""); j != tc.text {
				t.Errorf("text deltas = %q, want %q", j, tc.text)
			}
			if j := strings.Join(rec.reasoning, ""); j != tc.reasoning {
				t.Errorf("reasoning deltas = %q, want %q", j, tc.reasoning)
			}
		})
	}
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func calls(tc ...ToolCall) Message { return Message{Role: RoleAssistant, ToolCalls: tc} }

func TestStreamOpenAIBaseline(t *testing.T) {
	head := `"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1"`
	runStreamCases(t, map[string]streamCase{
		"tool call with usage chunk": {
			pieces: sse(
				`{`+head+`,"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_Hj1","type":"function","function":{"name":"read_file","arguments":""}}],"refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"ab"}`,
				`{`+head+`,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]},"finish_reason":null}],"usage":null}`,
				`{`+head+`,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"path\":\"a.go\"}"}}]},"finish_reason":null}],"usage":null}`,
				`{`+head+`,"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}`,
				`{`+head+`,"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":5}}}`,
				"[DONE]"),
			want: Completion{
				Message:      calls(ToolCall{ID: "call_Hj1", Name: toolname.ReadFile, Arguments: `{"path":"a.go"}`}),
				FinishReason: "tool_calls",
				Usage:        Usage{InputTokens: 100, OutputTokens: 20, CachedTokens: 64, ReasoningTokens: 5},
			},
		},
		"text": {
			pieces: sse(
				`{`+head+`,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
				`{`+head+`,"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`,
				`{`+head+`,"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}`,
				`{`+head+`,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
				"[DONE]"),
			want: Completion{Message: Message{Role: RoleAssistant, Content: "Hello"}, FinishReason: "stop"},
			text: "Hello",
		},
		"parallel calls in sequence": {
			pieces: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"ls","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"d\":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"cat","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"f\":2}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				"[DONE]"),
			want: Completion{Message: calls(
				ToolCall{ID: "call_a", Name: "ls", Arguments: `{"d":1}`},
				ToolCall{ID: "call_b", Name: "cat", Arguments: `{"f":2}`}), FinishReason: "tool_calls"},
		},
		"parallel calls interleaved": {
			pieces: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"ls","arguments":"{\"d\""}},{"index":1,"id":"call_b","function":{"name":"cat","arguments":"{\"f\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				"[DONE]"),
			want: Completion{Message: calls(
				ToolCall{ID: "call_a", Name: "ls", Arguments: `{"d":1}`},
				ToolCall{ID: "call_b", Name: "cat", Arguments: `{"f":2}`}), FinishReason: "tool_calls"},
		},
		"mid-stream error object then close": {
			pieces: sse(
				`{"choices":[{"index":0,"delta":{"content":"part"}}]}`,
				`{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "part"}},
			text:    "part",
			errKind: ErrServer,
			errText: "provider error: The server had an error while processing your request.",
		},
	})
}

// fileEvents reads a raw stream from testdata and cuts it after each blank
// line, so every event is flushed on its own.
func fileEvents(t *testing.T, name string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for s := string(raw); s != ""; {
		i := strings.Index(s, "\n\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+2])
		s = s[i+2:]
	}
	return out
}

func TestStreamProviderQuirks(t *testing.T) {
	thought := json.RawMessage(`{"google":{"thought_signature":"c2lnMQ=="}}`)
	flood := strings.Repeat(": OPENROUTER PROCESSING\n\n", 3000)
	orHead := `"id":"gen-1","provider":"openai","model":"openai/gpt-4o","object":"chat.completion.chunk","created":1`
	runStreamCases(t, map[string]streamCase{
		"ollama whole call and stop": {
			pieces: fileEvents(t, "sse_ollama_whole_call.txt"),
			want: Completion{
				Message:      calls(ToolCall{ID: "call_ab12cd34", Name: toolname.ListDir, Arguments: `{"path":"."}`}),
				FinishReason: "tool_calls",
				Usage:        Usage{InputTokens: 12, OutputTokens: 7},
			},
		},
		"ollama without index": {
			pieces: fileEvents(t, "sse_ollama_no_index.txt"),
			want: Completion{Message: calls(
				ToolCall{ID: "call_1", Name: toolname.ReadFile, Arguments: `{"path":"a"}`},
				ToolCall{ID: "call_2", Name: toolname.ReadFile, Arguments: `{"path":"b"}`}), FinishReason: "tool_calls"},
		},
		"vllm duplicate index and continuous usage": {
			pieces: fileEvents(t, "sse_vllm_duplicate_index.txt"),
			want: Completion{
				Message:      calls(ToolCall{ID: "chatcmpl-tool-9f1e", Name: toolname.Grep, Arguments: `{"pattern": "TODO"}`}),
				FinishReason: "tool_calls",
				Usage:        Usage{InputTokens: 30, OutputTokens: 6},
			},
		},
		"gemini null index, empty ids, glued arguments": {
			pieces: fileEvents(t, "sse_gemini_glued.txt"),
			want: Completion{
				Message: calls(
					ToolCall{ID: "call_gen1", Name: toolname.ReadFile, Arguments: `{"path":"a.go"}`, Extra: map[string]json.RawMessage{"extra_content": thought}},
					ToolCall{ID: "call_gen2", Name: toolname.ReadFile, Arguments: `{"path":"b.go"}`}),
				FinishReason: "tool_calls",
				Usage:        Usage{InputTokens: 50, OutputTokens: 20},
			},
		},
		"gemini parallel calls sharing index 0": {
			pieces: fileEvents(t, "sse_gemini_shared_index.txt"),
			want: Completion{Message: calls(
				ToolCall{ID: "function-call-1", Name: toolname.Grep, Arguments: `{"q":"a"}`},
				ToolCall{ID: "function-call-2", Name: toolname.ReadFile, Arguments: `{"path":"x"}`},
				ToolCall{ID: "function-call-3", Name: toolname.Grep, Arguments: `{"q":"b"}`}), FinishReason: "tool_calls"},
		},
		"oci fresh id and empty name on every fragment": {
			pieces: fileEvents(t, "sse_oci_fresh_ids.txt"),
			want: Completion{Message: calls(
				ToolCall{ID: "call_first", Name: toolname.Grep, Arguments: `{"pattern":"main"}`}), FinishReason: "tool_calls"},
		},
		"first call at index 1": {
			pieces: fileEvents(t, "sse_first_index_one.txt"),
			want: Completion{Message: calls(
				ToolCall{ID: "call_one", Name: "ls", Arguments: `{}`},
				ToolCall{ID: "call_two", Name: "pwd", Arguments: `{}`}), FinishReason: "tool_calls"},
		},
		"azure empty-choices first chunk and choice without delta": {
			pieces: fileEvents(t, "sse_azure_filter.txt"),
			want:   Completion{Message: Message{Role: RoleAssistant, Content: "Hi there"}, FinishReason: "stop"},
			text:   "Hi there",
		},
		"deepseek keep-alive and reasoning_content": {
			pieces: fileEvents(t, "sse_deepseek_reasoning.txt"),
			want: Completion{
				Message:      Message{Role: RoleAssistant, Content: "Answer", Reasoning: "Think hard."},
				FinishReason: "stop",
				Usage:        Usage{InputTokens: 10, OutputTokens: 30, CachedTokens: 8, ReasoningTokens: 25},
			},
			text:      "Answer",
			reasoning: "Think hard.",
		},
		"vllm reasoning field": {
			pieces:    fileEvents(t, "sse_vllm_reasoning.txt"),
			want:      Completion{Message: Message{Role: RoleAssistant, Content: "Yes.", Reasoning: "Let me see."}, FinishReason: "stop"},
			text:      "Yes.",
			reasoning: "Let me see.",
		},
		"llama.cpp error line then DONE": {
			pieces:  fileEvents(t, "sse_llamacpp_error_line.txt"),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "Sure"}},
			text:    "Sure",
			errKind: ErrServer,
			errText: "provider error: failed to decode the batch, n_batch = 512",
		},
		"groq event error": {
			pieces:  fileEvents(t, "sse_groq_event_error.txt"),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "Let me"}},
			text:    "Let me",
			errKind: ErrProvider,
			errText: "provider error: Failed to call a function. Please adjust your prompt.",
		},
		"groq x_groq usage": {
			pieces: fileEvents(t, "sse_groq_x_usage.txt"),
			want:   Completion{Message: Message{Role: RoleAssistant, Content: "ok"}, FinishReason: "stop", Usage: Usage{InputTokens: 40, OutputTokens: 3}},
			text:   "ok",
		},
		"vllm error chunk then DONE": {
			pieces:  fileEvents(t, "sse_vllm_error_chunk.txt"),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "Partial"}},
			text:    "Partial",
			errKind: ErrServer,
			errText: "provider error: pop from empty list",
		},
		"truncated stream keeps the partial text": {
			pieces:  fileEvents(t, "sse_truncated.txt"),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "The answer is forty"}},
			text:    "The answer is forty",
			errKind: ErrStreamEndedEarly,
			errText: "the stream ended early",
		},
		"openrouter keep-alive flood then error chunk": {
			pieces: append([]string{flood}, sse(
				`{`+orHead+`,"choices":[{"index":0,"delta":{"role":"assistant","content":"Work"},"finish_reason":null}]}`,
				`{`+orHead+`,"error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`)...),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "Work"}},
			text:    "Work",
			errKind: ErrServer,
			errText: "provider error: Provider disconnected unexpectedly",
		},
		"openrouter keep-alive flood then answer": {
			pieces: append([]string{flood, flood}, sse(
				`{`+orHead+`,"choices":[{"index":0,"delta":{"role":"assistant","content":"Done"},"finish_reason":"stop"}]}`,
				"[DONE]")...),
			want: Completion{Message: Message{Role: RoleAssistant, Content: "Done"}, FinishReason: "stop"},
			text: "Done",
		},
		"finish reason without DONE": {
			pieces: sse(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			want:   Completion{Message: Message{Role: RoleAssistant, Content: "ok"}, FinishReason: "stop"},
			text:   "ok",
		},
		"CRLF, data without space, last line without newline": {
			pieces: []string{"data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\n\r\n", "data:[DONE]"},
			want:   Completion{Message: Message{Role: RoleAssistant, Content: "a"}, FinishReason: "stop"},
			text:   "a",
		},
		"multi-line data": {
			pieces: []string{"data: {\"choices\":[{\"index\":0,\n", "data: \"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}\n\n"},
			want:   Completion{Message: Message{Role: RoleAssistant, Content: "x"}, FinishReason: "length"},
			text:   "x",
		},
		"error as a string": {
			pieces:  sse(`{"choices":[{"delta":{"content":"a"}}]}`, `{"error":"model overloaded"}`),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "a"}},
			text:    "a",
			errKind: ErrProvider,
			errText: "provider error: model overloaded",
		},
		"object error chunk with message array": {
			pieces:  sse(`{"choices":[{"delta":{"content":"a"}}]}`, `{"object":"error","message":["bad thing","worse thing"],"type":"BadRequestError","code":400}`),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "a"}},
			text:    "a",
			errKind: ErrBadRequest,
			errText: "provider error: bad thing, worse thing",
		},
		"finish_reason error without message": {
			pieces:  sse(`{"choices":[{"delta":{"content":"a"},"finish_reason":"error"}]}`, "[DONE]"),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "a"}},
			text:    "a",
			errKind: ErrProvider,
			errText: `finish_reason "error"`,
		},
		"non-streamed JSON answer": {
			contentType: "application/json",
			pieces:      []string{`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"whole","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`},
			want: Completion{
				Message:      Message{Role: RoleAssistant, Content: "whole", ToolCalls: []ToolCall{{ID: "c1", Name: "ls", Arguments: "{}"}}},
				FinishReason: "tool_calls",
				Usage:        Usage{InputTokens: 3, OutputTokens: 4},
			},
			text: "whole",
		},
		"web page instead of a stream": {
			contentType: "text/html; charset=utf-8",
			pieces:      []string{"<!doctype html><html><head><title>Sign in - Corporate Proxy</title></head><body>...</body></html>"},
			noAnswer:    true,
			errKind:     ErrBadRequest,
			errText:     "the server rejected the request: the server answered with a web page, not an API stream (check the base URL): Sign in - Corporate Proxy",
		},
		"error event without data": {
			pieces:  []string{": ping\n\n", "event: error\n\n", "data: [DONE]\n\n"},
			errKind: ErrProvider,
			errText: "provider error: the server sent an error event",
		},
		"chunk that is not JSON": {
			pieces:  sse(`{"choices":[{"delta":{"content":"a"}}]}`, `not json`),
			want:    Completion{Message: Message{Role: RoleAssistant, Content: "a"}},
			text:    "a",
			errKind: ErrProvider,
			errText: "not JSON",
		},
	})
}

// TestHeldBackTextIsShown: what the think splitter holds back until it can
// tell text from a <think> tag (leading blanks, a lone "<thi") is shown when
// the stream ends, so the answer shown live is the answer kept.
func TestHeldBackTextIsShown(t *testing.T) {
	for name, content := range map[string]string{"blanks": " ", "half a tag": "<thi", "blanks and half a tag": "\n <th"} {
		t.Run(name, func(t *testing.T) {
			body := append(sse(`{"choices":[{"delta":{"content":`+strconv.Quote(content)+`}}]}`, `{"choices":[{"delta":{},"finish_reason":"stop"}]}`), "data: [DONE]\n\n")
			srv := newScriptServer(t, rawResponse{pieces: body})
			var rec recorder
			comp, err := NewOpenAI(testConfig(srv.URL, nil)).Stream(context.Background(), Request{Model: "m"}, rec.handler())
			if err != nil {
				t.Fatal(err)
			}
			if shown := strings.Join(rec.text, ""); shown != comp.Message.Content || shown != content {
				t.Errorf("shown %q, kept %q, want %q for both", shown, comp.Message.Content, content)
			}
		})
	}
}
