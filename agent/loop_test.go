package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools/tool"
)

// fakeTool is a tool whose behaviour each test decides.
type fakeTool struct {
	name     string
	readOnly bool
	run      func(ctx context.Context, args json.RawMessage) tool.Result
}

func (f *fakeTool) Name() string           { return f.name }
func (f *fakeTool) Description() string    { return "test tool " + f.name }
func (f *fakeTool) Schema() map[string]any { return map[string]any{"type": "object"} }
func (f *fakeTool) ReadOnly() bool         { return f.readOnly }
func (f *fakeTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	return f.run(ctx, args)
}

func echoTool(name string, readOnly bool) *fakeTool {
	return &fakeTool{name: name, readOnly: readOnly, run: func(_ context.Context, args json.RawMessage) tool.Result {
		return tool.Result{Content: name + " got " + string(args), Summary: "ok"}
	}}
}

// recorder collects events; safe for concurrent emitters.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) emit(e agent.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Kind())
	}
	return out
}

func newAgent(t *testing.T, srv *scripted.Server, rec *recorder, maxTurns int, ts ...tool.Tool) *agent.Agent {
	t.Helper()
	return agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "test-model",
		System:   "You are a test agent.",
		Tools:    tool.NewRegistry(ts...),
		MaxTurns: maxTurns,
		Emit:     rec.emit,
	})
}

// toolMessages returns the tool messages of the journal entry of turn n.
func toolMessages(t *testing.T, srv *scripted.Server, turn int) []scripted.Message {
	t.Helper()
	for _, e := range srv.Journal() {
		if e.Turn == turn {
			var out []scripted.Message
			for _, m := range e.Messages {
				if m.Role == "tool" {
					out = append(out, m)
				}
			}
			return out
		}
	}
	t.Fatalf("no request for turn %d in the journal", turn)
	return nil
}

func TestLoopToolRoundTrip(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "round trip"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_1", Name: "echo", Args: map[string]any{"path": "a.go"}}}},
		{Text: "The file says hi."},
	}})
	rec := &recorder{}
	a := newAgent(t, srv, rec, 10, echoTool("echo", true))
	res, err := a.Run(context.Background(), "round trip please")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "The file says hi." || res.Reason != agent.StopOK || res.Turns != 2 || res.ToolCalls != 1 {
		t.Fatalf("result = %+v", res)
	}
	msgs := toolMessages(t, srv, 1)
	if len(msgs) != 1 || msgs[0].ToolCallID != "call_1" || !strings.Contains(msgs[0].Content, `echo got {"path":"a.go"}`) {
		t.Fatalf("tool messages sent back = %+v", msgs)
	}
	kinds := strings.Join(rec.kinds(), ",")
	for _, want := range []string{"tool_started", "tool_finished", "usage", "turn_finished", "text", "done"} {
		if !strings.Contains(kinds, want) {
			t.Errorf("events %s lack %s", kinds, want)
		}
	}
	if res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 {
		t.Errorf("usage not recorded: %+v", res.Usage)
	}
}

func TestLoopParallelCallsKeepCallOrder(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "parallel"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{
			{ID: "call_a", Name: "first", Args: "{}"},
			{ID: "call_b", Name: "second", Args: "{}"},
			{ID: "call_c", Name: "writer", Args: "{}"},
		}},
		{Text: "done"},
	}})
	// first waits until second has run: sequential execution would deadlock
	// (and fail by the context deadline), so finishing proves concurrency.
	secondRan := make(chan struct{})
	first := &fakeTool{name: "first", readOnly: true, run: func(ctx context.Context, _ json.RawMessage) tool.Result {
		select {
		case <-secondRan:
			return tool.Result{Content: "first result"}
		case <-ctx.Done():
			return tool.Errorf("first never saw second run")
		}
	}}
	second := &fakeTool{name: "second", readOnly: true, run: func(context.Context, json.RawMessage) tool.Result {
		close(secondRan)
		return tool.Result{Content: "second result"}
	}}
	var writerSawBoth bool
	writer := &fakeTool{name: "writer", run: func(context.Context, json.RawMessage) tool.Result {
		select {
		case <-secondRan:
			writerSawBoth = true
		default:
		}
		return tool.Result{Content: "writer result"}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a := newAgent(t, srv, &recorder{}, 10, first, second, writer)
	if _, err := a.Run(ctx, "parallel please"); err != nil {
		t.Fatal(err)
	}
	msgs := toolMessages(t, srv, 1)
	var got []string
	for _, m := range msgs {
		got = append(got, m.ToolCallID+"="+m.Content)
	}
	want := []string{"call_a=first result", "call_b=second result", "call_c=writer result"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("tool results = %v, want %v", got, want)
	}
	if !writerSawBoth {
		t.Error("the write tool ran before the read-only calls before it finished")
	}
}

func TestLoopBadCallsBecomeToolErrors(t *testing.T) {
	tests := map[string]struct {
		call scripted.Call
		want []string
	}{
		"unknown tool": {
			call: scripted.Call{ID: "c1", Name: "nope", Args: "{}"},
			want: []string{`unknown tool "nope"`, "echo"},
		},
		"invalid JSON arguments": {
			call: scripted.Call{ID: "c1", Name: "echo", Args: `{"path": "a.go"`},
			want: []string{"not valid JSON", "unexpected end of JSON input"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "bad"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{tc.call}},
				{Text: "recovered"},
			}})
			a := newAgent(t, srv, &recorder{}, 10, echoTool("echo", true))
			res, err := a.Run(context.Background(), "bad call")
			if err != nil || res.Answer != "recovered" {
				t.Fatalf("run = %+v, %v; a bad call must not end the run", res, err)
			}
			msgs := toolMessages(t, srv, 1)
			if len(msgs) != 1 {
				t.Fatalf("tool messages = %+v", msgs)
			}
			for _, w := range tc.want {
				if !strings.Contains(msgs[0].Content, w) {
					t.Errorf("tool result %q lacks %q", msgs[0].Content, w)
				}
			}
		})
	}
}

func TestLoopCancelLeavesValidConversation(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "cancel me"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "c1", Name: "block", Args: "{}"}, {ID: "c2", Name: "echo", Args: "{}"}}},
		{Text: "never asked: the cancel ends turn 1"},
		// Turn 2: the provider puts a bridging assistant message between the
		// last tool result and the new user message.
		{Text: "after the cancel"},
	}})
	started := make(chan struct{})
	block := &fakeTool{name: "block", readOnly: true, run: func(ctx context.Context, _ json.RawMessage) tool.Result {
		close(started)
		<-ctx.Done()
		return tool.Errorf("interrupted: %v", ctx.Err())
	}}
	a := newAgent(t, srv, &recorder{}, 10, block, echoTool("echo", false))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	res, err := a.Run(ctx, "cancel me")
	if err == nil || res.Reason != agent.StopCancelled {
		t.Fatalf("run = %+v, %v; want cancelled", res, err)
	}
	// Every call of the assistant message has a result.
	h := a.History()
	results := map[string]string{}
	for _, m := range h {
		if m.Role == agent.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	for _, id := range []string{"c1", "c2"} {
		if results[id] != agent.CancelledResult {
			t.Errorf("result of %s = %q, want %q", id, results[id], agent.CancelledResult)
		}
	}
	// The next run sends a conversation in which every call is answered.
	res, err = a.Run(context.Background(), "go on")
	if err != nil || res.Answer != "after the cancel" {
		t.Fatalf("second run = %+v, %v", res, err)
	}
	if got := len(toolMessages(t, srv, 2)); got != 2 {
		t.Fatalf("the request after the cancel carries %d tool results, want 2", got)
	}
}

func TestLoopStopsAtMaxTurns(t *testing.T) {
	srv := scriptedtest.New(t)
	loop := scripted.Turn{ToolCalls: []scripted.Call{{Name: "echo", Args: "{}"}}}
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "forever"}, Turns: []scripted.Turn{loop, loop, loop, loop}})
	a := newAgent(t, srv, &recorder{}, 2, echoTool("echo", true))
	res, err := a.Run(context.Background(), "forever")
	if err != nil || res.Reason != agent.StopMaxTurns || res.Turns != 2 {
		t.Fatalf("run = %+v, %v; want max_turns after 2", res, err)
	}
	if n := len(srv.Journal()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestLoopToolPanicIsAToolError(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "panic"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "c1", Name: "boom", Args: "{}"}}},
		{Text: "still here"},
	}})
	boom := &fakeTool{name: "boom", readOnly: true, run: func(context.Context, json.RawMessage) tool.Result { panic("kaboom") }}
	a := newAgent(t, srv, &recorder{}, 5, boom)
	res, err := a.Run(context.Background(), "panic")
	if err != nil || res.Answer != "still here" {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if msgs := toolMessages(t, srv, 1); !strings.Contains(msgs[0].Content, "kaboom") {
		t.Fatalf("tool result = %q", msgs[0].Content)
	}
}

func TestRetryResendsTheLastTurn(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "flaky"}, Turns: []scripted.Turn{
		{Text: "partial answ", DisconnectAfter: 400},
	}})
	rec := &recorder{}
	a := agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), MaxAttempts: 1}),
		Model:    "m", Tools: tool.NewRegistry(), Emit: rec.emit,
	})
	if _, err := a.Run(context.Background(), "flaky question"); err == nil {
		t.Fatal("the cut stream did not fail the run")
	}
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "flaky", Model: "m"}, Turns: []scripted.Turn{{Text: "whole answer"}}})
	rec.events = nil
	res, err := a.Retry(context.Background())
	if err != nil || res.Answer != "whole answer" {
		t.Fatalf("retry = %+v, %v", res, err)
	}
	// The retry says so first, naming the message it sends again.
	if n, ok := rec.events[0].(agent.Notice); !ok || n.Message != `retrying your last message: "flaky question"` {
		t.Fatalf("first event of the retry = %#v", rec.events[0])
	}
	h := a.History()
	if len(h) != 2 || h[0].Content != "flaky question" || h[1].Content != "whole answer" {
		t.Fatalf("history after retry = %+v", h)
	}
	if _, err := agent.New(agent.Config{Model: "m"}).Retry(context.Background()); !errors.Is(err, agent.ErrNothingToRetry) {
		t.Fatal("retry with no history succeeded")
	}
}

// TestUnansweredTurnJoinsTheNext: a turn that died before any answer left
// its prompt alone; it joins the next prompt instead of being answered by
// a filler the model would have to carry (roles still alternate).
func TestUnansweredTurnJoinsTheNext(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "first"}, Turns: []scripted.Turn{{Text: "second answer"}}})
	a := newAgent(t, srv, &recorder{}, 5)
	// A resumed session whose last turn died before any answer.
	a.SetHistory([]agent.Message{{Role: agent.RoleUser, Content: "first"}})
	if res, err := a.Run(context.Background(), "second"); err != nil || res.Answer != "second answer" {
		t.Fatalf("run = %+v, %v", res, err)
	}
	var roles []string
	for _, m := range srv.Journal()[0].Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user" {
		t.Fatalf("roles sent = %s", got)
	}
	if got := srv.Journal()[0].Messages[1].Content; got != "first\n\n"+agent.UnansweredNote+"\n\nsecond" {
		t.Fatalf("user message sent = %q", got)
	}
	// The history keeps both as they happened.
	if h := a.History(); len(h) != 3 || h[0].Content != "first" || h[1].Content != "second" {
		t.Fatalf("history = %+v", h)
	}
}

// TestLoopKeepsAnswersTheProviderCutOff: finish_reason "length" and
// "content_filter" keep the answer and end the run with that reason, which
// CutOffNote puts in words; an ordinary stop stays StopOK.
func TestLoopKeepsAnswersTheProviderCutOff(t *testing.T) {
	tests := map[string]struct {
		finish, wantReason, wantNote string
	}{
		"length":         {"length", agent.StopLength, "cut off: the model hit its output limit"},
		"content filter": {"content_filter", agent.StopContentFilter, "stopped by the provider's content filter"},
		"stop":           {"", agent.StopOK, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "write a lot"}, Turns: []scripted.Turn{
				{Text: "Here is the start of it", FinishReason: tc.finish},
			}})
			rec := &recorder{}
			a := newAgent(t, srv, rec, 10)
			res, err := a.Run(context.Background(), "write a lot")
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "Here is the start of it" || res.Reason != tc.wantReason {
				t.Fatalf("result = %+v, want the answer kept with reason %q", res, tc.wantReason)
			}
			if got := agent.CutOffNote(res.Reason); got != tc.wantNote {
				t.Fatalf("CutOffNote(%q) = %q, want %q", res.Reason, got, tc.wantNote)
			}
			if h := a.History(); h[len(h)-1].Content != "Here is the start of it" {
				t.Fatalf("the cut-off answer is not in the history: %+v", h[len(h)-1])
			}
		})
	}
}

// TestDroppedConnectionReadsPlainly: a stream cut after part of the answer
// fails in words naming the host and what was kept, not Go's net error.
func TestDroppedConnectionReadsPlainly(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "long answer"}, Turns: []scripted.Turn{
		{Text: strings.Repeat("word ", 200), DisconnectAfter: 600},
	}})
	rec := &recorder{}
	a := agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), MaxAttempts: 1}),
		Model:    "m", Tools: tool.NewRegistry(), Emit: rec.emit,
	})
	res, err := a.Run(context.Background(), "long answer")
	if err == nil {
		t.Fatal("the cut stream did not fail the run")
	}
	host := strings.TrimPrefix(strings.TrimSuffix(srv.URL(), "/v1"), "http://")
	want := "the connection to " + host + " closed mid-answer"
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "tokens kept") {
		t.Fatalf("error %q, want it to say %q and how many tokens were kept", err, want)
	}
	if !strings.HasPrefix(res.Answer, "word wor") {
		t.Fatalf("the partial answer was not kept: %q", res.Answer)
	}
	if strings.Contains(err.Error(), "unexpected EOF") || strings.Contains(err.Error(), "read tcp") {
		t.Fatalf("error %q shows Go's raw net error", err)
	}
}

// TestConcurrentCallsAnnouncedInCallOrder: the calls of one message that
// run together are announced (ToolStarted) in the order of the message, so
// their blocks, and the panes of several task calls, are drawn in that
// order whichever goroutine starts first.
func TestConcurrentCallsAnnouncedInCallOrder(t *testing.T) {
	const n = 8
	for round := range 10 {
		srv := scriptedtest.New(t)
		var calls []scripted.Call
		for i := range n {
			calls = append(calls, scripted.Call{ID: fmt.Sprintf("call_%d", i), Name: "look", Args: "{}"})
		}
		prompt := fmt.Sprintf("round %d", round)
		srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: prompt}, Turns: []scripted.Turn{{ToolCalls: calls}, {Text: "done"}}})
		rec := &recorder{}
		a := newAgent(t, srv, rec, 5, echoTool("look", true))
		if _, err := a.Run(context.Background(), prompt); err != nil {
			t.Fatal(err)
		}
		var order []string
		rec.mu.Lock()
		for _, e := range rec.events {
			if s, ok := e.(agent.ToolStarted); ok {
				order = append(order, s.CallID)
			}
		}
		rec.mu.Unlock()
		for i, id := range order {
			if id != fmt.Sprintf("call_%d", i) {
				t.Fatalf("round %d: tool calls announced in the order %v, want call_0 … call_%d", round, order, n-1)
			}
		}
		if len(order) != n {
			t.Fatalf("%d calls announced, want %d", len(order), n)
		}
	}
}

// TestInterruptedAnswerCarriesItsText: an answer the user interrupts while
// it streams stays in the history as far as it came, marked interrupted,
// and the next request carries both: the model sees what the user saw.
func TestInterruptedAnswerCarriesItsText(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "tell"}, Turns: []scripted.Turn{
		{Text: "Once upon a time there was a very long story that never ended.", ChunkSize: 5, ChunkDelay: 50 * time.Millisecond},
		{Text: "ok"},
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen atomic.Int32
	a := agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "m", Tools: tool.NewRegistry(),
		Emit: func(e agent.Event) {
			if _, ok := e.(agent.TextDelta); ok && seen.Add(1) == 2 {
				cancel()
			}
		},
	})
	if _, err := a.Run(ctx, "tell me a story"); !errors.Is(err, context.Canceled) {
		t.Fatalf("run error %v, want a cancel", err)
	}
	if _, err := a.Run(context.Background(), "go on"); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Journal()[1].Messages
	var cut string
	for _, m := range msgs {
		if m.Role == agent.RoleAssistant {
			cut = m.Content
		}
	}
	if !strings.HasPrefix(cut, "Once upon") || !strings.HasSuffix(cut, agent.InterruptedNote) {
		t.Fatalf("the interrupted answer sent back = %q, want its streamed text ending in %q", cut, agent.InterruptedNote)
	}
}
