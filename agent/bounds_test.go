package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools/tool"
)

// TestStreamCaps plays endless streams of each kind: the stream must end
// with a clear error at its cap, keeping at most the cap, and memory must
// stay bounded. (Without caps an endless text stream reached 2.95 GB.)
func TestStreamCaps(t *testing.T) {
	limits := agent.StreamLimits{MaxText: 64 << 10, MaxReasoning: 32 << 10, MaxToolArgs: 16 << 10, MaxToolCalls: 20, MaxMessage: 1 << 20}
	tests := map[string]struct {
		endless string
		want    string
		check   func(t *testing.T, m agent.Message)
	}{
		"text": {endless: "text", want: "the answer's text passed its 64 KB limit (max_text)", check: func(t *testing.T, m agent.Message) {
			if len(m.Content) != 64<<10 {
				t.Errorf("kept %d bytes of text, want the 64 KB cap", len(m.Content))
			}
		}},
		"reasoning": {endless: "reasoning", want: "the answer's reasoning passed its 32 KB limit (max_reasoning)", check: func(t *testing.T, m agent.Message) {
			if len(m.Reasoning) != 32<<10 {
				t.Errorf("kept %d bytes of reasoning, want the 32 KB cap", len(m.Reasoning))
			}
		}},
		"arguments": {endless: "arguments", want: "the arguments of tool call 1 (write_file) passed their 16 KB limit (max_tool_args)"},
		"calls":     {endless: "calls", want: "the answer passed its limit of 20 tool calls (max_tool_calls)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Turns: []scripted.Turn{{Endless: tc.endless, ChunkSize: 8}}})
			p := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), Limits: limits})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			comp, err := p.Stream(ctx, agent.Request{Model: "m"}, agent.StreamHandler{})
			if ctx.Err() != nil {
				t.Fatal("the endless stream was never stopped")
			}
			if !errors.Is(err, agent.ErrStreamLimit) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrStreamLimit saying %q", err, tc.want)
			}
			if tc.check != nil {
				tc.check(t, comp.Message)
			}
		})
	}
}

// TestStreamCapMessage: the whole message is bounded too, whatever mix of
// text and reasoning fills it.
func TestStreamCapMessage(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Turns: []scripted.Turn{{Endless: "text"}}})
	p := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), Limits: agent.StreamLimits{MaxMessage: 48 << 10}})
	comp, err := p.Stream(context.Background(), agent.Request{Model: "m"}, agent.StreamHandler{})
	if !errors.Is(err, agent.ErrStreamLimit) || !strings.Contains(err.Error(), "48 KB limit (max_message)") || len(comp.Message.Content) > 48<<10 {
		t.Fatalf("err = %v with %d bytes kept", err, len(comp.Message.Content))
	}
}

// TestStreamCapsMemory streams an endless answer into the default caps and
// checks the heap stays near them.
func TestStreamCapsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams megabytes")
	}
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Turns: []scripted.Turn{{Endless: "text", Text: strings.Repeat("x", 4096)}}})
	p := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()})
	var shown int
	comp, err := p.Stream(context.Background(), agent.Request{Model: "m"}, agent.StreamHandler{Text: func(d string) { shown += len(d) }})
	if !errors.Is(err, agent.ErrStreamLimit) {
		t.Fatalf("err = %v", err)
	}
	if len(comp.Message.Content) != agent.DefaultStreamLimits.MaxText || shown != len(comp.Message.Content) {
		t.Fatalf("kept %d, shown %d, want both %d", len(comp.Message.Content), shown, agent.DefaultStreamLimits.MaxText)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 256<<20 {
		t.Errorf("heap %d MB after a capped stream", ms.HeapAlloc>>20)
	}
}

// TestStreamKeepAlives: comments and empty deltas are not progress; the
// stream ends at the keep-alive limit however often they come, while a
// reasoning stream (progress) is never cut by it.
func TestStreamKeepAlives(t *testing.T) {
	for _, endless := range []string{"keepalive", "empty"} {
		t.Run(endless, func(t *testing.T) {
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Turns: []scripted.Turn{{Endless: endless, ChunkDelay: 20 * time.Millisecond}}})
			// The silence clock (3 s, far from any scheduling stall of a
			// loaded machine) never fires: something arrives every 20 ms.
			// Only the progress clock can end the stream.
			p := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), IdleTimeout: 3 * time.Second, KeepAliveTimeout: 4 * time.Second, MaxAttempts: 1})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := p.Stream(ctx, agent.Request{Model: "m"}, agent.StreamHandler{})
			if ctx.Err() != nil {
				t.Fatal("a keep-alive-only stream was never stopped")
			}
			if !errors.Is(err, agent.ErrIdleTimeout) || !strings.Contains(err.Error(), "no progress from the server for 4s") {
				t.Fatalf("err = %v, want no progress for 4s", err)
			}
		})
	}
	t.Run("reasoning is progress", func(t *testing.T) {
		srv := scriptedtest.New(t)
		srv.Add(scripted.Conversation{Turns: []scripted.Turn{{Endless: "reasoning", ChunkDelay: 10 * time.Millisecond}}})
		// Both clocks far longer than a delta's gap, even on a loaded
		// machine, and far shorter than the stream.
		p := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), IdleTimeout: 2 * time.Second, KeepAliveTimeout: 3 * time.Second,
			Limits: agent.StreamLimits{MaxReasoning: 4200}})
		_, err := p.Stream(context.Background(), agent.Request{Model: "m"}, agent.StreamHandler{})
		// 600 deltas of 7 bytes at 10 ms: six seconds or more, past
		// both timeouts, which every delta pushes back.
		if !errors.Is(err, agent.ErrStreamLimit) {
			t.Fatalf("err = %v, want the reasoning cap (not a timeout)", err)
		}
	})
}

// TestToolResultsBudget: forty parallel calls of 100 KB each in one
// message share one budget, so the next request stays near it; the small
// result keeps everything and every cut result says why.
func TestToolResultsBudget(t *testing.T) {
	srv := scriptedtest.New(t)
	var calls []scripted.Call
	for i := range 40 {
		calls = append(calls, scripted.Call{Name: "big", Args: map[string]any{"n": i}})
	}
	calls = append(calls, scripted.Call{Name: "small", Args: map[string]any{}})
	srv.Add(scripted.Conversation{Turns: []scripted.Turn{{ToolCalls: calls}, {Text: "done"}}})
	reg := tool.NewRegistry()
	line := strings.Repeat("y", 99) + "\n"
	reg.Add(&fakeTool{name: "big", readOnly: true, run: func(context.Context, json.RawMessage) tool.Result {
		return tool.Result{Content: strings.Repeat(line, 1000)}
	}})
	reg.Add(&fakeTool{name: "small", readOnly: true, run: func(context.Context, json.RawMessage) tool.Result {
		return tool.Result{Content: "SMALL RESULT"}
	}})
	var kept []agent.Message
	a := agent.New(agent.Config{Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}), Model: "m", Tools: reg,
		ToolResultsBudget: 256 << 10, OnMessage: func(m agent.Message) { kept = append(kept, m) }})
	if _, err := a.Run(context.Background(), "read everything"); err != nil {
		t.Fatal(err)
	}
	total, cut := 0, 0
	for _, m := range kept {
		if m.Role != agent.RoleTool {
			continue
		}
		total += len(m.Content)
		if strings.Contains(m.Content, "tool results of this message came to") {
			cut++
		}
		if m.Name == "small" && m.Content != "SMALL RESULT" {
			t.Errorf("the small result was changed: %q", m.Content)
		}
	}
	if total > 256<<10 || cut != 40 {
		t.Fatalf("results total %d bytes with %d cut, want at most 256 KB with 40 cut", total, cut)
	}
	j := srv.Journal()
	if len(j) != 2 || len(j[1].Body) > 300<<10 {
		t.Fatalf("second request of %d bytes", len(j[len(j)-1].Body))
	}
}

// TestStreamCapHeldBlanks: blanks the think splitter holds back (waiting
// to see whether <think> follows) are bounded like text.
func TestStreamCapHeldBlanks(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Turns: []scripted.Turn{{Endless: "text", Text: "  \n  \n"}}})
	p := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), Limits: agent.StreamLimits{MaxText: 16 << 10}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := p.Stream(ctx, agent.Request{Model: "m"}, agent.StreamHandler{}); !errors.Is(err, agent.ErrStreamLimit) {
		t.Fatalf("err = %v, want the text cap", err)
	}
}
