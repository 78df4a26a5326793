package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools/tool"
)

// A tool's progress reports become ToolProgress events of its call, between
// its start and its end, and later sources in the registry are offered.
func TestLoopToolProgressAndSourceTools(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "long"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_1", Name: "mcp__srv__long", Args: map[string]any{}}}},
		{Text: "done"},
	}})
	rec := &recorder{}
	long := &fakeTool{name: "mcp__srv__long", run: func(ctx context.Context, _ json.RawMessage) tool.Result {
		tool.ReportProgress(ctx, tool.Progress{Message: "half way", Progress: 1, Total: 2})
		return tool.Result{Content: "ok"}
	}}
	reg := tool.NewRegistry()
	reg.AddSource(func() []tool.Tool { return []tool.Tool{long} })
	a := agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "m", Tools: reg, MaxTurns: 5, Emit: rec.emit,
	})
	if _, err := a.Run(context.Background(), "long run"); err != nil {
		t.Fatal(err)
	}
	var order []string
	var got agent.ToolProgress
	rec.mu.Lock()
	for _, e := range rec.events {
		switch e := e.(type) {
		case agent.ToolStarted, agent.ToolFinished:
			order = append(order, e.Kind())
		case agent.ToolProgress:
			order = append(order, e.Kind())
			got = e
		}
	}
	rec.mu.Unlock()
	if len(order) != 3 || order[1] != "tool_progress" {
		t.Fatalf("events %v", order)
	}
	if got.CallID != "call_1" || got.Name != "mcp__srv__long" || got.Progress.Message != "half way" || got.Progress.Total != 2 {
		t.Errorf("progress event %+v", got)
	}
	if j := srv.Journal(); len(j) == 0 || len(j[0].Tools) != 1 || j[0].Tools[0] != "mcp__srv__long" {
		t.Errorf("offered tools %+v", j)
	}
}
