package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools/tool"
)

// TestSteerDeliversBeforeNextRequest: a message queued while a tool runs
// enters the history as one user message (two queued messages joined),
// announced by its event, before the next request; one queued as the model
// answers without tools makes the run go on to answer it.
func TestSteerDeliversBeforeNextRequest(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "steer"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_1", Name: "slow", Args: "{}"}}},
		{Text: "unused"}, // the wire form's "(continuing)" makes the next request turn 2
		{Text: "answered both"},
	}})
	rec := &recorder{}
	var a *agent.Agent
	slow := &fakeTool{name: "slow", run: func(context.Context, json.RawMessage) tool.Result {
		a.Steer("first note", agent.ChildMessage{Text: "first note"})
		a.Steer("second note", agent.ChildMessage{Text: "second note"})
		return tool.Result{Content: "slow done"}
	}}
	a = newAgent(t, srv, rec, 10, slow)
	res, err := a.Run(context.Background(), "steer me")
	if err != nil || res.Answer != "answered both" {
		t.Fatalf("run = %+v, %v", res, err)
	}
	h := a.History()
	if last := h[len(h)-2]; last.Role != agent.RoleUser || last.Content != "first note\n\nsecond note" {
		t.Fatalf("delivered message = %+v", last)
	}
	var delivered []string
	for _, e := range rec.events {
		if m, ok := e.(agent.ChildMessage); ok {
			delivered = append(delivered, m.Text)
		}
	}
	if strings.Join(delivered, "|") != "first note|second note" {
		t.Fatalf("events = %v", delivered)
	}
	if len(a.TakeSteered()) != 0 {
		t.Fatal("delivered messages stayed queued")
	}

	// Queued while the model answers without tools: the run answers it too.
	var late *agent.Agent
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "late"}, Turns: []scripted.Turn{
		{Func: func(scripted.Request) scripted.Turn {
			late.Steer("late note", nil)
			return scripted.Turn{Text: "first answer"}
		}},
		{Text: "answered the late one"},
	}})
	late = newAgent(t, srv, &recorder{}, 10)
	res, err = late.Run(context.Background(), "late")
	if err != nil || res.Answer != "answered the late one" || res.Turns != 2 {
		t.Fatalf("late run = %+v, %v", res, err)
	}
	if h := late.History(); h[2].Role != agent.RoleUser || h[2].Content != "late note" {
		t.Fatalf("history = %+v", h)
	}
}

func TestBudgetStopsBeforeTheNextRequest(t *testing.T) {
	tests := map[string]struct {
		cfg  func(*agent.Config)
		want string
	}{
		"tokens": {cfg: func(c *agent.Config) { c.MaxTokens = 100 }, want: agent.StopBudget},
		"cost": {cfg: func(c *agent.Config) {
			c.MaxCost = 0.001
			c.Cost = agent.Prices{"test-model": {Input: 10, Output: 10}}.CostFunc()
		}, want: agent.StopBudget},
		"cost without prices never stops": {cfg: func(c *agent.Config) { c.MaxCost = 0.001 }, want: agent.StopOK},
		"under budget":                    {cfg: func(c *agent.Config) { c.MaxTokens = 1000 }, want: agent.StopOK},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "spend"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_1", Name: "echo", Args: "{}"}}, Usage: &scripted.Usage{Prompt: 80, Completion: 40}},
				{Text: "done"},
			}})
			cfg := agent.Config{
				Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}),
				Model:    "test-model", Tools: tool.NewRegistry(echoTool("echo", true)), MaxTurns: 5,
			}
			tc.cfg(&cfg)
			a := agent.New(cfg)
			res, err := a.Run(context.Background(), "spend it")
			if err != nil || res.Reason != tc.want {
				t.Fatalf("run = %+v, %v; want reason %s", res, err, tc.want)
			}
			if tc.want == agent.StopBudget && len(srv.Journal()) != 1 {
				t.Fatalf("%d requests, want 1: the budget was reached after the first", len(srv.Journal()))
			}
		})
	}
}

func TestHoldBlocksRequestsAndToolCalls(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "hold"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_1", Name: "echo", Args: "{}"}}},
		{Text: "done"},
	}})
	release := make(chan struct{})
	holds := make(chan struct{}, 8)
	a := agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "test-model", Tools: tool.NewRegistry(echoTool("echo", true)), MaxTurns: 5,
		Hold: func(ctx context.Context) error {
			holds <- struct{}{}
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	done := make(chan error, 1)
	go func() {
		_, err := a.Run(context.Background(), "hold on")
		done <- err
	}()
	<-holds
	time.Sleep(50 * time.Millisecond)
	if n := len(srv.Journal()); n != 0 {
		t.Fatalf("%d requests went out while held", n)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Held before each of the two requests and the one tool call.
	if n := len(holds) + 1; n != 3 {
		t.Fatalf("held %d times, want 3", n)
	}

	// A cancel while held ends the run as cancelled.
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "stuck"}, Turns: []scripted.Turn{{Text: "never"}}})
	stuck := agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}), Model: "test-model",
		Hold: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if res, err := stuck.Run(ctx, "stuck"); err == nil || res.Reason == agent.StopOK {
		t.Fatalf("held run = %+v, %v; want it cut off", res, err)
	}
}
