package scripted

import "testing"

func TestDefaultConversation(t *testing.T) {
	s := NewTest(t)
	s.Add(DefaultConversation())
	tool := map[string]any{"role": "tool", "tool_call_id": "call_1", "name": "glob", "content": "go.mod"}
	call := map[string]any{"role": "assistant", "tool_calls": []map[string]any{
		{"id": "call_1", "type": "function", "function": map[string]any{"name": "glob", "arguments": `{"pattern":"*"}`}},
	}}
	tests := map[string]struct {
		msgs     []map[string]any
		wantText string
		wantCall string
	}{
		"greeting": {
			msgs:     []map[string]any{{"role": "user", "content": "hi"}},
			wantText: "Hello from the scripted server.",
		},
		"list files calls glob": {
			msgs:     []map[string]any{{"role": "user", "content": "Please List Files here"}},
			wantCall: `glob {"pattern":"*"}`,
		},
		"tool result is reported": {
			msgs:     []map[string]any{{"role": "user", "content": "list files"}, call, tool},
			wantText: "The glob tool answered:\n\ngo.mod",
		},
		"later greeting": {
			msgs:     []map[string]any{{"role": "user", "content": "list files"}, call, tool, {"role": "assistant", "content": "x"}, {"role": "user", "content": "thanks"}},
			wantText: "Hello from the scripted server.",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := assemble(t, readAll(t, post(t, s, messagesBody(t, "m", tc.msgs...))))
			var gotCall string
			if len(got.calls) == 1 {
				gotCall = got.calls[0].Name + " " + got.calls[0].Args.(string)
			}
			if got.text != tc.wantText || gotCall != tc.wantCall {
				t.Errorf("text %q call %q, want %q %q", got.text, gotCall, tc.wantText, tc.wantCall)
			}
		})
	}
}
