package sessionfile

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"covey/tools/toolname"

	"covey/agent"
	"covey/tools/tool"
)

// conversation is a turn that touches every event type, with no two
// fragments of one stream in a row (they would merge).
func conversation() []any {
	return []any{
		agent.Message{Role: agent.RoleUser, Content: "look at <main.go> & fix \"it\""},
		agent.UserMessage{Source: mainSrc, Text: "look at <main.go> & fix \"it\""},
		agent.ReasoningDelta{Source: mainSrc, Text: "thinking…"},
		agent.TextDelta{Source: mainSrc, Text: "I'll look."},
		agent.UsageReported{Source: mainSrc, Usage: agent.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 2, ReasoningTokens: 1}},
		agent.Message{Role: agent.RoleAssistant, Content: "I'll look.", Reasoning: "thinking…", ToolCalls: []agent.ToolCall{
			{ID: "task1", Name: toolname.Task, Arguments: `{"prompt":"look"}`, Extra: map[string]json.RawMessage{"sig": json.RawMessage(`{"a":1}`)}},
		}},
		agent.ToolStarted{Source: mainSrc, CallID: "task1", Name: toolname.Task, Args: json.RawMessage(`{"prompt":"look"}`), KeyArg: "look"},
		agent.ChildStarted{Source: childSrc, Model: "small", Worktree: &agent.WorktreeInfo{Path: "/r/.git/covey-worktrees/x-1", Branch: "covey/x-1", Base: "HEAD 1234567"}},
		agent.TextDelta{Source: childSrc, Text: "child says hi"},
		agent.ToolStarted{Source: childSrc, CallID: "e1", Name: toolname.EditFile, Args: json.RawMessage(`{"path":"a.go"}`), ReadOnly: false},
		agent.ToolFinished{Source: childSrc, CallID: "e1", Name: toolname.EditFile, KeyArg: "a.go", Duration: 1500 * time.Microsecond,
			Result: tool.Result{Content: "edited", Summary: "+1 -1", Display: &tool.FileChange{Path: "a.go", Diff: "--- a/a.go\n+++ b/a.go\n", Added: 1, Removed: 1}}},
		agent.ToolStarted{Source: childSrc, CallID: "t1", Name: toolname.TodoWrite, Args: json.RawMessage(`{}`), ReadOnly: true},
		agent.ToolFinished{Source: childSrc, CallID: "t1", Name: toolname.TodoWrite,
			Result: tool.Result{Content: "ok", Display: []tool.Todo{{Content: "x", Status: "pending"}}}},
		agent.Retrying{Source: childSrc, Attempt: 2, Wait: 3 * time.Second, Reason: "429"},
		agent.Done{Source: childSrc, Answer: "found it", Reason: agent.StopOK, Usage: agent.Usage{InputTokens: 3}, Turns: 2},
		agent.WorktreeResult{Source: childSrc, Status: agent.WorktreeConflict, Path: "/r/.git/covey-worktrees/x-1", Branch: "covey/x-1",
			Commit: "abc", Files: []string{"a.go"}, Conflicts: []string{"a.go"}, Message: "conflict"},
		agent.ChildFinished{Source: childSrc, Reason: agent.StopOK, ToolCalls: 2, Elapsed: time.Minute, Usage: agent.Usage{OutputTokens: 4}, Summary: "found it"},
		agent.ToolFinished{Source: mainSrc, CallID: "task1", Name: toolname.Task, Result: tool.Result{Content: "found it", IsError: true}},
		agent.Message{Role: agent.RoleTool, ToolCallID: "task1", Name: toolname.Task, Content: "found it"},
		agent.TurnFinished{Source: mainSrc, Turn: 1, FinishReason: "tool_calls"},
		agent.ErrorEvent{Source: mainSrc, Message: "boom"},
		agent.Done{Source: mainSrc, Reason: agent.StopError, Error: "boom", Turns: 1},
	}
}

func record(r *Recorder, items []any) {
	for _, it := range items {
		switch v := it.(type) {
		case agent.Message:
			r.Message(v)
		case agent.Event:
			r.Event(v)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/work/ws", "big")
	if err != nil {
		t.Fatal(err)
	}
	want := conversation()
	record(r, want)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 0 {
		t.Fatalf("warnings: %v", l.Warnings)
	}
	mustEqual(t, "replay", decodeReplay(t, l.Replay), want)
	var msgs []agent.Message
	for _, it := range want {
		if m, ok := it.(agent.Message); ok {
			msgs = append(msgs, m)
		}
	}
	mustEqual(t, "messages", l.Messages, msgs)
	var events []agent.Event
	for _, it := range want {
		switch v := it.(type) {
		case agent.Event:
			events = append(events, v)
		case agent.Message:
			if v.Role == agent.RoleUser {
				events = append(events, agent.UserMessage{Source: mainSrc, Text: v.Content})
			}
		}
	}
	mustEqual(t, "events", l.Events(), events)
	if l.Header.ID != r.ID() || l.Header.Workspace != "/work/ws" || l.Header.Model != "big" || l.Model != "big" || l.Header.Version != Version {
		t.Fatalf("header = %+v", l.Header)
	}
	first, _, _ := strings.Cut(readFile(t, r.Path()), "\n")
	if !strings.HasPrefix(first, `{"type":"session","id":"`+r.ID()+`"`) {
		t.Fatalf("first line = %s", first)
	}
}

func TestDeltasMerge(t *testing.T) {
	a := agent.Source{AgentID: "a", Depth: 1}
	b := agent.Source{AgentID: "b", Depth: 1}
	txt := func(s agent.Source, x string) agent.Event { return agent.TextDelta{Source: s, Text: x} }
	think := func(s agent.Source, x string) agent.Event { return agent.ReasoningDelta{Source: s, Text: x} }
	turn := agent.TurnFinished{Source: a, Turn: 1}
	tests := map[string]struct {
		in, want []agent.Event
	}{
		"one agent's fragments merge": {
			in:   []agent.Event{txt(a, "he"), txt(a, "llo"), txt(a, "!")},
			want: []agent.Event{txt(a, "hello!")},
		},
		"thinking then answering stay apart": {
			in:   []agent.Event{think(a, "x"), think(a, "y"), txt(a, "a"), think(a, "z")},
			want: []agent.Event{think(a, "xy"), txt(a, "a"), think(a, "z")},
		},
		"agents interleaved merge per agent": {
			in:   []agent.Event{txt(a, "1"), txt(b, "2"), txt(a, "3"), txt(b, "4")},
			want: []agent.Event{txt(a, "13"), txt(b, "24")},
		},
		"an agent's own event ends its fragment": {
			in:   []agent.Event{txt(a, "1"), turn, txt(a, "2")},
			want: []agent.Event{txt(a, "1"), turn, txt(a, "2")},
		},
		"empty fragments are dropped": {
			in:   []agent.Event{txt(a, ""), txt(a, "x"), txt(a, "")},
			want: []agent.Event{txt(a, "x")},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := testStore(t)
			r, err := s.Create("/ws", "m")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.in {
				r.Event(e)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			l, err := s.Load(r.ID())
			if err != nil {
				t.Fatal(err)
			}
			var got []agent.Event
			for _, it := range decodeReplay(t, l.Replay) {
				got = append(got, it.(agent.Event))
			}
			// Children's runs never finished: loading closes them.
			for len(got) > 0 {
				if d, ok := got[len(got)-1].(agent.Done); ok && d.Error == interruptedReason {
					got = got[:len(got)-1]
					continue
				}
				break
			}
			mustEqual(t, "events", got, tc.want)
		})
	}
}

func TestFlushTiming(t *testing.T) {
	delta := agent.TextDelta{Source: mainSrc, Text: "streaming"}
	tests := map[string]struct {
		event  agent.Event
		urgent bool
	}{
		"Done":          {agent.Done{Source: mainSrc, Reason: agent.StopOK}, true},
		"ToolFinished":  {agent.ToolFinished{Source: childSrc, CallID: "x"}, true},
		"ChildFinished": {agent.ChildFinished{Source: childSrc, Reason: agent.StopOK}, true},
		"TurnFinished":  {agent.TurnFinished{Source: mainSrc, Turn: 1}, false},
		"ToolStarted":   {agent.ToolStarted{Source: mainSrc, CallID: "y", Args: json.RawMessage(`{}`)}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := testStore(t)
			r, err := s.Create("/ws", "m")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var timer manualTimer
			timer.install(r)
			r.Event(delta)
			r.Event(tc.event)
			kind := `"type":"` + tc.event.Kind() + `"`
			onDisk := readFile(t, r.Path())
			if got := strings.Contains(onDisk, kind); got != tc.urgent {
				t.Fatalf("%s on disk before the timer = %v, want %v", tc.event.Kind(), got, tc.urgent)
			}
			if got := strings.Contains(onDisk, "streaming"); got != tc.urgent {
				t.Fatalf("delta on disk before the timer = %v, want %v", got, tc.urgent)
			}
			if !tc.urgent {
				if timer.armed != 1 {
					t.Fatalf("timer armed %d times, want 1", timer.armed)
				}
				timer.fire()
				onDisk = readFile(t, r.Path())
				if !strings.Contains(onDisk, kind) || !strings.Contains(onDisk, "streaming") {
					t.Fatalf("after the timer the file holds:\n%s", onDisk)
				}
				if strings.Index(onDisk, "streaming") > strings.Index(onDisk, kind) {
					t.Fatal("events out of order")
				}
			}
		})
	}
}

func TestMessageWritesAtOnce(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var timer manualTimer
	timer.install(r)
	r.Event(agent.TextDelta{Source: mainSrc, Text: "before"})
	r.Message(agent.Message{Role: agent.RoleUser, Content: "hello"})
	onDisk := readFile(t, r.Path())
	i, j := strings.Index(onDisk, "before"), strings.Index(onDisk, "hello")
	if i < 0 || j < 0 || i > j {
		t.Fatalf("want the buffered delta then the message on disk, got:\n%s", onDisk)
	}
	if !strings.HasSuffix(onDisk, "\n") {
		t.Fatal("file does not end with a newline")
	}
}

func TestConcurrentRecording(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	const agents, perAgent, messages = 8, 200, 100
	var wg sync.WaitGroup
	for a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := agent.Source{AgentID: "child" + itoa(a), Depth: 1}
			for i := range perAgent {
				r.Event(agent.TextDelta{Source: src, Text: itoa(i) + ","})
				if i%10 == 9 {
					r.Event(agent.ToolStarted{Source: src, CallID: itoa(i), Args: json.RawMessage(`{}`)})
					r.Event(agent.ToolFinished{Source: src, CallID: itoa(i)})
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range messages {
			r.Message(agent.Message{Role: agent.RoleUser, Content: itoa(i)})
		}
	}()
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Messages) != messages {
		t.Fatalf("%d messages, want %d", len(l.Messages), messages)
	}
	for i, m := range l.Messages {
		if m.Content != itoa(i) {
			t.Fatalf("message %d = %q", i, m.Content)
		}
	}
	text := map[string]string{}
	calls := map[string][]string{}
	for _, it := range decodeReplay(t, l.Replay) {
		switch e := it.(type) {
		case agent.TextDelta:
			text[e.AgentID] += e.Text
		case agent.ToolStarted:
			calls[e.AgentID] = append(calls[e.AgentID], "s"+e.CallID)
			// Every fragment sent before the call is recorded before it.
			if want := itoa(mustAtoi(t, e.CallID)) + ","; !strings.HasSuffix(text[e.AgentID], want) {
				t.Fatalf("%s: call %s recorded after text %q", e.AgentID, e.CallID, text[e.AgentID])
			}
		case agent.ToolFinished:
			calls[e.AgentID] = append(calls[e.AgentID], "f"+e.CallID)
		}
	}
	for a := range agents {
		id := "child" + itoa(a)
		var want strings.Builder
		var wantCalls []string
		for i := range perAgent {
			want.WriteString(itoa(i) + ",")
			if i%10 == 9 {
				wantCalls = append(wantCalls, "s"+itoa(i), "f"+itoa(i))
			}
		}
		if text[id] != want.String() {
			t.Fatalf("%s text = %q", id, text[id])
		}
		mustEqual(t, id+" calls", calls[id], wantCalls)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWriteErrorsAreReportedOnce(t *testing.T) {
	s := testStore(t)
	var reports []error
	s.OnError = func(err error) { reports = append(reports, err) }
	r, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	// Pull the file out from under the recorder, as a full disk would.
	if err := r.f.Close(); err != nil {
		t.Fatal(err)
	}
	r.Message(agent.Message{Role: agent.RoleUser, Content: "lost"})
	r.Event(agent.Done{Source: mainSrc})
	r.Clear()
	if r.Err() == nil {
		t.Fatal("Err() = nil after failed writes")
	}
	if len(reports) != 1 || !errors.Is(reports[0], r.Err()) {
		t.Fatalf("OnError called with %v, want once with %v", reports, r.Err())
	}
	if err := r.Close(); err == nil {
		t.Fatal("Close() = nil after failed writes")
	}
	// A closed recorder ignores everything.
	r.Message(agent.Message{Role: agent.RoleUser})
	r.Event(agent.TextDelta{Source: mainSrc, Text: "x"})
	if len(reports) != 1 {
		t.Fatalf("%d reports after close", len(reports))
	}
}

func TestNilRecorderIgnoresCalls(t *testing.T) {
	var r *Recorder
	r.Message(agent.Message{Role: agent.RoleUser})
	r.Event(agent.TextDelta{Text: "x"})
	r.Clear()
	r.SetModel("m")
	if r.ID() != "" || r.Path() != "" || r.Err() != nil || r.Flush() != nil || r.Close() != nil {
		t.Fatal("nil recorder did something")
	}
}

func TestUnencodableEvents(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	r.Event(agent.ToolStarted{Source: mainSrc, CallID: "a", Args: json.RawMessage(`{"broken":`)})
	r.Event(agent.ToolFinished{Source: mainSrc, CallID: "a", Result: tool.Result{Content: "ok", Display: make(chan int)}})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	got := decodeReplay(t, l.Replay)
	want := []any{
		agent.ToolStarted{Source: mainSrc, CallID: "a", Args: json.RawMessage(`"{\"broken\":"`)},
		agent.ToolFinished{Source: mainSrc, CallID: "a", Result: tool.Result{Content: "ok"}},
	}
	mustEqual(t, "events", got[:2], want)
}
