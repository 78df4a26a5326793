package sessionfile

import (
	"bytes"
	"encoding/json"
	"testing"

	"covey/tools/toolname"

	"covey/agent"
	"covey/tools/tool"
)

// FuzzLoad feeds random bytes as a session file: Read must never panic,
// and whatever it accepts must be a conversation a provider takes.
func FuzzLoad(f *testing.F) {
	h := `{"type":"session","id":"x","workspace":"/ws","created":"2026-01-01T00:00:00Z","model":"m","version":1}` + "\n"
	call := agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "a", Name: toolname.Grep, Arguments: "{}"}, {ID: "b", Name: toolname.Grep}}}
	seeds := []string{
		"",
		h,
		h + msgLine(agent.Message{Role: agent.RoleUser, Content: "hi"}) + msgLine(call),
		h + msgLine(call) + msgLine(agent.Message{Role: agent.RoleTool, ToolCallID: "b"}) + msgLine(agent.Message{Role: agent.RoleTool, ToolCallID: "z"}),
		h + eventLine(agent.ToolStarted{Source: childSrc, CallID: "1", Args: json.RawMessage(`{}`)}) + eventLine(agent.ChildStarted{Source: childSrc}),
		h + eventLine(agent.ToolFinished{Source: mainSrc, Result: tool.Result{Display: []tool.Todo{{Content: "x"}}}}) + `{"type":"clear"}` + "\n",
		h + `{"type":"event","event":{"type":"done","agent_id":"main"}}` + "\n" + `{"type":"message","message":{"ro`,
		h + `{"type":"model","model":"x"}` + "\n\n" + `{"type":"message","message":null}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = DecodeEvent(data) // may refuse, must not panic
		l, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if msg := checkHistory(l.Messages); msg != "" {
			t.Fatalf("loaded history is invalid: %s", msg)
		}
		n := 0
		for _, rec := range l.Replay {
			if (rec.Message == nil) == (rec.Event == nil) {
				t.Fatal("a record sets both or neither of Message and Event")
			}
			if rec.Message != nil {
				n++
			}
		}
		if n < len(l.Messages)-len(l.fix)-l.placeholders {
			t.Fatalf("replay holds %d messages, history %d", n, len(l.Messages))
		}
		// A second pass over what was accepted gives the same history.
		l2, err := Read(bytes.NewReader(data))
		if err != nil || len(l2.Messages) != len(l.Messages) {
			t.Fatal("Read is not deterministic")
		}
	})
}
