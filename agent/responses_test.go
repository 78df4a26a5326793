package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// respEvent frames one Responses event as OpenAI does: its type as the
// SSE event name and in the data.
func respEvent(typ, data string) string {
	return "event: " + typ + "\ndata: " + data + "\n\n"
}

func runResponsesCases(t *testing.T, cases map[string]streamCase) {
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
			got, err := NewResponses(cfg).Stream(context.Background(), Request{Model: "gpt-5-codex"}, rec.handler())
			if p := srv.request(0).path; p != "/responses" {
				t.Errorf("path = %s, want /responses", p)
			}
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

func rsNative(items ...string) *NativeItems {
	n := &NativeItems{API: APIResponses}
	for _, it := range items {
		n.Items = append(n.Items, json.RawMessage(it))
	}
	return n
}

// TestResponsesStream is the Responses part of the wire table: real
// streams' shapes (typed event names, sequence numbers, obfuscation,
// empty deltas) and their quirks.
func TestResponsesStream(t *testing.T) {
	rsText := `{"id":"rs_1","type":"reasoning","encrypted_content":"gAAAAABo-ENC+/=","summary":[{"type":"summary_text","text":"**Planning** the answer"},{"type":"summary_text","text":"Then greet."}]}`
	completed := func(usage string) string {
		return respEvent("response.completed", `{"type":"response.completed","response":{"status":"completed","usage":`+usage+`}}`)
	}
	textItem := func(seq int, s string) string {
		return respEvent("response.output_text.delta", fmt.Sprintf(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_1","output_index":0,"content_index":0,"delta":%q}`, seq, s))
	}
	runResponsesCases(t, map[string]streamCase{
		"reasoning summary then text": {
			pieces: fileEvents(t, "sse_responses_reasoning_text.txt"),
			want: Completion{
				Message: Message{Content: "Hello <b>", Reasoning: "**Planning** the answer\n\nThen greet.",
					Native: rsNative(rsText)},
				FinishReason: "stop",
				Usage:        Usage{InputTokens: 1200, OutputTokens: 90, CachedTokens: 1024, ReasoningTokens: 64},
			},
			text:      "Hello <b>",
			reasoning: "**Planning** the answer\n\nThen greet.",
		},
		"reasoning with only encrypted content, then parallel calls, one with arguments only in done": {
			pieces: fileEvents(t, "sse_responses_calls.txt"),
			want: Completion{
				Message: Message{ToolCalls: []ToolCall{
					{ID: "call_A", Name: "read_file", Arguments: `{"path":"a.go"}`},
					{ID: "call_B", Name: "glob", Arguments: `{"pattern":"*.go"}`},
				}, Native: rsNative(`{"id":"rs_2","type":"reasoning","encrypted_content":"gAAAAABo-ONLY-SIG==","summary":[]}`)},
				FinishReason: "tool_calls",
				Usage:        Usage{InputTokens: 50, OutputTokens: 30, ReasoningTokens: 12},
			},
		},
		"data lines without event names, summary only in the done item": {
			pieces: sse(
				`{"type":"response.created","response":{"status":"in_progress"}}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_9","type":"reasoning","encrypted_content":"E","summary":[{"type":"summary_text","text":"Thought."}]}}`,
				`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_9","type":"message","role":"assistant","content":[{"type":"output_text","text":"Only in done."}]}}`,
				`{"type":"response.completed","response":{"status":"completed"}}`),
			want: Completion{
				Message:      Message{Content: "Only in done.", Reasoning: "Thought.", Native: rsNative(`{"id":"rs_9","type":"reasoning","encrypted_content":"E","summary":[{"type":"summary_text","text":"Thought."}]}`)},
				FinishReason: "stop",
			},
			text: "Only in done.", reasoning: "Thought.",
		},
		"a reasoning item without encrypted content is shown, not kept": {
			pieces: sse(
				`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","delta":"hmm"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"hmm"}]}}`,
				`{"type":"response.output_text.delta","item_id":"m","delta":"ok"}`,
				`{"type":"response.completed","response":{"status":"completed"}}`),
			want: Completion{Message: Message{Content: "ok", Reasoning: "hmm"}, FinishReason: "stop"},
			text: "ok", reasoning: "hmm",
		},
		"error event mid-stream": {
			pieces: []string{
				textItem(1, "part"),
				respEvent("error", `{"type":"error","sequence_number":2,"code":"server_error","message":"The server had an error while processing your request.","param":null}`),
			},
			want:    Completion{Message: Message{Content: "part"}},
			text:    "part",
			errKind: ErrServer,
			errText: "provider error: The server had an error while processing your request.",
		},
		"error event in the nested shape": {
			pieces: []string{
				respEvent("error", `{"type":"error","sequence_number":0,"error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}`),
			},
			want:     Completion{Message: Message{Role: RoleAssistant}},
			errKind:  ErrContextLength,
			noAnswer: true,
		},
		"response.failed": {
			pieces: []string{
				respEvent("response.failed", `{"type":"response.failed","sequence_number":3,"response":{"status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached"},"usage":null}}`),
			},
			want:     Completion{Message: Message{Role: RoleAssistant}},
			errKind:  ErrRateLimited,
			errText:  "Rate limit reached",
			noAnswer: true,
		},
		"incomplete for max_output_tokens": {
			pieces: []string{
				textItem(1, "cut"),
				respEvent("response.incomplete", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":7}}}`),
			},
			want: Completion{Message: Message{Content: "cut"}, FinishReason: StopLength, Usage: Usage{InputTokens: 5, OutputTokens: 7}},
			text: "cut",
		},
		"incomplete for content_filter": {
			pieces: []string{
				textItem(1, "no"),
				respEvent("response.incomplete", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"}}}`),
			},
			want: Completion{Message: Message{Content: "no"}, FinishReason: StopContentFilter},
			text: "no",
		},
		"cut before response.completed": {
			pieces:  []string{textItem(1, "half")},
			want:    Completion{Message: Message{Content: "half"}},
			text:    "half",
			errKind: ErrStreamEndedEarly,
			errText: "closed mid-answer (the stream ended early, without response.completed)",
		},
		"keep-alive comments and unknown events are skipped": {
			pieces: []string{
				": keep-alive\n\n",
				respEvent("response.web_search_call.in_progress", `{"type":"response.web_search_call.in_progress","sequence_number":1}`),
				textItem(2, "hi"),
				completed(`{"input_tokens":3,"output_tokens":1}`),
			},
			want: Completion{Message: Message{Content: "hi"}, FinishReason: "stop", Usage: Usage{InputTokens: 3, OutputTokens: 1}},
			text: "hi",
		},
		"a whole JSON body": {
			contentType: "application/json",
			pieces: []string{`{"id":"resp_3","object":"response","status":"completed","output":[` +
				`{"id":"fc_1","type":"function_call","call_id":"call_Z","name":"ls","arguments":"{}"}],` +
				`"usage":{"input_tokens":9,"output_tokens":2}}`},
			want: Completion{Message: Message{ToolCalls: []ToolCall{{ID: "call_Z", Name: "ls", Arguments: "{}"}}},
				FinishReason: "tool_calls", Usage: Usage{InputTokens: 9, OutputTokens: 2}},
		},
		"an event that is not JSON": {
			pieces:  sse(`{"type":"response.output_text.delta","delta":"a"}`, `not json`),
			want:    Completion{Message: Message{Content: "a"}},
			text:    "a",
			errKind: ErrProvider,
		},
	})
}

// TestResponsesCaps holds the Responses wire to the same stream caps as
// Chat Completions.
func TestResponsesCaps(t *testing.T) {
	var pieces []string
	for i := range 5 {
		pieces = append(pieces, respEvent("response.output_item.added",
			fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":{"id":"fc_%d","type":"function_call","call_id":"c%d","name":"ls","arguments":""}}`, i, i, i)))
	}
	srv := newScriptServer(t, rawResponse{pieces: pieces})
	cfg := testConfig(srv.URL, nil)
	cfg.Limits = StreamLimits{MaxToolCalls: 3}
	_, err := NewResponses(cfg).Stream(context.Background(), Request{Model: "m"}, StreamHandler{})
	if !errors.Is(err, ErrStreamLimit) || !strings.Contains(err.Error(), "max_tool_calls") {
		t.Fatalf("err = %v, want the max_tool_calls cap", err)
	}

	srv = newScriptServer(t, rawResponse{pieces: []string{
		respEvent("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","delta":"0123456789"}`),
	}})
	cfg = testConfig(srv.URL, nil)
	cfg.Limits = StreamLimits{MaxText: 4}
	comp, err := NewResponses(cfg).Stream(context.Background(), Request{Model: "m"}, StreamHandler{})
	if !errors.Is(err, ErrStreamLimit) || comp.Message.Content != "0123" {
		t.Fatalf("err = %v, content %q; want the max_text cap with 4 bytes kept", err, comp.Message.Content)
	}
}

// TestResponsesRetries: a 429 with Retry-After and a 500 are retried
// before any answer, as on Chat Completions; an overflow is not retried
// and is ErrContextLength with the window it names.
func TestResponsesRetries(t *testing.T) {
	ok := rawResponse{pieces: []string{
		respEvent("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","delta":"done"}`),
		respEvent("response.completed", `{"type":"response.completed","response":{"status":"completed"}}`),
	}}
	srv := newScriptServer(t,
		rawResponse{status: 429, header: map[string]string{"Content-Type": "application/json", "Retry-After": "7"},
			pieces: []string{`{"error":{"message":"Rate limit reached for gpt-5-codex","type":"requests","code":"rate_limit_exceeded"}}`}},
		rawResponse{status: 500, header: map[string]string{"Content-Type": "application/json"},
			pieces: []string{`{"error":{"message":"internal","type":"server_error"}}`}},
		ok)
	var waits []time.Duration
	var rec recorder
	comp, err := NewResponses(testConfig(srv.URL, &waits)).Stream(context.Background(), Request{Model: "m"}, rec.handler())
	if err != nil || comp.Message.Content != "done" {
		t.Fatalf("Stream = %q, %v; want done", comp.Message.Content, err)
	}
	if len(waits) != 2 || waits[0] != 7*time.Second {
		t.Errorf("waits = %v, want Retry-After's 7s then a backoff", waits)
	}
	if len(rec.retries) != 2 || rec.retries[0].reason != "rate limited" || rec.retries[1].reason != "server error 500" {
		t.Errorf("retries = %+v", rec.retries)
	}

	srv = newScriptServer(t, rawResponse{status: 400, header: map[string]string{"Content-Type": "application/json"},
		pieces: []string{`{"error":{"message":"This model's maximum context length is 272000 tokens. However, your messages resulted in 280000 tokens.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`}})
	_, err = NewResponses(testConfig(srv.URL, nil)).Stream(context.Background(), Request{Model: "m"}, StreamHandler{})
	var pe *ProviderError
	if !errors.As(err, &pe) || !errors.Is(err, ErrContextLength) || pe.ContextLimit != 272000 {
		t.Fatalf("err = %v, want ErrContextLength naming 272000", err)
	}
	if srv.requestCount() != 1 {
		t.Errorf("an overflow was sent %d times, want once", srv.requestCount())
	}
}

// TestResponsesCancelKeepsNoReasoning: a cancelled stream returns its
// partial text without reasoning items, which the API refuses alone.
func TestResponsesCancelKeepsNoReasoning(t *testing.T) {
	srv := newScriptServer(t, rawResponse{hang: true, pieces: []string{
		respEvent("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"id":"rs","type":"reasoning","encrypted_content":"E","summary":[]}}`),
		respEvent("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","delta":"part"}`),
	}})
	ctx, cancel := context.WithCancel(context.Background())
	comp, err := NewResponses(testConfig(srv.URL, nil)).Stream(ctx, Request{Model: "m"}, StreamHandler{
		Text: func(string) { cancel() },
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancellation", err)
	}
	if comp.Message.Content != "part" || comp.Message.Native != nil {
		t.Fatalf("partial = %s, want the text without reasoning items", dump(comp.Message))
	}
}

func TestResponsesRequestAuth(t *testing.T) {
	srv := newScriptServer(t, rawResponse{pieces: []string{respEvent("response.completed", `{"type":"response.completed","response":{}}`)}})
	cfg := testConfig(srv.URL+"/", nil)
	cfg.Reasoning = func(model string) Reasoning { return Reasoning{Effort: "xhigh-for-" + model} }
	if _, err := NewResponses(cfg).Stream(context.Background(), Request{Model: "m"}, StreamHandler{}); err != nil {
		t.Fatal(err)
	}
	r := srv.request(0)
	if r.method != http.MethodPost || r.path != "/responses" || r.header.Get("Authorization") != "Bearer test-key" {
		t.Fatalf("request %s %s auth %q", r.method, r.path, r.header.Get("Authorization"))
	}
	if !strings.Contains(string(r.body), `"reasoning":{"effort":"xhigh-for-m","summary":"auto"}`) {
		t.Errorf("the configured effort is not sent: %s", r.body)
	}
}

// requestsSeen is a Provider that answers "ok" and keeps the requests.
type requestsSeen struct {
	mu   sync.Mutex
	reqs []Request
}

func (p *requestsSeen) Stream(_ context.Context, req Request, _ StreamHandler) (Completion, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, req)
	return Completion{Message: Message{Role: RoleAssistant, Content: "summary: ok"}, FinishReason: "stop"}, nil
}

// TestRequestCarriesCacheKey: every request of an agent, turn after
// turn, carries its cache key; its compaction's summary request has a key
// of its own (another prefix).
func TestRequestCarriesCacheKey(t *testing.T) {
	p := &requestsSeen{}
	a := New(Config{Provider: p, Model: "gpt-5-codex", System: "sys", CacheKey: "sess-1/explore-2"})
	for _, prompt := range []string{"one", "two"} {
		if _, err := a.Run(context.Background(), prompt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	want := []string{"sess-1/explore-2", "sess-1/explore-2", "sess-1/explore-2/summary"}
	if len(p.reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(p.reqs), len(want))
	}
	for i, w := range want {
		if p.reqs[i].CacheKey != w {
			t.Errorf("request %d: key %q, want %q", i, p.reqs[i].CacheKey, w)
		}
	}
}
