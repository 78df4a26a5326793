package agent_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"covey/agent"
	"covey/hooks"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools/tool"
)

// bind returns the hooks of c for the main agent, run in dir.
func bind(dir string, c hooks.Config) *hooks.Binding {
	r := hooks.NewRunner(c.Hooks("test", hooks.ScopeUser), hooks.RunnerOptions{Dir: dir})
	return &hooks.Binding{Runner: r, StopEvent: hooks.Stop, Base: func() hooks.Input { return hooks.Input{Cwd: dir} }}
}

func cmd(event, matcher, command string) hooks.Config {
	return hooks.Config{event: {{Matcher: matcher, Hooks: []hooks.Command{{Command: command}}}}}
}

func hookedAgent(t *testing.T, srv *scripted.Server, h agent.Hooks, ts ...tool.Tool) *agent.Agent {
	t.Helper()
	return agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "test-model", MaxTurns: 10,
		Tools: tool.NewRegistry(ts...),
		Hooks: h,
	})
}

// TestStopHookMakesTheAgentGoOn: a Stop hook that exits 2 the first time
// makes the agent answer its stderr; the second time (stop_hook_active) it
// lets it stop.
func TestStopHookMakesTheAgentGoOn(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "finish"}, Turns: []scripted.Turn{
		{Text: "Done, I think."},
		{Text: "Tests run now: all pass."},
	}})
	dir := t.TempDir()
	h := bind(dir, cmd(hooks.Stop, "", `grep -q '"stop_hook_active":true' && exit 0; echo 'run the tests first' >&2; exit 2`))
	res, err := hookedAgent(t, srv, h).Run(context.Background(), "finish the job")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "Tests run now: all pass." || res.Turns != 2 {
		t.Fatalf("result %+v", res)
	}
	j := srv.Journal()
	last := j[len(j)-1].Messages
	if m := last[len(last)-1]; m.Role != "user" || m.Content != "run the tests first" {
		t.Errorf("the model's next instruction = %+v", m)
	}
}

// TestPostToolUseFeedbackAndHalt: what a PostToolUse hook says reaches the
// model with the result; continue false ends the run without asking the
// model again.
func TestPostToolUseFeedbackAndHalt(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "edit"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "c1", Name: "echo", Args: map[string]any{"path": "a.go"}}}},
		{ToolCalls: []scripted.Call{{ID: "c2", Name: "echo", Args: map[string]any{"path": "stop.go"}}}},
		{Text: "never asked"},
	}})
	dir := t.TempDir()
	h := bind(dir, cmd(hooks.PostToolUse, "echo",
		`if grep -q stop.go; then echo '{"continue":false,"stopReason":"enough"}'; else echo 'gofmt: a.go reformatted' >&2; exit 2; fi`))
	res, err := hookedAgent(t, srv, h, echoTool("echo", false)).Run(context.Background(), "edit things")
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 2 || res.Reason != agent.StopOK {
		t.Errorf("result %+v: the run went on after continue false", res)
	}
	msgs := toolMessages(t, srv, 1)
	if len(msgs) != 1 || !strings.Contains(msgs[0].Content, "echo got") || !strings.Contains(msgs[0].Content, "gofmt: a.go reformatted") {
		t.Errorf("tool message = %+v", msgs)
	}
	if n := len(srv.Journal()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// benchCall runs one echo call through the loop's tool path with h.
func benchCall(b *testing.B, h agent.Hooks) {
	a := agent.New(agent.Config{Tools: tool.NewRegistry(echoTool("echo", true)), Hooks: h})
	args := json.RawMessage(`{"path":"a.go"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		agent.RunToolForBench(context.Background(), a, agent.ToolCall{ID: "c", Name: "echo", Arguments: string(args)})
	}
}

// BenchmarkToolCallHooks compares one tool call with no hook configured,
// with hooks for other events only (nothing measurable should change),
// and with a no-op PreToolUse hook (at most the cost of one process
// start: compare BenchmarkProcessStart).
func BenchmarkToolCallHooks(b *testing.B) {
	dir := b.TempDir()
	b.Run("no-hooks", func(b *testing.B) { benchCall(b, nil) })
	b.Run("other-events-only", func(b *testing.B) { benchCall(b, bind(dir, cmd(hooks.Stop, "", "true"))) })
	b.Run("noop-PreToolUse", func(b *testing.B) { benchCall(b, bind(dir, cmd(hooks.PreToolUse, "", "true"))) })
}

// BenchmarkProcessStart starts /bin/true through /bin/sh -c, as a hook is
// started: the floor a hook's cost is measured against.
func BenchmarkProcessStart(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		c := exec.Command("/bin/sh", "-c", "true")
		c.Dir = filepath.Clean(dir)
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
