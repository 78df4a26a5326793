package sessionfile

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"covey/agent"
)

// decodeMessage must give what json.Unmarshal gives, on every input.
func checkDecodeMessage(t *testing.T, body []byte) {
	t.Helper()
	var want agent.Message
	wantErr := json.Unmarshal(body, &want)
	got, err := decodeMessage(body)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, json.Unmarshal's %v", body, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %#v, json.Unmarshal %#v", body, got, want)
	}
}

func TestDecodeMessage(t *testing.T) {
	msgs := []agent.Message{
		{Role: agent.RoleUser, Content: "hello"},
		{Role: agent.RoleUser, Content: strings.Repeat("a \"quoted\" line\twith tab\\ and / slash\n", 1000)},
		{Role: agent.RoleUser, Content: "ünïcödé 🙂 <html> & \u2028 \x01 control"},
		{Role: agent.RoleTool, Content: "result", ToolCallID: "c1", Name: "read_file"},
		{Role: agent.RoleAssistant, Content: "calling", ToolCalls: []agent.ToolCall{{ID: "c", Name: "grep", Arguments: `{"q":"x"}`}}},
		{Role: agent.RoleAssistant, Reasoning: "thinking"},
		{Role: agent.RoleUser},
	}
	for _, m := range msgs {
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeMessage(t, body)
		if m.Content != "" {
			if fm, ok := fastMessage(body); !ok && !strings.ContainsAny(m.Content, "\x01\u2028<&") {
				t.Errorf("%q: not taken by the fast path", body)
			} else if ok && fm.Content != m.Content {
				t.Errorf("fast path content %q, want %q", fm.Content, m.Content)
			}
		}
	}
	for _, body := range []string{
		`{"role":"user","content":"a\u0041b"}`,
		`{"role":"user","content":"a\x"}`,
		`{"role":"user","content":"unterminated`,
		`{"role":"user","content":"a"}x`,
		`{"role":"user","content":"a","content":"b"}`,
		`{"role":"user","content":"a","name":1}`,
		"{\"role\":\"user\",\"content\":\"\xff\xfe\"}",
		`{"role":"bogus","content":"a"}`,
		`{"role":"user","content":"tab	raw"}`,
		`{"role":"user","content":"a\\"}`,
		`{"role":"user","content":"a\"}`,
	} {
		checkDecodeMessage(t, []byte(body))
	}
}

func FuzzDecodeMessage(f *testing.F) {
	f.Add([]byte(`{"role":"user","content":"a\nb\"c"}`))
	f.Add([]byte(`{"role":"tool","content":"x","tool_call_id":"c","name":"n"}`))
	f.Add([]byte(`{"role":"user","content":"\u00e9"}`))
	f.Fuzz(func(t *testing.T, body []byte) { checkDecodeMessage(t, body) })
}
