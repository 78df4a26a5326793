package agent

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"covey/tools/toolname"
)

var updateWire = flag.Bool("update-wire", false, "rewrite the testdata/wire_*.golden files")

// replayHistory is a conversation with every case the wire form must fix.
func replayHistory() []Message {
	return []Message{
		{Role: RoleSystem, Content: "You are covey."},
		{Role: RoleUser, Content: "list files"},
		{Role: RoleAssistant, Reasoning: "I should list the files first.", ToolCalls: []ToolCall{
			{ID: "call_Hj1", Name: toolname.ListDir, Arguments: `{"path":"."}`, Extra: map[string]json.RawMessage{
				"extra_content": json.RawMessage(`{"google": {"thought_signature": "c2lnMQ=="}}`),
				"id":            json.RawMessage(`"must not override"`),
			}},
			{ID: "", Name: toolname.ReadFile, Arguments: ""},
		}},
		{Role: RoleTool, ToolCallID: "call_Hj1", Name: toolname.ListDir, Content: "a.go\nb.go"},
		{Role: RoleTool, ToolCallID: "", Content: ""},
		{Role: RoleUser, Content: "now fix a.go"},
		{Role: RoleAssistant, Content: "Looking.", ToolCalls: []ToolCall{
			{ID: "functions.list_files:0", Name: toolname.Grep, Arguments: `{"q":"bug"}`},
			{ID: "call_Hj1", Name: toolname.ReadFile, Arguments: `{"path":"a.go"}`}, // an id reused by a careless server
		}},
		{Role: RoleTool, ToolCallID: "functions.list_files:0", Name: toolname.Grep, Content: "a.go:3: bug"},
		// the second call was interrupted: no result
		{Role: RoleUser, Content: "stop"},
		{Role: RoleAssistant, Content: "Stopped."},
	}
}

func TestWireGolden(t *testing.T) {
	tests := map[string]struct {
		mistral bool
	}{
		"wire_replay_default": {false},
		"wire_replay_mistral": {true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			body, err := encodeRequest(Request{Model: "m", Messages: replayHistory()}, tc.mistral)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, body, "", "  "); err != nil {
				t.Fatalf("body is not JSON: %v\n%s", err, body)
			}
			pretty.WriteByte('\n')
			path := filepath.Join("testdata", name+".golden")
			if *updateWire {
				if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update-wire to create it)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Errorf("wire body differs from %s:\n%s", path, pretty.Bytes())
			}
			checkWireRules(t, body, tc.mistral)
		})
	}
}

// checkWireRules checks the promises of the wire form on a request body,
// independently of the golden file.
func checkWireRules(t *testing.T, body []byte, mistral bool) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role             string           `json:"role"`
			Content          *string          `json:"content"`
			ReasoningContent string           `json:"reasoning_content"`
			ToolCallID       string           `json:"tool_call_id"`
			Name             string           `json:"name"`
			ToolCalls        []map[string]any `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	nine := regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)
	open := map[string]bool{}
	sawReasoning, sawExtra := false, false
	for i, m := range req.Messages {
		if i > 0 && m.Role == RoleUser && req.Messages[i-1].Role == RoleTool {
			t.Errorf("message %d: user right after tool", i)
		}
		if m.Role != RoleTool && len(open) > 0 {
			t.Errorf("message %d: calls without results before it: %v", i, open)
		}
		switch m.Role {
		case RoleAssistant:
			if m.ReasoningContent != "" {
				sawReasoning = true
			}
			if len(m.ToolCalls) > 0 && m.Content != nil && *m.Content == "" {
				t.Errorf("message %d: empty string content beside tool calls", i)
			}
			for _, c := range m.ToolCalls {
				id, _ := c["id"].(string)
				if id == "" || (mistral && !nine.MatchString(id)) {
					t.Errorf("message %d: bad call id %q", i, id)
				}
				if _, ok := c["extra_content"]; ok {
					sawExtra = true
				}
				open[id] = true
			}
		case RoleTool:
			if !open[m.ToolCallID] {
				t.Errorf("message %d: result for unknown call %q", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			if m.Content == nil || *m.Content == "" || m.Name == "" {
				t.Errorf("message %d: tool result without content or name", i)
			}
		}
	}
	if !sawReasoning || !sawExtra {
		t.Errorf("reasoning_content sent: %v, extra_content echoed: %v", sawReasoning, sawExtra)
	}
}

func TestMistralIDs(t *testing.T) {
	tests := map[string]struct {
		id   string
		keep bool
	}{
		"openai style": {"call_Hj1xYz", false},
		"kimi style":   {"functions.list_files:0", false},
		"already nine": {"aB3dE6gH9", true},
		"ollama style": {"call_ab12cd34", false},
		"eight alnum":  {"abcdefgh", false},
	}
	nine := regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			msgs := []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: tc.id, Name: "f", Arguments: "{}"}}}, {Role: RoleTool, ToolCallID: tc.id, Content: "x"}}
			a, b := wireMessages(msgs, true), wireMessages(msgs, true)
			got := a[0].ToolCalls[0].ID
			if !nine.MatchString(got) || a[1].ToolCallID != got || b[0].ToolCalls[0].ID != got {
				t.Fatalf("id %q became %q (result %q, second run %q)", tc.id, got, a[1].ToolCallID, b[0].ToolCalls[0].ID)
			}
			if (got == tc.id) != tc.keep {
				t.Errorf("kept = %v, want %v", got == tc.id, tc.keep)
			}
		})
	}
}

func TestWireMessagesRules(t *testing.T) {
	tests := map[string]struct {
		in   []Message
		want []wireMessage
	}{
		"plain text is unchanged": {
			in:   []Message{{Role: RoleUser, Content: "hi"}, {Role: RoleAssistant, Content: "hello"}},
			want: []wireMessage{{Role: RoleUser, Content: ptr("hi")}, {Role: RoleAssistant, Content: ptr("hello")}},
		},
		"empty assistant text stays a string": {
			in:   []Message{{Role: RoleAssistant}},
			want: []wireMessage{{Role: RoleAssistant, Content: ptr("")}},
		},
		"text beside calls is kept": {
			in: []Message{
				{Role: RoleAssistant, Content: "Let me look.", ToolCalls: []ToolCall{{ID: "a", Name: "f", Arguments: "{}"}}},
				{Role: RoleTool, ToolCallID: "a", Content: "ok"},
			},
			want: []wireMessage{
				{Role: RoleAssistant, Content: ptr("Let me look."), ToolCalls: []wireToolCall{{ID: "a", Name: "f", Arguments: "{}"}}},
				{Role: RoleTool, Content: ptr("ok"), ToolCallID: "a", Name: "f"},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := wireMessages(tc.in, false)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tc.want)
			if !bytes.Equal(gb, wb) {
				t.Errorf("wire:\n got %s\nwant %s", gb, wb)
			}
		})
	}
}

func TestIsMistral(t *testing.T) {
	tests := []struct {
		name, url string
		want      bool
	}{
		{"", "https://api.mistral.ai/v1", true},
		{"Mistral", "http://localhost:8000/v1", true},
		{"", "https://openrouter.ai/api/v1", false},
		{"openai", "", false},
	}
	for _, tc := range tests {
		if got := isMistral(tc.name, tc.url); got != tc.want {
			t.Errorf("isMistral(%q, %q) = %v, want %v", tc.name, tc.url, got, tc.want)
		}
	}
}

// TestMaxTokens: the answer cap the user set is sent as max_tokens; with
// none set the field is absent, so a server's own default stands (and a
// model that refuses max_tokens is not sent one).
func TestMaxTokens(t *testing.T) {
	for name, tc := range map[string]struct {
		cap  int
		want string
	}{
		"set":   {8192, `"max_tokens":8192`},
		"unset": {0, ""},
	} {
		t.Run(name, func(t *testing.T) {
			body, err := encodeRequest(Request{Model: "m", MaxTokens: tc.cap}, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(body), "max_tokens"); got != (tc.want != "") || !strings.Contains(string(body), tc.want) {
				t.Errorf("body %s: want %q", body, tc.want)
			}
		})
	}
}

// TestInputRoom: a request keeps room for the answer, at most a quarter of
// the window.
func TestInputRoom(t *testing.T) {
	for name, tc := range map[string]struct{ window, out, want int }{
		"no answer room known": {32000, 0, 32000},
		"room kept":            {32768, 8192, 24576},
		"at most a quarter":    {200000, 128000, 150000},
	} {
		t.Run(name, func(t *testing.T) {
			a := New(Config{MaxOutputTokens: tc.out})
			if got := a.inputRoom(tc.window); got != tc.want {
				t.Errorf("inputRoom(%d) with %d out = %d, want %d", tc.window, tc.out, got, tc.want)
			}
		})
	}
}
