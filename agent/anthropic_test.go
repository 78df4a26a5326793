package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ant frames Anthropic events: "event: NAME" then its data.
func ant(events ...string) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(e), &head)
		out = append(out, "event: "+head.Type+"\ndata: "+e+"\n\n")
	}
	return out
}

const (
	antStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,` +
		`"usage":{"input_tokens":12,"cache_creation_input_tokens":100,"cache_read_input_tokens":3000,"output_tokens":1}}}`
	antPing = `{"type":"ping"}`
	antStop = `{"type":"message_stop"}`
)

func antDeltaText(i int, t string) string {
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%q}}`, i, t)
}

func antBlockStop(i int) string { return fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i) }

func antEnd(reason string, out int) string {
	return fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, reason, out)
}

// runAnthropicCases is runStreamCases on the Anthropic wire.
func runAnthropicCases(t *testing.T, cases map[string]streamCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := newScriptServer(t, rawResponse{pieces: tc.pieces})
			cfg := testConfig(srv.URL, nil)
			cfg.MaxAttempts = 1
			var rec recorder
			got, err := NewAnthropic(cfg).Stream(context.Background(), Request{Model: "claude-x"}, rec.handler())
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

// cacheUsage is the usage antStart and antEnd(…, 40) report: fresh input
// 12, cache writes 100, cache reads 3000.
var cacheUsage = Usage{InputTokens: 3112, OutputTokens: 40, CachedTokens: 3000, CacheWriteTokens: 100}

func native(items ...string) *NativeItems {
	n := &NativeItems{API: APIAnthropic}
	for _, it := range items {
		n.Items = append(n.Items, json.RawMessage(it))
	}
	return n
}

// TestStreamAnthropic is the Anthropic part of the wire table: every event
// kind, and the quirks of real streams.
func TestStreamAnthropic(t *testing.T) {
	thinkStart := `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`
	toolStart := func(i int, id, name string) string {
		return fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, id, name)
	}
	argsDelta := func(i int, js string) string {
		return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%q}}`, i, js)
	}
	runAnthropicCases(t, map[string]streamCase{
		"text with usage and cache counts": {
			pieces: ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				antPing, antDeltaText(0, "Hello"), antDeltaText(0, ", world"), antBlockStop(0), antEnd("end_turn", 40), antStop),
			want: Completion{Message: Message{Content: "Hello, world"}, FinishReason: "stop", Usage: cacheUsage},
			text: "Hello, world",
		},
		"thinking, signature and a tool use": {
			pieces: ant(antStart, thinkStart,
				`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me <look> at"}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" the file."}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}}`,
				antBlockStop(0),
				`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`, antDeltaText(1, "Reading."), antBlockStop(1),
				toolStart(2, "toolu_01", "read_file"), argsDelta(2, `{"path":`), argsDelta(2, `"a.go"}`), antBlockStop(2),
				antEnd("tool_use", 40), antStop),
			want: Completion{Message: Message{Content: "Reading.", Reasoning: "Let me <look> at the file.",
				ToolCalls: []ToolCall{{ID: "toolu_01", Name: "read_file", Arguments: `{"path":"a.go"}`}},
				Native:    native(`{"type":"thinking","thinking":"Let me \u003clook\u003e at the file.","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}`)},
				FinishReason: "tool_calls", Usage: cacheUsage},
			text: "Reading.", reasoning: "Let me <look> at the file.",
		},
		"parallel tool uses": {
			pieces: ant(antStart, toolStart(0, "toolu_a", "glob"), argsDelta(0, `{"pattern":"*.go"}`), antBlockStop(0),
				toolStart(1, "toolu_b", "grep"), argsDelta(1, `{"pattern":"x"}`), antBlockStop(1), antEnd("tool_use", 40), antStop),
			want: Completion{Message: calls(ToolCall{ID: "toolu_a", Name: "glob", Arguments: `{"pattern":"*.go"}`},
				ToolCall{ID: "toolu_b", Name: "grep", Arguments: `{"pattern":"x"}`}), FinishReason: "tool_calls", Usage: cacheUsage},
		},
		"quirk: pings everywhere and empty deltas": {
			pieces: ant(antPing, antStart, antPing, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				antDeltaText(0, ""), antPing, antDeltaText(0, "ok"), antDeltaText(0, ""), antBlockStop(0), antPing, antEnd("end_turn", 40), antPing, antStop),
			want: Completion{Message: Message{Content: "ok"}, FinishReason: "stop", Usage: cacheUsage},
			text: "ok",
		},
		"quirk: a thinking block with only a signature": {
			pieces: ant(antStart, thinkStart,
				`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`, antBlockStop(0),
				`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`, antDeltaText(1, "done"), antBlockStop(1),
				antEnd("end_turn", 40), antStop),
			want: Completion{Message: Message{Content: "done", Native: native(`{"type":"thinking","thinking":"","signature":"c2ln"}`)},
				FinishReason: "stop", Usage: cacheUsage},
			text: "done",
		},
		"quirk: tool input streamed as an empty object": {
			pieces: ant(antStart, toolStart(0, "toolu_n", "now"), argsDelta(0, ""), antBlockStop(0),
				toolStart(1, "toolu_m", "now"), antBlockStop(1), antEnd("tool_use", 40), antStop),
			want: Completion{Message: calls(ToolCall{ID: "toolu_n", Name: "now", Arguments: "{}"}, ToolCall{ID: "toolu_m", Name: "now", Arguments: "{}"}),
				FinishReason: "tool_calls", Usage: cacheUsage},
		},
		"redacted thinking kept as it came": {
			pieces: ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}`,
				antBlockStop(0), `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`, antDeltaText(1, "hi"), antBlockStop(1),
				antEnd("end_turn", 40), antStop),
			want: Completion{Message: Message{Content: "hi", Native: native(`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}`)},
				FinishReason: "stop", Usage: cacheUsage},
			text: "hi",
		},
		"quirk: an error event mid-stream": {
			pieces: ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, antDeltaText(0, "Partial"),
				`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			want:    Completion{Message: Message{Content: "Partial"}, Usage: Usage{InputTokens: 3112, OutputTokens: 1, CachedTokens: 3000, CacheWriteTokens: 100}},
			text:    "Partial",
			errKind: ErrServer, errText: "Overloaded",
		},
		"max_tokens is a cut-off": {
			pieces: ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, antDeltaText(0, "long"),
				antBlockStop(0), antEnd("max_tokens", 40), antStop),
			want: Completion{Message: Message{Content: "long"}, FinishReason: StopLength, Usage: cacheUsage},
			text: "long",
		},
		"refusal": {
			pieces: ant(antStart, antEnd("refusal", 40), antStop),
			want:   Completion{FinishReason: StopRefusal, Usage: cacheUsage},
		},
		"pause_turn": {
			pieces: ant(antStart, antEnd("pause_turn", 40), antStop),
			want:   Completion{FinishReason: StopPaused, Usage: cacheUsage},
		},
		"cut before message_stop and a stop reason": {
			pieces: ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, antDeltaText(0, "Par")),
			want:   Completion{Message: Message{Content: "Par"}, Usage: Usage{InputTokens: 3112, OutputTokens: 1, CachedTokens: 3000, CacheWriteTokens: 100}},
			text:   "Par", errKind: ErrStreamEndedEarly,
		},
		"a stop reason without message_stop is whole": {
			pieces: ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, antDeltaText(0, "ok"),
				antBlockStop(0), antEnd("end_turn", 40)),
			want: Completion{Message: Message{Content: "ok"}, FinishReason: "stop", Usage: cacheUsage},
			text: "ok",
		},
		"data without event lines": {
			pieces: sse(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, antDeltaText(0, "ok"),
				antBlockStop(0), antEnd("end_turn", 40), antStop),
			want: Completion{Message: Message{Content: "ok"}, FinishReason: "stop", Usage: cacheUsage},
			text: "ok",
		},
	})
}

// TestAnthropicRetries: 529 and an overloaded error before any answer are
// retried like 429 and 5xx; a too-long prompt is a context overflow with
// the window it names.
func TestAnthropicRetries(t *testing.T) {
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	ok := rawResponse{pieces: ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		antDeltaText(0, "ok"), antBlockStop(0), antEnd("end_turn", 40), antStop)}
	srv := newScriptServer(t,
		rawResponse{status: 529, header: map[string]string{"Content-Type": "application/json"}, pieces: []string{overloaded}},
		rawResponse{pieces: ant(antStart, overloaded)},
		rawResponse{status: 429, header: map[string]string{"Content-Type": "application/json", "Retry-After": "7"},
			pieces: []string{`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}},
		ok)
	var waits []time.Duration
	var rec recorder
	got, err := NewAnthropic(testConfig(srv.URL, &waits)).Stream(context.Background(), Request{Model: "claude-x"}, rec.handler())
	if err != nil || got.Message.Content != "ok" {
		t.Fatalf("Stream = %+v, %v; want ok after three retries", got, err)
	}
	if srv.requestCount() != 4 || len(waits) != 3 || waits[2] != 7*time.Second {
		t.Errorf("requests %d, waits %v; want 4 requests and the server's 7s last", srv.requestCount(), waits)
	}

	long := newScriptServer(t, rawResponse{status: 400, header: map[string]string{"Content-Type": "application/json"},
		pieces: []string{`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`}})
	_, err = NewAnthropic(testConfig(long.URL, nil)).Stream(context.Background(), Request{Model: "claude-x"}, StreamHandler{})
	var pe *ProviderError
	if !errors.Is(err, ErrContextLength) || !errors.As(err, &pe) || pe.ContextLimit != 200000 || long.requestCount() != 1 {
		t.Fatalf("err = %v (%+v), want a context overflow naming 200000, not retried", err, pe)
	}
}

func TestAnthropicURLAndHeaders(t *testing.T) {
	for _, base := range []string{"", "/", "/v1", "/v1/"} {
		srv := newScriptServer(t, rawResponse{pieces: ant(antStart, antEnd("end_turn", 1), antStop)})
		if _, err := NewAnthropic(testConfig(srv.URL+base, nil)).Stream(context.Background(), Request{Model: "m"}, StreamHandler{}); err != nil {
			t.Fatalf("base %q: %v", base, err)
		}
		got := srv.request(0)
		if got.path != "/v1/messages" {
			t.Errorf("base %q: path %s, want /v1/messages (not doubled)", base, got.path)
		}
		if got.header.Get("X-Api-Key") != "test-key" || got.header.Get("Anthropic-Version") != AnthropicVersion || got.header.Get("Authorization") != "" {
			t.Errorf("headers = %v", got.header)
		}
	}
	if u := NewAnthropic(OpenAIConfig{}).URL(); u != "https://api.anthropic.com/v1/messages" {
		t.Errorf("default URL = %s", u)
	}
}

// history is a conversation with thinking, parallel calls and their
// results, as the loop keeps it.
func antHistory() []Message {
	return []Message{
		{Role: RoleSystem, Content: "You are covey."},
		{Role: RoleUser, Content: "look at a.go & b.go"},
		{Role: RoleAssistant, Content: "Looking.", Reasoning: "think",
			Native: native(`{"type":"thinking","thinking":"I should <read> both.","signature":"sig/1+=="}`),
			ToolCalls: []ToolCall{{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"a.go"}`},
				{ID: "call:2", Name: "read_file", Arguments: `not json`}}},
		{Role: RoleTool, ToolCallID: "toolu_1", Name: "read_file", Content: "package a"},
		{Role: RoleTool, ToolCallID: "call:2", Name: "read_file", Content: ""},
	}
}

func TestAnthropicRequestBody(t *testing.T) {
	req := Request{Model: "claude-x", Messages: antHistory(), OutputRoom: 32000,
		Tools: []ToolSpec{{Name: "read_file", Description: "Read.", Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}, {Name: "now"}}}
	body, err := encodeAnthropic(req, Reasoning{Budget: 2048, Effort: "high"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"claude-x","max_tokens":32000,"tools":[` +
		`{"name":"read_file","description":"Read.","input_schema":{"properties":{"path":{"type":"string"}},"type":"object"}},` +
		`{"name":"now","input_schema":{"properties":{},"type":"object"},"cache_control":{"type":"ephemeral"}}],` +
		`"system":[{"type":"text","text":"You are covey.","cache_control":{"type":"ephemeral"}}],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"look at a.go & b.go","cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"I should <read> both.","signature":"sig/1+=="},{"type":"text","text":"Looking."},` +
		`{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.go"}},{"type":"tool_use","id":"call_2","name":"read_file","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package a"},` +
		`{"type":"tool_result","tool_use_id":"call_2","content":"(empty)","cache_control":{"type":"ephemeral"}}]}],` +
		`"thinking":{"type":"enabled","budget_tokens":2048},"output_config":{"effort":"high"},"stream":true}`
	if string(body) != want {
		t.Errorf("body:\n got %s\nwant %s", body, want)
	}
	// A thinking budget over the answer's room raises max_tokens past it.
	req.OutputRoom, req.MaxTokens = 0, 1000
	body, _ = encodeAnthropic(req, Reasoning{Budget: 4096})
	if !bytes.Contains(body, []byte(`"max_tokens":12288`)) {
		t.Errorf("max_tokens under a thinking budget: %s", body[:60])
	}
	// Without a cap or a known room, max_tokens is still sent.
	req.MaxTokens = 0
	body, _ = encodeAnthropic(req, Reasoning{})
	if !bytes.Contains(body, []byte(`"max_tokens":8192`)) || bytes.Contains(body, []byte(`"thinking":{`)) {
		t.Errorf("default max_tokens: %s", body)
	}
}

// stripCache removes every cache_control mark, to compare what the cache
// hashes.
func stripCache(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			delete(x, "cache_control")
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	out := map[string]json.RawMessage{}
	for k, val := range v.(map[string]any) {
		out[k], _ = json.Marshal(val)
	}
	return out
}

// TestAnthropicCacheBreakpoints: at most four marks, on the last tool, the
// system prompt and the last two user messages, moving forward each turn;
// everything before the previous turn's mark is the same bytes.
func TestAnthropicCacheBreakpoints(t *testing.T) {
	tools := []ToolSpec{{Name: "a"}, {Name: "b"}}
	h := antHistory()
	var prev []byte
	for turn := 0; turn < 4; turn++ {
		req := Request{Model: "claude-x", Messages: h, Tools: tools}
		body, err := encodeAnthropic(req, Reasoning{})
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(body, []byte(`"cache_control"`)); n != maxCacheBreakpoints {
			t.Fatalf("turn %d: %d breakpoints, want %d: %s", turn, n, maxCacheBreakpoints, body)
		}
		var parsed antRequestJSON
		_ = json.Unmarshal(body, &parsed)
		last := parsed.Messages[len(parsed.Messages)-1]
		if !bytes.Contains(last.Content[len(last.Content)-1], []byte("cache_control")) {
			t.Errorf("turn %d: the latest message carries no breakpoint", turn)
		}
		if prev != nil {
			a, b := stripCache(t, prev), stripCache(t, body)
			if !bytes.Equal(a["tools"], b["tools"]) || !bytes.Equal(a["system"], b["system"]) {
				t.Errorf("turn %d: tools or system changed", turn)
			}
			pm := strings.TrimSuffix(string(a["messages"]), "]")
			if !strings.HasPrefix(string(b["messages"]), pm) {
				t.Errorf("turn %d: the previous request's messages are not a prefix of this one's", turn)
			}
		}
		prev = body
		id := fmt.Sprintf("toolu_t%d", turn)
		h = append(h, Message{Role: RoleAssistant, Native: native(`{"type":"thinking","thinking":"t","signature":"s"}`),
			ToolCalls: []ToolCall{{ID: id, Name: "a", Arguments: "{}"}}},
			Message{Role: RoleTool, ToolCallID: id, Content: "r"})
	}
}

type antRequestJSON struct {
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
}

// TestAnthropicThinkingRoundTrip: what a stream's thinking block was is
// what the next request sends, before the tool use it preceded.
func TestAnthropicThinkingRoundTrip(t *testing.T) {
	sig := "EqQBCgIYAhIM+/=="
	srv := newScriptServer(t,
		rawResponse{pieces: ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a \"quoted\" <thought> & \u00e9"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig+`"}}`, antBlockStop(0),
			`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_9","name":"now","input":{}}}`, antBlockStop(1),
			antEnd("tool_use", 5), antStop)},
		rawResponse{pieces: ant(antStart, antEnd("end_turn", 1), antStop)})
	p := NewAnthropic(testConfig(srv.URL, nil))
	msgs := []Message{{Role: RoleUser, Content: "time?"}}
	comp, err := p.Stream(context.Background(), Request{Model: "m", Messages: msgs}, StreamHandler{})
	if err != nil {
		t.Fatal(err)
	}
	// Through the session file's JSON, as --continue reads it back.
	saved, _ := json.Marshal(comp.Message)
	var back Message
	if err := json.Unmarshal(saved, &back); err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, back, Message{Role: RoleTool, ToolCallID: "toolu_9", Content: "noon"})
	if _, err := p.Stream(context.Background(), Request{Model: "m", Messages: msgs}, StreamHandler{}); err != nil {
		t.Fatal(err)
	}
	var sent antRequestJSON
	_ = json.Unmarshal(srv.request(1).body, &sent)
	blocks := sent.Messages[1].Content
	wantThinking := `{"type":"thinking","thinking":"a \"quoted\" \u003cthought\u003e \u0026 é","signature":"` + sig + `"}`
	if len(blocks) != 2 || string(blocks[0]) != wantThinking || !bytes.Contains(blocks[1], []byte(`"tool_use"`)) {
		t.Fatalf("assistant blocks sent back = %s, want the thinking block %s then the tool use", blocks, wantThinking)
	}
}

func TestAnthropicWrongContentType(t *testing.T) {
	srv := newScriptServer(t, rawResponse{header: map[string]string{"Content-Type": "text/html"}, pieces: []string{"<html><title>Login</title></html>"}})
	cfg := testConfig(srv.URL, nil)
	_, err := NewAnthropic(cfg).Stream(context.Background(), Request{Model: "m"}, StreamHandler{})
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "web page") {
		t.Fatalf("err = %v", err)
	}
	_ = http.StatusOK
}

// TestPriceCache: cache reads and writes are priced at their own rates,
// and as input without them.
func TestPriceCache(t *testing.T) {
	u := cacheUsage // 12 fresh, 3000 read, 100 written, 40 out
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	want := (12*3 + 3000*0.3 + 100*3.75 + 40*15) / 1e6
	if got := p.Cost(u); fmt.Sprintf("%.9f", got) != fmt.Sprintf("%.9f", want) {
		t.Errorf("Cost = %v, want %v", got, want)
	}
	plain := Price{Input: 3, Output: 15}
	if got, want := plain.Cost(u), (3112*3+40*15)/1e6; fmt.Sprintf("%.9f", got) != fmt.Sprintf("%.9f", want) {
		t.Errorf("Cost without cache prices = %v, want %v", got, want)
	}
}

// TestAnthropicAuthNamesItsKey: a rejected key names ANTHROPIC_API_KEY,
// not OpenAI's.
func TestAnthropicAuthNamesItsKey(t *testing.T) {
	srv := newScriptServer(t, rawResponse{status: 401, header: map[string]string{"Content-Type": "application/json"},
		pieces: []string{`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}})
	_, err := NewAnthropic(testConfig(srv.URL, nil)).Stream(context.Background(), Request{Model: "m"}, StreamHandler{})
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "check ANTHROPIC_API_KEY (HTTP 401): invalid x-api-key") {
		t.Fatalf("err = %v", err)
	}
}

// TestAnthropicReusePrefixMarks: a question asked after tool results (it
// joins their user message) leaves the last tool_result marked, the one
// before the question, and the user message before it (the previous
// turn's write point); the question is not marked.
func TestAnthropicReusePrefixMarks(t *testing.T) {
	h := []Message{
		{Role: RoleSystem, Content: "sys"},
		{Role: RoleUser, Content: "first"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "toolu_1", Name: "a", Arguments: "{}"}}},
		{Role: RoleTool, ToolCallID: "toolu_1", Content: "r1"},
		{Role: RoleAssistant, Native: native(`{"type":"thinking","thinking":"t","signature":"s"}`), ToolCalls: []ToolCall{{ID: "toolu_2", Name: "a", Arguments: "{}"}}},
		{Role: RoleTool, ToolCallID: "toolu_2", Content: "r2"},
		{Role: RoleUser, Content: "QUESTION"},
	}
	body, err := encodeAnthropic(Request{Model: "claude-x", Messages: h, Tools: []ToolSpec{{Name: "a"}}, ReusePrefix: true}, Reasoning{})
	if err != nil {
		t.Fatal(err)
	}
	var parsed antRequestJSON
	if err := json.Unmarshal(body, &parsed); err != nil {
		t.Fatal(err)
	}
	marked := func(raw json.RawMessage) bool { return bytes.Contains(raw, []byte("cache_control")) }
	last := parsed.Messages[len(parsed.Messages)-1].Content
	if len(last) != 2 || !bytes.Contains(last[1], []byte("QUESTION")) || marked(last[1]) || !marked(last[0]) {
		t.Fatalf("the last user message: %s", last)
	}
	prevUser := parsed.Messages[len(parsed.Messages)-3].Content
	if !marked(prevUser[len(prevUser)-1]) || !bytes.Contains(prevUser[len(prevUser)-1], []byte("r1")) {
		t.Errorf("the previous turn's write point (r1) is not marked: %s", prevUser)
	}
	if n := bytes.Count(body, []byte(`"cache_control"`)); n != maxCacheBreakpoints {
		t.Errorf("%d breakpoints, want %d: %s", n, maxCacheBreakpoints, body)
	}
}
