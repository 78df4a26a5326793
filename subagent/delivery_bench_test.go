package subagent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"covey/tools/toolname"

	"covey/agent"
	"covey/agentdefs"
	"covey/internal/scripted"
	"covey/subagent"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/workspace"
)

// BenchmarkBackgroundDelivery measures what background children cost the
// parent, against references taken in the same run on the same scripted
// server:
//
//   - deliver_ms: from a background child's end (its ChildFinished) to the
//     parent's request carrying its outcome reaching the server, against
//     user_start_ms, from a user's Run call to its request reaching the
//     server at the same point of a conversation of the same shape. Equal
//     figures mean delivery adds no latency of its own. fg_result_ms is
//     the same span for a foreground child: from its end to the parent's
//     request carrying its task result.
//
//   - turn_ms_busy_bg vs turn_ms_alone: a parent turn (request, tool call,
//     answer) while a background child streams all along, against the same
//     turn with no child.
//
//     go test -run '^$' -bench BackgroundDelivery -benchtime 20x ./subagent/
func BenchmarkBackgroundDelivery(b *testing.B) {
	srv := scripted.New()
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	bg := map[string]any{"description": "bg", "subagent_type": "Explore", "prompt": "bench-bgchild", "run_in_background": true}
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "bench-deliver"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: toolname.Task, Args: bg}}},
		{Text: "started"},
		{Text: "delivered"},
		{Text: "delivered"},
	}})
	fg := map[string]any{"description": "fg", "subagent_type": "Explore", "prompt": "bench-fgchild"}
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "bench-reference"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: toolname.Task, Args: fg}}},
		{Text: "answered"},
		{Text: "second answered"},
	}})
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "bench-fgchild"}, Turns: []scripted.Turn{{Text: "child report"}}})
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "bench-bgchild"}, Turns: []scripted.Turn{{Text: "child report", Delay: 20 * time.Millisecond}}})
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "bench-streamer"}, Turns: []scripted.Turn{
		{Text: strings.Repeat("streaming text ", 400), ChunkSize: 4, ChunkDelay: 10 * time.Millisecond}, // ~100 deltas a second, a fast model
	}})
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "bench-turn"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: toolname.ReadFile, Args: map[string]string{"path": "a.go"}}}},
		{Text: "answer"},
	}})
	provider := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), MaxAttempts: 1})

	var mu sync.Mutex
	finished := map[string]time.Time{}
	m := subagent.NewManager(subagent.Config{
		Defs: agentdefs.NewSet(agentdefs.Builtins()...), Workspace: ws,
		Resolve: func(agentdefs.Definition) (agent.Provider, string, error) { return provider, "m", nil },
		Emit: func(e agent.Event) {
			if _, ok := e.(agent.ChildFinished); ok {
				mu.Lock()
				finished[e.From().AgentID] = time.Now()
				mu.Unlock()
			}
		},
	})
	defer m.Close()
	// newAgent is a top-level agent; each driver needs its own AgentID
	// (its inbox).
	newAgent := func(id string) *agent.Agent {
		src := agent.Source{AgentID: id}
		reg := tool.NewRegistry(tools.Builtins(&tools.Env{WS: ws})...)
		reg.Add(m.Tool(src))
		return agent.New(agent.Config{Provider: provider, Model: "main", Tools: reg, MaxTurns: 5, Source: src})
	}
	newMain := func() *agent.Agent { return newAgent(agent.MainAgentID) }
	// firstRequest returns when the first request after index `from` with
	// first user containing marker and the given turn reached the server.
	firstRequest := func(from int, marker string, turn int) time.Time {
		for _, e := range srv.Journal()[from:] {
			if strings.Contains(e.FirstUser, marker) && e.Turn == turn {
				return e.Time
			}
		}
		b.Fatalf("no request %q turn %d", marker, turn)
		return time.Time{}
	}

	b.Run("deliver", func(b *testing.B) {
		var deliver, userStart, foreground []time.Duration
		// One driver per conversation, as in a session; each iteration
		// starts the conversation afresh.
		a, ar := newMain(), newAgent("reference")
		d, dr := m.NewDriver(a, nil), m.NewDriver(ar, nil)
		defer d.Close()
		defer dr.Close()
		for b.Loop() {
			a.Reset()
			from := len(srv.Journal())
			mu.Lock()
			clear(finished)
			mu.Unlock()
			if _, err := d.Run(context.Background(), "bench-deliver"); err != nil {
				b.Fatal(err)
			}
			if _, err, ok := d.Wait(context.Background()); err != nil || !ok {
				b.Fatalf("no delivered turn: %v", err)
			}
			mu.Lock()
			var end time.Time
			for _, t := range finished {
				if t.After(end) {
					end = t
				}
			}
			mu.Unlock()
			deliver = append(deliver, firstRequest(from, "bench-deliver", 2).Sub(end))

			// The reference: a user's prompt at the same point of a
			// conversation of the same shape (a task call, its result, an
			// answer), from the Run call to its request at the server.
			ar.Reset()
			from = len(srv.Journal())
			mu.Lock()
			clear(finished)
			mu.Unlock()
			if _, err := dr.Run(context.Background(), "bench-reference"); err != nil {
				b.Fatal(err)
			}
			mu.Lock()
			for _, t := range finished {
				end = t
			}
			mu.Unlock()
			foreground = append(foreground, firstRequest(from, "bench-reference", 1).Sub(end))
			from = len(srv.Journal())
			start := time.Now()
			if _, err := dr.Run(context.Background(), "and a second prompt"); err != nil {
				b.Fatal(err)
			}
			userStart = append(userStart, firstRequest(from, "bench-reference", 2).Sub(start))
		}
		b.ReportMetric(ms(median(deliver)), "deliver_ms")
		b.ReportMetric(ms(median(foreground)), "fg_result_ms")
		b.ReportMetric(ms(median(userStart)), "user_start_ms")
	})

	b.Run("turn", func(b *testing.B) {
		var alone, busy []time.Duration
		for b.Loop() {
			a := newMain()
			start := time.Now()
			if _, err := a.Run(context.Background(), "bench-turn"); err != nil {
				b.Fatal(err)
			}
			alone = append(alone, time.Since(start))

			// The same turn while a background child streams.
			p := newMain()
			d := m.NewDriver(p, nil)
			task, _ := p.Tools().Get("task")
			ctx := tool.WithCallID(context.Background(), "bg")
			if r := task.Run(ctx, []byte(`{"description":"s","subagent_type":"Explore","prompt":"bench-streamer","run_in_background":true}`)); r.IsError {
				b.Fatal(r.Content)
			}
			// Measured once the child streams steadily, not while it starts.
			for len(m.Running()) == 0 || time.Since(start) < 50*time.Millisecond {
				time.Sleep(time.Millisecond)
			}
			a = newMain()
			start = time.Now()
			if _, err := a.Run(context.Background(), "bench-turn"); err != nil {
				b.Fatal(err)
			}
			busy = append(busy, time.Since(start))
			for _, id := range m.Running() {
				m.Cancel(id)
			}
			d.Close()
		}
		b.ReportMetric(ms(median(alone)), "turn_ms_alone")
		b.ReportMetric(ms(median(busy)), "turn_ms_busy_bg")
	})
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
