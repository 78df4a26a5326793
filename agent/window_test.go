package agent_test

import (
	"context"
	"testing"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestContextFill checks the fill of the next request: an estimate of the
// whole request before any usage is known, then the server's count of the
// last prompt plus an estimate of what was added since, and an estimate
// again once the history is replaced.
func TestContextFill(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{
		Match: scripted.Match{FirstUser: "hello"},
		Turns: []scripted.Turn{{Text: "Hello back, with a somewhat longer answer to count.", Usage: &scripted.Usage{Prompt: 1000, Completion: 12}}},
	})
	rec := &recorder{}
	a := newAgent(t, srv, rec, 0, echoTool("echo", true))
	a.SetContextWindow(8192)

	before, window := a.ContextFill()
	if window != 8192 {
		t.Fatalf("window = %d, want 8192", window)
	}
	if before <= 0 {
		t.Fatalf("fill before any request = %d, want an estimate > 0", before)
	}

	if _, err := a.Run(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	h := a.History()
	want := 1000 + agent.EstimateMessage(h[len(h)-1]) // the answer came after the counted prompt
	if got, _ := a.ContextFill(); got != want {
		t.Errorf("fill after a counted request = %d, want %d (prompt 1000 + the answer)", got, want)
	}

	a.SetHistory(h[:1])
	got, _ := a.ContextFill()
	if got >= 1000 || got <= 0 {
		t.Errorf("fill after SetHistory = %d, want a fresh estimate (under the old count 1000)", got)
	}
	a.Reset()
	if empty, _ := a.ContextFill(); empty >= got {
		t.Errorf("fill after Reset = %d, want less than with one message (%d)", empty, got)
	}
}

func TestEstimateMessage(t *testing.T) {
	tests := map[string]struct {
		m    agent.Message
		want int
	}{
		"empty":   {agent.Message{Role: agent.RoleUser}, 4},
		"text":    {agent.Message{Role: agent.RoleUser, Content: "12345678"}, 4 + 2},
		"rounded": {agent.Message{Role: agent.RoleUser, Content: "123456789"}, 4 + 3},
		"call": {agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{Name: "glob", Arguments: `{"a":1}`}}},
			4 + 4 + 1 + 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := agent.EstimateMessage(tc.m); got != tc.want {
				t.Errorf("EstimateMessage = %d, want %d", got, tc.want)
			}
		})
	}
}
