package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestResponsesRequestBody(t *testing.T) {
	reasoning := `{"id":"rs_1","type":"reasoning","encrypted_content":"gAAA+/=<&>","summary":[]}`
	req := Request{
		Model: "gpt-5-codex",
		Messages: []Message{
			{Role: RoleSystem, Content: "You are covey."},
			{Role: RoleUser, Content: "read a.go & b.go"},
			{Role: RoleAssistant, Content: "Reading.", Native: rsNative(reasoning), ToolCalls: []ToolCall{
				{ID: "call_A", Name: "read_file", Arguments: `{"path":"a.go"}`},
				{ID: "", Name: "read_file", Arguments: ""},
				{ID: "call_C", Name: "glob", Arguments: `{}`},
			}},
			{Role: RoleTool, ToolCallID: "call_A", Content: "package a"},
			{Role: RoleTool, ToolCallID: "", Content: ""},
			// call_C was never answered (an interrupted run).
			{Role: RoleUser, Content: "go on"},
			// Another wire's items are not this wire's to send.
			{Role: RoleAssistant, Content: "ok", Reasoning: "thought", Native: &NativeItems{API: APIAnthropic, Items: []json.RawMessage{json.RawMessage(`{"type":"thinking"}`)}}},
		},
		Tools:     []ToolSpec{{Name: "glob", Description: "Find files.", Parameters: map[string]any{"type": "object", "properties": map[string]any{"pattern": map[string]any{"type": "string"}}}}, {Name: "ls"}},
		MaxTokens: 1000,
		CacheKey:  "session-1",
	}
	body, err := encodeResponsesRequest(req, "high")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-5-codex","instructions":"You are covey.","input":[` +
		`{"type":"message","role":"user","content":"read a.go & b.go"},` +
		reasoning + `,` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading."}]},` +
		`{"type":"function_call","call_id":"call_A","name":"read_file","arguments":"{\"path\":\"a.go\"}"},` +
		`{"type":"function_call","call_id":"call_2_1","name":"read_file","arguments":"{}"},` +
		`{"type":"function_call","call_id":"call_C","name":"glob","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_A","output":"package a"},` +
		`{"type":"function_call_output","call_id":"call_2_1","output":"(no output)"},` +
		`{"type":"function_call_output","call_id":"call_C","output":"(no result: the call was interrupted)"},` +
		`{"type":"message","role":"user","content":"go on"},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}],` +
		`"tools":[{"type":"function","name":"glob","description":"Find files.","parameters":{"properties":{"pattern":{"type":"string"}},"type":"object"},"strict":false},` +
		`{"type":"function","name":"ls","parameters":{"properties":{},"type":"object"},"strict":false}],` +
		`"stream":true,"store":false,"include":["reasoning.encrypted_content"],"prompt_cache_key":"session-1",` +
		`"reasoning":{"effort":"high","summary":"auto"},"max_output_tokens":1000}`
	if string(body) != want {
		t.Errorf("body:\n got %s\nwant %s", body, want)
	}
}

func TestResponsesReasoningParameter(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-5-codex": true, "gpt-5.1": true, "o3-mini": true, "o4-mini": true, "openai/gpt-oss-120b": true,
		"gpt-4.1": false, "gpt-4o": false, "qwen3-coder": false, "codex-mini-latest": true,
	} {
		body, err := encodeResponsesRequest(Request{Model: model}, "")
		if err != nil {
			t.Fatal(err)
		}
		r := bytes.Contains(body, []byte(`"reasoning":{"summary":"auto"}`))
		inc := bytes.Contains(body, []byte(`"include":["reasoning.encrypted_content"]`))
		if r != want || inc != want {
			t.Errorf("%s: reasoning sent %v, include sent %v, want %v (%s)", model, r, inc, want, body)
		}
	}
	// An effort in the config is sent to any model: the user knows it.
	body, _ := encodeResponsesRequest(Request{Model: "my-model"}, "low")
	if !bytes.Contains(body, []byte(`"reasoning":{"effort":"low","summary":"auto"}`)) {
		t.Errorf("effort not sent: %s", body)
	}
}

// TestResponsesPrefixStable: each turn's request begins with the previous
// request's bytes up to the end of its input, so the provider's prompt
// cache holds the whole conversation so far.
func TestResponsesPrefixStable(t *testing.T) {
	msgs := []Message{{Role: RoleSystem, Content: "sys"}, {Role: RoleUser, Content: "hi"}}
	tools := []ToolSpec{{Name: "ls", Description: "List.", Parameters: map[string]any{"type": "object", "b": 1, "a": 2}}}
	prev := ""
	for turn := range 4 {
		body, err := encodeResponsesRequest(Request{Model: "gpt-5", Messages: msgs, Tools: tools, CacheKey: "k"}, "")
		if err != nil {
			t.Fatal(err)
		}
		s := string(body)
		end := strings.Index(s, `],"tools"`)
		if prev != "" && !strings.HasPrefix(s, prev) {
			t.Fatalf("turn %d does not extend turn %d's input:\n%s\n%s", turn, turn-1, prev, s)
		}
		prev = s[:end]
		msgs = append(msgs,
			Message{Role: RoleAssistant, Native: rsNative(`{"type":"reasoning","encrypted_content":"E` + string(rune('0'+turn)) + `"}`),
				ToolCalls: []ToolCall{{ID: "c" + string(rune('0'+turn)), Name: "ls", Arguments: "{}"}}},
			Message{Role: RoleTool, ToolCallID: "c" + string(rune('0'+turn)), Content: "x"})
	}
}
