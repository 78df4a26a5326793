package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/workspace"
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

// TestWindowFromOverflow checks that an overflow error naming the limit, in
// each server's words, teaches the agent its window for the rest of the
// session, and that the consumers hear of it.
func TestWindowFromOverflow(t *testing.T) {
	for _, style := range []string{scripted.StyleOpenAI, scripted.StyleVLLM, scripted.StyleLlamaCpp, scripted.StyleLMStudio} {
		t.Run(style, func(t *testing.T) {
			srv := scriptedtest.New(t, scripted.WithWindow("", scripted.Window{Tokens: 200, Style: style}))
			rec := &recorder{}
			a := newAgent(t, srv, rec, 0)
			_, err := a.Run(context.Background(), strings.Repeat("long prompt ", 200))
			if !errors.Is(err, agent.ErrContextLength) {
				t.Fatalf("err = %v, want ErrContextLength", err)
			}
			if got := a.ContextWindow(); got != 200 {
				t.Errorf("window after the overflow = %d, want 200", got)
			}
			if got := a.ContextWindowFrom(); got != agent.WindowFromOverflow {
				t.Errorf("window from %q, want %q", got, agent.WindowFromOverflow)
			}
			var learned bool
			for _, e := range rec.snapshot() {
				if c, ok := e.(agent.ContextReported); ok && c.Window == 200 && c.WindowFrom == agent.WindowFromOverflow {
					learned = c.Tokens > 200 && c.Model == "test-model"
				}
			}
			if !learned {
				t.Errorf("no ContextReported event with the learned window, a fill over it and the model: %v", rec.kinds())
			}
		})
	}
}

// TestContextReportedEachStep checks that the fill is reported after each
// model request's step and at the end of the run.
func TestContextReportedEachStep(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: "echo", Args: map[string]any{"x": 1}}}},
		{Text: "done"},
	}})
	rec := &recorder{}
	a := newAgent(t, srv, rec, 0, echoTool("echo", true))
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var fills []int
	for _, e := range rec.snapshot() {
		if c, ok := e.(agent.ContextReported); ok {
			fills = append(fills, c.Tokens)
		}
	}
	if len(fills) != 3 {
		t.Fatalf("fills %v, want 3 (two steps and the run's end)", fills)
	}
	if fills[1] <= fills[0] {
		t.Errorf("fills %v, want growth after the tool step", fills)
	}
}

// snapshot returns the events recorded so far.
func (r *recorder) snapshot() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

// TestSmallWindowReadFits checks that with a small window a read_file of a
// big file comes back sized to the window, so the next request fits, while
// the same read without a known window overflows it.
func TestSmallWindowReadFits(t *testing.T) {
	root := t.TempDir()
	var big strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&big, "line %d of a big file that no small window can hold whole\n", i)
	}
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, window := range map[string]int{"window known": 4096, "window unknown": 0} {
		t.Run(name, func(t *testing.T) {
			srv := scriptedtest.New(t, scripted.WithWindow("", scripted.Window{Tokens: 4096}))
			srv.Add(scripted.Conversation{Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{Name: "read_file", Args: map[string]any{"path": "big.txt"}}}},
				{Text: "read it"},
			}})
			rec := &recorder{}
			a := newAgent(t, srv, rec, 0, tools.NewReadFile(&tools.Env{WS: ws}))
			a.SetContextWindow(window)
			_, err := a.Run(context.Background(), "read big.txt")
			if window == 0 {
				if !errors.Is(err, agent.ErrContextLength) {
					t.Fatalf("err = %v, want the overflow the cap prevents", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			h := a.History()
			res := h[len(h)-2] // the tool result before the answer
			if res.Role != agent.RoleTool || len(res.Content) > a.ResultBudget()+300 || !strings.Contains(res.Content, "offset=") {
				t.Errorf("tool result of %d bytes (budget %d), want it cut with a way on:\n%.300s", len(res.Content), a.ResultBudget(), res.Content)
			}
			for _, e := range srv.Journal() {
				if e.Overflow {
					t.Errorf("a request of %d tokens passed the window", e.PromptTokens)
				}
			}
		})
	}
}

// TestCapResult checks the agent's own cut of a result that passes its
// budget, whatever tool made it.
func TestCapResult(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: "loud", Args: map[string]any{}}}},
		{Text: "ok"},
	}})
	loud := &fakeTool{name: "loud", readOnly: true, run: func(context.Context, json.RawMessage) tool.Result {
		return tool.Result{Content: strings.Repeat("é", 10000)}
	}}
	a := newAgent(t, srv, &recorder{}, 0, loud)
	a.SetContextWindow(8192)
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	h := a.History()
	got := h[len(h)-2].Content
	if len(got) > a.ResultBudget() || !utf8.ValidString(got) || !strings.Contains(got, "result cut to") {
		t.Errorf("result of %d bytes (budget %d), valid UTF-8 %v:\n%.200s", len(got), a.ResultBudget(), utf8.ValidString(got), got[len(got)-200:])
	}
}

func TestContextBreakdown(t *testing.T) {
	mcpTool := &fakeTool{name: "mcp__srv__lookup", readOnly: true}
	a := agent.New(agent.Config{
		Model:  "m",
		System: "base prompt of some length\n\n# Project instructions\n\nalways run the tests",
		Tools:  tool.NewRegistry(echoTool("echo", true), mcpTool),
	})
	turn := func(q, call, result, answer string) []agent.Message {
		return []agent.Message{
			{Role: agent.RoleUser, Content: q},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: call, Name: "echo", Arguments: `{}`}}},
			{Role: agent.RoleTool, ToolCallID: call, Name: "echo", Content: result},
			{Role: agent.RoleAssistant, Content: answer},
		}
	}
	var h []agent.Message
	h = append(h, turn("first question", "c1", strings.Repeat("old result ", 500), "first answer")...)
	h = append(h, turn("second question", "c2", "short", "second answer")...)
	h = append(h, turn("third question", "c3", "short", "third answer")...)
	a.SetHistory(h)
	b := a.ContextBreakdown("always run the tests", []string{"AGENTS.md"})
	if b.Memory != agent.EstimateTokens("always run the tests") || b.System <= 0 {
		t.Errorf("system %d, memory %d; want the memory counted apart", b.System, b.Memory)
	}
	if b.Builtins != 1 || b.MCPs != 1 || b.BuiltinTools <= 0 || b.MCPTools <= 0 {
		t.Errorf("tools %+v, want one built-in and one MCP tool", b)
	}
	if b.ResultCount != 3 || b.MessageCount != 9 {
		t.Errorf("%d results and %d messages, want 3 and 9", b.ResultCount, b.MessageCount)
	}
	sum := b.System + b.Memory + b.BuiltinTools + b.MCPTools + b.Messages + b.ToolResults
	if d := sum - b.Tokens; d < -4 || d > 4 {
		t.Errorf("parts sum to %d, the fill is %d", sum, b.Tokens)
	}
	// The first turn (with its big result) is older than the two kept.
	if first := agent.EstimateMessages(h[:4]); b.Compactable <= first/2 || b.Compactable > first {
		t.Errorf("compactable %d, want most of the first turn's %d", b.Compactable, first)
	}
}

// TestContextBreakdownAgreesWithCompact: what /context says a compaction
// would free is what /compact then says it freed, give or take half the
// summary's length asked for (the summary's real length is not known
// before): for histories of one to three turns, with and without a known
// window, and summaries from a line to the length asked. /compact finds
// nothing to compact exactly when /context names nothing to summarise.
// (/context once promised 362 tokens before a /compact of "2.8k → 2.8k".)
func TestContextBreakdownAgreesWithCompact(t *testing.T) {
	turn := func(q, result, answer string) []agent.Message {
		return []agent.Message{
			{Role: agent.RoleUser, Content: q},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c-" + q, Name: "echo", Arguments: `{}`}}},
			{Role: agent.RoleTool, ToolCallID: "c-" + q, Name: "echo", Content: result},
			{Role: agent.RoleAssistant, Content: answer},
		}
	}
	big := turn("first question", strings.Repeat("old result ", 500), "first answer")
	second := turn("second question", strings.Repeat("a middling result ", 60), "second answer")
	third := turn("third question", "short", "third answer")
	histories := map[string][]agent.Message{
		"three turns": append(append(append([]agent.Message(nil), big...), second...), third...),
		"two turns":   append(append([]agent.Message(nil), second...), third...),
		"one turn":    append([]agent.Message(nil), second...),
		"one message": {{Role: agent.RoleUser, Content: "hello"}},
	}
	for name, h := range histories {
		for _, window := range []int{0, 32768} {
			for _, long := range []bool{false, true} {
				t.Run(fmt.Sprint(name, window, long), func(t *testing.T) {
					probe := agent.New(agent.Config{Model: "m", System: testSystem, Tools: tool.NewRegistry(echoTool("echo", true))})
					probe.SetContextWindow(window)
					probe.SetHistory(h)
					b := probe.ContextBreakdown("", nil)
					summary := "Summary of the work so far."
					if long { // as long as asked: SummaryTokens tokens
						summary = strings.Repeat("s", b.SummaryTokens*4)
					}
					srv := scriptedtest.New(t)
					srv.Add(scripted.Conversation{Name: "summariser", Match: scripted.Match{SystemContains: "conversation summariser"}, Turns: []scripted.Turn{{Text: summary}}})
					a := agent.New(agent.Config{Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}), Model: "m",
						System: testSystem, Tools: tool.NewRegistry(echoTool("echo", true)), Emit: (&recorder{}).emit})
					a.SetContextWindow(window)
					a.SetHistory(h)
					ev, err := a.Compact(context.Background(), "")
					if (b.CompactMessages > 0) != (err == nil) {
						t.Fatalf("/context names %d messages to summarise; /compact: %v", b.CompactMessages, err)
					}
					if err != nil {
						return
					}
					if ev.Summarised != b.CompactMessages || b.CompactTokens != agent.EstimateMessages(h[:ev.Summarised]) {
						t.Errorf("/context says %d messages (%d tokens); /compact summarised %d", b.CompactMessages, b.CompactTokens, ev.Summarised)
					}
					if ev.TokensBefore != b.Tokens {
						t.Errorf("/compact starts from %d tokens, /context showed %d", ev.TokensBefore, b.Tokens)
					}
					if fill, _ := a.ContextFill(); fill != ev.TokensAfter {
						t.Errorf("/compact says %d tokens after; the gauge shows %d", ev.TokensAfter, fill)
					}
					freed := ev.TokensBefore - ev.TokensAfter
					if slack := b.SummaryTokens/2 + 2; freed < b.Compactable-slack || freed > b.Compactable+slack {
						t.Errorf("/context promised %d (summary asked: %d); /compact freed %d (%d → %d)", b.Compactable, b.SummaryTokens, freed, ev.TokensBefore, ev.TokensAfter)
					}
				})
			}
		}
	}
}

// TestParallelResultsFitTheWindow checks that the results of one message's
// parallel calls together take at most half a known window, each still
// within its own share.
func TestParallelResultsFitTheWindow(t *testing.T) {
	srv := scriptedtest.New(t, scripted.WithWindow("", scripted.Window{Tokens: 8192}))
	var calls []scripted.Call
	for i := range 8 {
		calls = append(calls, scripted.Call{Name: "loud", Args: map[string]any{"n": i}})
	}
	srv.Add(scripted.Conversation{Turns: []scripted.Turn{{ToolCalls: calls}, {Text: "ok"}}})
	loud := &fakeTool{name: "loud", readOnly: true, run: func(context.Context, json.RawMessage) tool.Result {
		return tool.Result{Content: strings.Repeat("x", 100_000)}
	}}
	a := newAgent(t, srv, &recorder{}, 0, loud)
	a.SetContextWindow(8192)
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatalf("run: %v", err)
	}
	total := 0
	for _, m := range a.History() {
		if m.Role == agent.RoleTool {
			total += len(m.Content)
		}
	}
	if half := 8192 / 2 * 4; total > half {
		t.Errorf("8 parallel results take %d bytes, over half the window (%d)", total, half)
	}
}

// TestCompactionComparesLikeWithLike: a compaction says what it freed by
// comparing two estimates, not the server's count of the request before
// (which holds the request's JSON too) with an estimate after it; so it
// never claims more than the history it summarised.
func TestCompactionComparesLikeWithLike(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "summariser", Match: scripted.Match{SystemContains: "conversation summariser"},
		Turns: []scripted.Turn{{Text: "Summary of the work so far."}}})
	var turns []scripted.Turn
	for i := range 3 {
		// The server counts far more than covey estimates.
		turns = append(turns, scripted.Turn{Text: fmt.Sprintf("answer %d: %s", i, strings.Repeat("words ", 40)), Usage: &scripted.Usage{Prompt: 9000 + i, Completion: 50}})
	}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: testSystem}, Turns: turns})
	a := agent.New(agent.Config{Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}), Model: "m",
		System: testSystem, Emit: (&recorder{}).emit})
	for _, q := range []string{"first", "second", "third"} {
		if _, err := a.Run(context.Background(), q+" question"); err != nil {
			t.Fatal(err)
		}
	}
	if fill, _ := a.ContextFill(); fill < 9000 {
		t.Fatalf("the gauge %d does not hold the server's count", fill)
	}
	h := a.History()
	b := a.ContextBreakdown("", nil)
	ev, err := a.Compact(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	old := agent.EstimateMessages(h[:ev.Summarised])
	if freed := ev.TokensBefore - ev.TokensAfter; freed > old || freed > b.Compactable+b.SummaryTokens/2+1 {
		t.Errorf("/compact says it freed %d (%d → %d) of a history of about %d summarised; /context said %d",
			freed, ev.TokensBefore, ev.TokensAfter, old, b.Compactable)
	}
	// Before is the count /context and the gauge showed; after is what the
	// gauge shows next.
	if ev.TokensBefore != b.Tokens {
		t.Errorf("/compact starts from %d, /context showed %d", ev.TokensBefore, b.Tokens)
	}
	if fill, _ := a.ContextFill(); fill != ev.TokensAfter || fill < 9000-old {
		t.Errorf("the gauge shows %d after a compaction that says %d → %d", fill, ev.TokensBefore, ev.TokensAfter)
	}
}
