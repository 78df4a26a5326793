package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools/tool"
)

const testSystem = "You are a test agent."

// bigTool returns size bytes of filler, the bulk that fills a window.
func bigTool(size int) *fakeTool {
	return &fakeTool{name: "big", readOnly: true, run: func(_ context.Context, args json.RawMessage) tool.Result {
		return tool.Result{Content: strings.Repeat("filler line of a large tool result\n", size/35), Summary: "big"}
	}}
}

func longSession(t testing.TB, window int, nameWindow bool) (*scripted.Server, *scriptedtest.LongSession) {
	t.Helper()
	srv := scriptedtest.New(t)
	ls := &scriptedtest.LongSession{Window: window, NameWindow: nameWindow, Tool: "big", SummaryMarker: "conversation summariser"}
	for _, c := range ls.Conversations(scripted.Match{SystemContains: testSystem}, 2000) {
		srv.Add(c)
	}
	return srv, ls
}

func compactingAgent(srv *scripted.Server, rec *recorder, window int, ts ...tool.Tool) *agent.Agent {
	return agent.New(agent.Config{
		Provider:      agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:         "test-model",
		System:        testSystem,
		Tools:         tool.NewRegistry(ts...),
		Emit:          rec.emit,
		ContextWindow: window,
		AutoCompact:   agent.DefaultAutoCompact,
	})
}

func compactions(rec *recorder) []agent.Compacted {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []agent.Compacted
	for _, e := range rec.events {
		if c, ok := e.(agent.Compacted); ok && c.Error == "" {
			out = append(out, c)
		}
	}
	return out
}

// TestLongSessionSurvives: tool results that together pass the window many
// times over; every turn succeeds, and a last question is answered from the
// facts of every earlier turn. With the window known no request over it is
// sent; unknown, each overflow is compacted and retried by itself.
func TestLongSessionSurvives(t *testing.T) {
	const window, turns = 4000, 30
	for name, tc := range map[string]struct {
		configured int  // the window covey is told
		nameWindow bool // the overflow error names the limit
		trigger    string
	}{
		"known window":              {window, false, agent.CompactAuto},
		"unknown window, named":     {0, true, agent.CompactOverflow},
		"unknown window, unnamed":   {0, false, agent.CompactOverflow},
		"window configured too big": {4 * window, false, agent.CompactOverflow},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, ls := longSession(t, window, tc.nameWindow)
			rec := &recorder{}
			a := compactingAgent(srv, rec, tc.configured, bigTool(6000))
			for i := 1; i <= turns; i++ {
				res, err := a.Run(context.Background(), fmt.Sprintf("[long %d] remember FACT-%d and read the big file", i, i))
				if err != nil || res.Answer != "Noted." {
					t.Fatalf("turn %d: answer %q, err %v", i, res.Answer, err)
				}
			}
			res, err := a.Run(context.Background(), "[long question] which facts do you know?")
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= turns; i++ {
				if !strings.Contains(res.Answer+" ", fmt.Sprintf("FACT-%d ", i)) {
					t.Errorf("the last answer lacks FACT-%d: %s", i, res.Answer)
				}
			}
			peak, refused, summaries, _ := ls.Stats()
			cs := compactions(rec)
			if len(cs) < 3 || summaries < len(cs) {
				t.Errorf("%d compactions, %d summary requests: want several", len(cs), summaries)
			}
			for i, c := range cs {
				want := tc.trigger
				if tc.nameWindow && i > 0 {
					want = agent.CompactAuto // the first overflow taught the window
				}
				if c.Trigger != want || c.TokensAfter >= c.TokensBefore || c.Summarised == 0 || !strings.HasPrefix(c.Summary, agent.CompactedMarker) {
					t.Errorf("compaction %s: %d -> %d tokens, %d summarised, %d kept", c.Trigger, c.TokensBefore, c.TokensAfter, c.Summarised, c.Kept)
				}
			}
			if tc.trigger == agent.CompactAuto && (refused > 0 || peak > window) {
				t.Errorf("with the window known %d requests were refused, the largest %d tokens > %d", refused, peak, window)
			}
			if tc.trigger == agent.CompactOverflow && refused == 0 {
				t.Error("no request was refused: the test does not test overflow")
			}
			if tc.nameWindow && a.ContextWindow() != window {
				t.Errorf("window learned = %d, want %d", a.ContextWindow(), window)
			}
			for _, e := range rec.events {
				if ev, ok := e.(agent.ErrorEvent); ok {
					t.Errorf("error shown to the user: %s", ev.Message)
				}
			}
		})
	}
}

// TestCompactManual: /compact with a focus sends it to the summariser,
// keeps the last turn verbatim after the summary and an acknowledgement,
// and tells covey's crew record verbatim.
func TestCompactManual(t *testing.T) {
	t.Parallel()
	srv, _ := longSession(t, 0, false)
	rec := &recorder{}
	var trigger, focusSeen string
	a := agent.New(agent.Config{
		Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "test-model", System: testSystem, Tools: tool.NewRegistry(bigTool(3000)), Emit: rec.emit,
		AutoCompact: agent.DefaultAutoCompact,
		CrewNote:    func() string { return "- scout (explore-7, Explore): done. Report: FACT-99" },
		BeforeCompact: func(_ context.Context, tr, focus string) (string, error) {
			trigger, focusSeen = tr, focus
			return "Hook says: keep FACT-77.", nil
		},
	})
	if _, err := a.Compact(context.Background(), ""); !errors.Is(err, agent.ErrNothingToCompact) {
		t.Fatalf("empty: err %v, want ErrNothingToCompact", err)
	}
	for i := 1; i <= 4; i++ {
		if _, err := a.Run(context.Background(), fmt.Sprintf("[long %d] FACT-%d", i, i)); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := a.Compact(context.Background(), "  the parser  ")
	if err != nil {
		t.Fatal(err)
	}
	if trigger != agent.CompactManual || focusSeen != "the parser" || ev.Focus != "the parser" {
		t.Errorf("hook saw %q %q; event focus %q", trigger, focusSeen, ev.Focus)
	}
	var sumReq scripted.Request
	for _, e := range srv.Journal() {
		if e.Conversation == "long-summary" {
			sumReq = scripted.Request{Entry: e}
		}
	}
	if in := sumReq.LastUser(); !strings.Contains(in, "focus on: the parser") || !strings.Contains(in, "Hook says: keep FACT-77.") {
		t.Errorf("summary request lacks the focus or the hook's instructions:\n%s", in)
	}
	h := a.History()
	if len(h) < 3 || h[0].Role != agent.RoleUser || h[1].Role != agent.RoleAssistant || !strings.Contains(h[0].Content, "scout (explore-7, Explore)") {
		t.Fatalf("history after compaction: %+v", h)
	}
	if ev.Kept != len(h)-len(ev.Messages) || h[2].Content != "[long 4] FACT-4" {
		t.Errorf("kept %d of %d; first kept %q", ev.Kept, len(h), h[2].Content)
	}
	for i := 1; i <= 3; i++ {
		if !strings.Contains(h[0].Content, fmt.Sprintf("FACT-%d", i)) {
			t.Errorf("summary lacks FACT-%d:\n%s", i, h[0].Content)
		}
	}
	// The hook can refuse.
	b := agent.New(agent.Config{Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}), System: testSystem,
		BeforeCompact: func(context.Context, string, string) (string, error) { return "", errors.New("not now") }})
	b.SetHistory(h)
	if _, err := b.Compact(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "not now") {
		t.Errorf("refused by the hook: err %v", err)
	}
}

// TestSummaryFits: a history far larger than the window is summarised in
// requests that each fit: old tool results pruned to stubs naming the tool,
// its arguments and the size dropped, the rest in pieces.
func TestSummaryFits(t *testing.T) {
	t.Parallel()
	const window = 3000
	srv, ls := longSession(t, window, false)
	rec := &recorder{}
	a := compactingAgent(srv, rec, window)
	var h []agent.Message
	for i := 1; i <= 40; i++ {
		id := fmt.Sprintf("c%d", i)
		h = append(h,
			agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("turn %d: remember FACT-%d. %s", i, i, strings.Repeat("words ", 100))},
			agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)}}},
			agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: "read_file", Content: strings.Repeat("x", 4000)},
			agent.Message{Role: agent.RoleAssistant, Content: fmt.Sprintf("Read f%d.go.", i)},
		)
	}
	a.SetHistory(h)
	ev, err := a.Compact(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	peak, refused, _, _ := ls.Stats()
	if peak > window || refused > 0 {
		t.Errorf("a summary request of %d tokens (window %d), %d refused", peak, window, refused)
	}
	if ev.Pruned == 0 || ev.Pieces < 2 {
		t.Errorf("pruned %d, pieces %d: want both", ev.Pruned, ev.Pieces)
	}
	stub := `RESULT of read_file {"path":"f1.go"}: [pruned to fit the summary: 3.9 KB dropped]`
	found := false
	for _, e := range srv.Journal() {
		found = found || strings.Contains(scripted.Request{Entry: e}.LastUser(), stub)
	}
	if !found {
		t.Errorf("no summary request carries the stub %q", stub)
	}
	for i := 1; i <= 40; i++ {
		if !strings.Contains(ev.Summary, fmt.Sprintf("FACT-%d.", i)) && !strings.Contains(ev.Summary, fmt.Sprintf("FACT-%d ", i)) {
			t.Errorf("the summary of pieces lost FACT-%d", i)
		}
	}
}

// TestFailedTurnLeavesNothing: a turn that fails before any answer leaves
// no filler in the history; its prompt joins the next one.
func TestFailedTurnLeavesNothing(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: testSystem}, Turns: []scripted.Turn{
		{Func: func(r scripted.Request) scripted.Turn {
			if r.LastUser() == "first" {
				return scripted.Turn{Status: 400, Body: `{"error":{"message":"bad thing","type":"invalid_request_error"}}`}
			}
			return scripted.Turn{Text: "fine"}
		}},
	}})
	rec := &recorder{}
	a := compactingAgent(srv, rec, 0)
	if _, err := a.Run(context.Background(), "first"); err == nil {
		t.Fatal("the first turn did not fail")
	}
	if res, err := a.Run(context.Background(), "second"); err != nil || res.Answer != "fine" {
		t.Fatalf("second turn: %q %v", res.Answer, err)
	}
	j := srv.Journal()
	last := j[len(j)-1]
	if len(last.Messages) != 2 || last.Messages[1].Content != "first\n\n"+agent.UnansweredNote+"\n\nsecond" {
		t.Errorf("second request's messages: %+v", last.Messages)
	}
}

// TestRetryAfterOverflowCompacts: a turn whose overflow could not be
// compacted (the summariser failed) fails; ctrl+r (Retry) then compacts
// and answers instead of sending the same overflow again.
func TestRetryAfterOverflowCompacts(t *testing.T) {
	t.Parallel()
	const window = 3000
	srv := scriptedtest.New(t, scripted.WithWindow("", scripted.Window{Tokens: window, Hidden: true}))
	var failSummary atomic.Bool
	failSummary.Store(true)
	var turns []scripted.Turn
	for i := 0; i < 50; i++ {
		turns = append(turns, scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
			if strings.Contains(r.System, "conversation summariser") {
				if failSummary.Load() {
					return scripted.Turn{Status: 400, Body: `{"error":{"message":"summaries are off today","type":"invalid_request_error"}}`}
				}
				return scripted.Turn{Text: "Summary: FACT-1."}
			}
			return scripted.Turn{Text: "answered"}
		}})
	}
	srv.Add(scripted.Conversation{Name: "all", Turns: turns})
	rec := &recorder{}
	a := compactingAgent(srv, rec, 0)
	a.SetHistory([]agent.Message{
		{Role: agent.RoleUser, Content: "FACT-1 " + strings.Repeat("long words ", 1500)},
		{Role: agent.RoleAssistant, Content: "ok"},
	})
	if _, err := a.Run(context.Background(), "next"); err == nil || !strings.Contains(err.Error(), "compacting the conversation failed too") {
		t.Fatalf("first run: %v", err)
	}
	failSummary.Store(false)
	res, err := a.Retry(context.Background())
	if err != nil || res.Answer != "answered" {
		t.Fatalf("retry: %q %v", res.Answer, err)
	}
	if cs := compactions(rec); len(cs) != 1 {
		t.Fatalf("%d compactions, want 1", len(cs))
	}
	// Each compaction was announced, and the failed one ended with its
	// error, so a consumer that showed it starting saw it end.
	var started, failed int
	for _, e := range rec.events {
		switch ev := e.(type) {
		case agent.Compacting:
			started++
		case agent.Compacted:
			if strings.Contains(ev.Error, "summaries are off today") {
				failed++
			}
		}
	}
	if started != 2 || failed != 1 {
		t.Errorf("%d compactions started, %d failed; want 2 and 1", started, failed)
	}
	// The window was learned from the first overflow: the retry compacted
	// before sending, and no request over the window went out after.
	var over []int
	for i, e := range srv.Journal() {
		if e.Overflow {
			over = append(over, i)
		}
	}
	if len(over) != 1 || over[0] != 0 {
		t.Errorf("requests refused as over the window: %v (want only the first)", over)
	}
}

// TestOverWindowNeverSent: with automatic compaction off, a request a
// known window cannot hold is not sent; the error says what to do.
func TestOverWindowNeverSent(t *testing.T) {
	t.Parallel()
	srv, _ := longSession(t, 0, false)
	a := agent.New(agent.Config{Provider: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()}), Model: "m", System: testSystem,
		ContextWindow: 1000})
	a.SetHistory([]agent.Message{{Role: agent.RoleUser, Content: strings.Repeat("words ", 1000)}, {Role: agent.RoleAssistant, Content: "ok"}})
	_, err := a.Run(context.Background(), "more")
	if !errors.Is(err, agent.ErrContextLength) || !strings.Contains(err.Error(), "/compact") {
		t.Fatalf("err %v", err)
	}
	if n := len(srv.Journal()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestCompactManualFarFromTheWindow: /compact frees room even when the
// window is far from full: the last turns stay, the rest is summarised.
func TestCompactManualFarFromTheWindow(t *testing.T) {
	t.Parallel()
	srv, _ := longSession(t, 0, false)
	a := compactingAgent(srv, &recorder{}, 200000)
	var h []agent.Message
	for i := 1; i <= 10; i++ {
		h = append(h, agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("turn %d FACT-%d %s", i, i, strings.Repeat("text ", 200))},
			agent.Message{Role: agent.RoleAssistant, Content: "done"})
	}
	a.SetHistory(h)
	ev, err := a.Compact(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kept > 4 || ev.Summarised < 16 || ev.TokensAfter*2 > ev.TokensBefore {
		t.Errorf("kept %d, summarised %d, %d → %d tokens", ev.Kept, ev.Summarised, ev.TokensBefore, ev.TokensAfter)
	}
}
