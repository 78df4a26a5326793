package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"covey/agent"
	"covey/tools/tool"
)

// BenchmarkLongSessionPeak runs a 200-turn session whose tool results pass
// the window many times over and reports the largest request the scripted
// model received (its own count) against the window; it fails if one was
// over. Run it with: go test ./agent -run '^$' -bench LongSessionPeak -benchtime 1x.
func BenchmarkLongSessionPeak(b *testing.B) {
	const window, turns = 8000, 200
	for i := 0; i < b.N; i++ {
		srv, ls := longSession(b, window, false)
		rec := &recorder{}
		a := compactingAgent(srv, rec, window, bigTool(6000))
		for n := 1; n <= turns; n++ {
			if _, err := a.Run(context.Background(), fmt.Sprintf("[long %d] remember FACT-%d and read the big file", n, n)); err != nil {
				b.Fatalf("turn %d: %v", n, err)
			}
		}
		peak, refused, summaries, requests := ls.Stats()
		if peak > window || refused > 0 {
			b.Fatalf("peak request %d tokens of a %d-token window, %d refused", peak, window, refused)
		}
		b.ReportMetric(float64(peak), "peak_tokens")
		b.ReportMetric(float64(window), "window_tokens")
		b.ReportMetric(float64(len(compactions(rec))), "compactions")
		b.ReportMetric(float64(summaries), "summary_requests")
		b.ReportMetric(float64(requests), "requests")
		srv.Close()
	}
}

// summaryProvider answers every request with a short summary at once and
// counts the bytes it was sent: a compaction's own cost, without a network.
type summaryProvider struct {
	requests, bytes atomic.Int64
}

func (p *summaryProvider) Stream(_ context.Context, req agent.Request, _ agent.StreamHandler) (agent.Completion, error) {
	p.requests.Add(1)
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	p.bytes.Add(int64(n))
	return agent.Completion{Message: agent.Message{Role: agent.RoleAssistant, Content: "Summary: goals, decisions, files, todos."}, FinishReason: "stop"}, nil
}

// BenchmarkCompact measures one compaction (CPU, and the bytes its summary
// requests carry) against the length of the history, with a 32k window:
// go test ./agent -run '^$' -bench 'Compact$' -benchtime 1x.
func BenchmarkCompact(b *testing.B) {
	for _, turns := range []int{10, 100, 1000} {
		h := benchHistory(turns)
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			p := &summaryProvider{}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				a := agent.New(agent.Config{Provider: p, Model: "m", System: testSystem, Tools: tool.NewRegistry(bigTool(10)),
					ContextWindow: 32000, AutoCompact: agent.DefaultAutoCompact})
				a.SetHistory(h)
				if _, err := a.Compact(context.Background(), ""); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.bytes.Load())/float64(b.N), "req_bytes/op")
			b.ReportMetric(float64(p.requests.Load())/float64(b.N), "requests/op")
		})
	}
}

// benchHistory is turns user turns, each with a 4 KB tool result.
func benchHistory(turns int) []agent.Message {
	var h []agent.Message
	for i := 1; i <= turns; i++ {
		id := fmt.Sprintf("c%d", i)
		h = append(h,
			agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("turn %d: look at f%d.go", i, i)},
			agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)}}},
			agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: "read_file", Content: strings.Repeat("x", 4000)},
			agent.Message{Role: agent.RoleAssistant, Content: fmt.Sprintf("f%d.go holds the parser.", i)},
		)
	}
	return h
}
