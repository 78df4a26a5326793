package subagent

import (
	"testing"

	"covey/agent"
)

func TestForkHistory(t *testing.T) {
	user := agent.Message{Role: agent.RoleUser, Content: "find it"}
	answer := agent.Message{Role: agent.RoleAssistant, Content: "done"}
	calls := agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
		{ID: "c1", Name: "read_file", Arguments: "{}"}, {ID: "c2", Name: "task", Arguments: "{}"},
	}}
	tests := map[string]struct {
		parent []agent.Message
		own    string
		// want are the roles and tool_call_ids after the parent's messages.
		added []string
	}{
		"empty":                         {nil, "c2", nil},
		"ends with an answer":           {[]agent.Message{user, answer}, "c2", nil},
		"ends with the calls":           {[]agent.Message{user, calls}, "c2", []string{"c1", "c2"}},
		"the call is none of the calls": {[]agent.Message{user, calls}, "other", []string{"c1", "c2"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			h := forkHistory(tt.parent, tt.own)
			if len(h) != len(tt.parent)+len(tt.added) {
				t.Fatalf("%d messages, want %d", len(h), len(tt.parent)+len(tt.added))
			}
			for i := range tt.parent {
				if h[i].Role != tt.parent[i].Role || h[i].Content != tt.parent[i].Content {
					t.Errorf("message %d changed: %+v", i, h[i])
				}
			}
			for i, id := range tt.added {
				m := h[len(tt.parent)+i]
				if m.Role != agent.RoleTool || m.ToolCallID != id || m.Content == "" {
					t.Errorf("added %d: %+v", i, m)
				}
				if own := m.Content == "[this call started you, a forked subagent: your parent waits for your report]"; own != (id == tt.own) {
					t.Errorf("added %d for %s: %q", i, id, m.Content)
				}
			}
			if len(tt.parent) > 0 && &h[0] == &tt.parent[0] {
				t.Error("the parent's history is shared, not copied")
			}
		})
	}
}
