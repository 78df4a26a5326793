package scripted

import (
	"context"
	"strings"
	"testing"

	"covey/agent"
)

// TestAnthropicWire: the server reads a Messages request (system blocks,
// thinking and tool_use, tool_result) in the chat request's shape, and
// streams a turn as Anthropic's events, which covey's own Anthropic client
// assembles into the scripted answer.
func TestAnthropicWire(t *testing.T) {
	s := NewTest(t)
	s.Add(Conversation{Name: "ant", Turns: []Turn{
		{Reasoning: "let me think", Text: "Reading both.", ToolCalls: []Call{{Name: "read_file", Args: map[string]any{"path": "a.go"}}, {Name: "now"}},
			Usage: &Usage{Prompt: 5000, Completion: 30, Cached: 4000, CacheWrite: 900}},
		{Text: "Done."},
	}})
	p := agent.NewAnthropic(agent.OpenAIConfig{BaseURL: s.URL(), APIKey: "ant-key"})
	msgs := []agent.Message{{Role: agent.RoleSystem, Content: "You are covey."}, {Role: agent.RoleUser, Content: "read a.go"}}
	var thought strings.Builder
	comp, err := p.Stream(context.Background(), agent.Request{Model: "claude-x", Messages: msgs,
		Tools: []agent.ToolSpec{{Name: "read_file"}, {Name: "now"}}}, agent.StreamHandler{Reasoning: func(d string) { thought.WriteString(d) }})
	if err != nil {
		t.Fatal(err)
	}
	m := comp.Message
	if m.Content != "Reading both." || thought.String() != "let me think" || len(m.ToolCalls) != 2 || m.ToolCalls[0].Arguments != `{"path":"a.go"}` ||
		!strings.HasPrefix(m.ToolCalls[0].ID, "toolu_") || m.ToolCalls[1].Arguments != "{}" || comp.FinishReason != "tool_calls" {
		t.Fatalf("completion = %+v", comp)
	}
	if comp.Usage != (agent.Usage{InputTokens: 5000, OutputTokens: 30, CachedTokens: 4000, CacheWriteTokens: 900}) {
		t.Errorf("usage = %+v", comp.Usage)
	}
	if items := m.Native.For(agent.APIAnthropic); len(items) != 1 || !strings.Contains(string(items[0]), `"signature":"sig-msg_`) {
		t.Fatalf("native = %+v", m.Native)
	}
	msgs = append(msgs, m,
		agent.Message{Role: agent.RoleTool, ToolCallID: m.ToolCalls[0].ID, Content: "package a"},
		agent.Message{Role: agent.RoleTool, ToolCallID: m.ToolCalls[1].ID, Content: "noon"})
	comp, err = p.Stream(context.Background(), agent.Request{Model: "claude-x", Messages: msgs}, agent.StreamHandler{})
	if err != nil || comp.Message.Content != "Done." || comp.FinishReason != "stop" {
		t.Fatalf("second turn = %+v, %v", comp, err)
	}
	j := s.Journal()
	e := j[1]
	if e.API != APIAnthropic || !e.HasAuth || e.Turn != 1 || e.System != "You are covey." || e.FirstUser != "read a.go" || e.Model != "claude-x" {
		t.Fatalf("entry = %+v", e)
	}
	var roles []string
	for _, m := range e.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,tool" || e.Messages[1].Reasoning != "let me think" || len(e.Messages[1].ToolCalls) != 2 ||
		e.Messages[2].Content != "package a" || e.Messages[3].ToolCallID != m.ToolCalls[1].ID {
		t.Errorf("messages = %+v", e.Messages)
	}
}

// TestAnthropicOverflowAndMaxTokens: a prompt past the model's window is
// refused in Anthropic's words, which covey reads as an overflow with the
// window; a request without max_tokens is refused, as the API does.
func TestAnthropicOverflowAndMaxTokens(t *testing.T) {
	s := NewTest(t, WithWindow("claude-x", Window{Tokens: 10}))
	s.Add(Conversation{Name: "ant", Turns: []Turn{{Text: "never"}}})
	p := agent.NewAnthropic(agent.OpenAIConfig{BaseURL: s.URL(), MaxAttempts: 1})
	_, err := p.Stream(context.Background(), agent.Request{Model: "claude-x", Messages: []agent.Message{{Role: agent.RoleUser, Content: strings.Repeat("long ", 50)}}}, agent.StreamHandler{})
	if err == nil || !strings.Contains(err.Error(), "prompt is too long") {
		t.Fatalf("err = %v, want Anthropic's overflow", err)
	}
	if _, err := parseAnthropicRequest([]byte(`{"model":"m","messages":[]}`)); err == nil || !strings.Contains(err.Error(), "max_tokens is required") {
		t.Fatalf("parse without max_tokens: %v", err)
	}
}
