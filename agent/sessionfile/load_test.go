package sessionfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"

	"covey/agent"
	"covey/tools/tool"
)

func TestTornLastLine(t *testing.T) {
	tests := map[string]struct {
		tail     string // appended after two good messages
		warnings int    // on the first load
	}{
		"partial JSON without newline": {`{"type":"message","message":{"role":"us`, 1},
		"partial event":                {`{"type":"event","event":{"type":"text","agent_id":"main","te`, 1},
		"complete line, newline lost":  {strings.TrimSuffix(msgLine(agent.Message{Role: agent.RoleUser, Content: "c"}), "\n"), 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := testStore(t)
			r, err := s.Create("/ws", "m")
			if err != nil {
				t.Fatal(err)
			}
			r.Message(agent.Message{Role: agent.RoleUser, Content: "a"})
			r.Message(agent.Message{Role: agent.RoleUser, Content: "b"})
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(r.Path(), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(tc.tail); err != nil {
				t.Fatal(err)
			}
			f.Close()

			l, err := s.Load(r.ID())
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Warnings) != tc.warnings {
				t.Fatalf("warnings = %q, want %d", l.Warnings, tc.warnings)
			}
			if tc.warnings > 0 && !strings.Contains(l.Warnings[0], "incomplete last line") {
				t.Fatalf("warning = %q", l.Warnings[0])
			}
			before := len(l.Messages)

			r2, _, err := s.Open(r.ID())
			if err != nil {
				t.Fatal(err)
			}
			r2.Message(agent.Message{Role: agent.RoleUser, Content: "after"})
			if err := r2.Close(); err != nil {
				t.Fatal(err)
			}
			raw := readFile(t, r.Path())
			if !strings.Contains(raw, tc.tail+"\n") {
				t.Fatal("the next append did not start on a fresh line")
			}
			l2, err := s.Load(r.ID())
			if err != nil {
				t.Fatal(err)
			}
			if len(l2.Messages) < before+1 || l2.Messages[len(l2.Messages)-1].Content != "after" {
				t.Fatalf("messages after reopening = %+v", l2.Messages)
			}
			if len(l2.Warnings) != tc.warnings {
				t.Fatalf("warnings after reopening = %q", l2.Warnings)
			}
		})
	}
}

func TestReadRejects(t *testing.T) {
	tests := map[string]struct {
		file string
		want string
	}{
		"empty":          {"", "empty file"},
		"blank lines":    {"\n\n  \n", "empty file"},
		"not JSON":       {"hello\n", "not a covey session"},
		"torn header":    {`{"type":"session","id":"x","wor`, "not a covey session"},
		"other JSON":     {`{"type":"message"}` + "\n", "not a covey session"},
		"newer version":  {`{"type":"session","id":"x","version":2}` + "\n", "version 2"},
		"version absent": {`{"type":"session","id":"x"}` + "\n", "version 0"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestReadSkipsBadLines(t *testing.T) {
	h := `{"type":"session","id":"x","workspace":"/ws","model":"m","version":1}` + "\n"
	user := msgLine(agent.Message{Role: agent.RoleUser, Content: "hi"})
	tests := map[string]struct {
		lines    string
		messages int
		warnings int
	}{
		"garbage line":           {user + "garbage\n" + user, 2, 1},
		"message without body":   {`{"type":"message"}` + "\n" + user, 1, 1},
		"message with null body": {`{"type":"message","message":null}` + "\n", 0, 1},
		"unknown role":           {`{"type":"message","message":{"role":"robot"}}` + "\n", 0, 1},
		"event without type":     {`{"type":"event","event":{"text":"x"}}` + "\n" + user, 1, 1},
		"event not an object":    {`{"type":"event","event":[1]}` + "\n", 0, 1},
		"unknown line type":      {`{"type":"bookmark","at":3}` + "\n" + user, 1, 0},
		"flattened field order":  {`{"message":{"content":"hi","role":"user"},"type":"message"}` + "\n", 1, 0},
		"spliced by a crash":     {`{"type":"message","message":{"ro` + user, 1, 1}, // the user message it ate leaves a placeholder
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			l, err := Read(strings.NewReader(h + tc.lines))
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Messages) != tc.messages || len(l.Warnings) != tc.warnings {
				t.Fatalf("messages %d, warnings %q; want %d and %d", len(l.Messages), l.Warnings, tc.messages, tc.warnings)
			}
		})
	}
}

func TestClearAndModel(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/ws", "first")
	if err != nil {
		t.Fatal(err)
	}
	r.Message(agent.Message{Role: agent.RoleUser, Content: "old"})
	r.Event(agent.TextDelta{Source: mainSrc, Text: "old answer"})
	r.Event(agent.Done{Source: mainSrc, Reason: agent.StopOK})
	r.SetModel("second")
	r.Clear()
	r.Message(agent.Message{Role: agent.RoleUser, Content: "new"})
	r.Event(agent.Done{Source: mainSrc, Reason: agent.StopOK})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "messages", l.Messages, []agent.Message{{Role: agent.RoleUser, Content: "new"}})
	mustEqual(t, "replay", decodeReplay(t, l.Replay), []any{
		agent.Message{Role: agent.RoleUser, Content: "new"},
		agent.Done{Source: mainSrc, Reason: agent.StopOK},
	})
	if l.Model != "second" || l.Header.Model != "first" {
		t.Fatalf("model %q, header model %q", l.Model, l.Header.Model)
	}
}

func TestRepairHistory(t *testing.T) {
	user := agent.Message{Role: agent.RoleUser, Content: "go"}
	call := func(ids ...string) agent.Message {
		m := agent.Message{Role: agent.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, agent.ToolCall{ID: id, Name: toolname.ReadFile, Arguments: "{}"})
		}
		return m
	}
	result := func(id string) agent.Message {
		return agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: toolname.ReadFile, Content: "ok"}
	}
	lost := func(id string) agent.Message {
		return agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: toolname.ReadFile, Content: InterruptedResult}
	}
	tests := map[string]struct {
		in, want []agent.Message
		tail     int
	}{
		"died while tools ran": {
			in:   []agent.Message{user, call("a", "b")},
			want: []agent.Message{user, call("a", "b"), lost("a"), lost("b")},
			tail: 2,
		},
		"one result of two": {
			in:   []agent.Message{user, call("a", "b"), result("b")},
			want: []agent.Message{user, call("a", "b"), result("b"), lost("a")},
			tail: 1,
		},
		"gap mid-history": {
			in:   []agent.Message{user, call("a"), user},
			want: []agent.Message{user, call("a"), lost("a"), user},
		},
		"died after the user spoke": {
			in:   []agent.Message{user, call("a"), result("a"), user},
			want: []agent.Message{user, call("a"), result("a"), user},
		},
		"orphan and duplicate results dropped": {
			in:   []agent.Message{result("z"), user, call("a"), result("a"), result("a"), result("q")},
			want: []agent.Message{user, call("a"), result("a")},
		},
		"complete history untouched": {
			in:   []agent.Message{user, call("a"), result("a"), {Role: agent.RoleAssistant, Content: "done"}},
			want: []agent.Message{user, call("a"), result("a"), {Role: agent.RoleAssistant, Content: "done"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var l Loaded
			got, tail := l.repairHistory(tc.in)
			mustEqual(t, "history", got, tc.want)
			if len(tail) != tc.tail {
				t.Fatalf("tail = %d results, want %d", len(tail), tc.tail)
			}
			if msg := checkHistory(got); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

// TestOpenRepairsAndRecordsTheRepair simulates a process that died while a
// child ran a tool: loading answers the calls and finishes the child, Open
// writes that down, and the next load finds the file whole.
func TestOpenRepairsAndRecordsTheRepair(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	task := agent.ToolCall{ID: "task1", Name: toolname.Task, Arguments: `{"prompt":"x"}`}
	grep := agent.ToolCall{ID: "g1", Name: toolname.Grep, Arguments: `{}`}
	r.Message(agent.Message{Role: agent.RoleUser, Content: "go"})
	r.Message(agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{task, grep}})
	r.Event(agent.ToolStarted{Source: mainSrc, CallID: "task1", Name: toolname.Task, KeyArg: "x", Args: json.RawMessage(`{}`)})
	r.Event(agent.ToolStarted{Source: mainSrc, CallID: "g1", Name: toolname.Grep, Args: json.RawMessage(`{}`)})
	r.Event(agent.ToolFinished{Source: mainSrc, CallID: "g1", Name: toolname.Grep, Result: tool.Result{Content: "3 hits"}})
	r.Event(agent.ChildStarted{Source: childSrc, Model: "small"})
	r.Event(agent.ToolStarted{Source: childSrc, CallID: "c1", Name: toolname.Bash, KeyArg: "make", Args: json.RawMessage(`{}`)})
	r.Event(agent.TextDelta{Source: childSrc, Text: "running make"})
	// The process dies here: no Close.
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	r.f.Close()

	r2, l, err := s.Open(r.ID()[:10])
	if err != nil {
		t.Fatal(err)
	}
	stopped := tool.Result{Content: InterruptedResult, IsError: true, Summary: "interrupted"}
	wantTail := []any{
		agent.ToolFinished{Source: childSrc, CallID: "c1", Name: toolname.Bash, KeyArg: "make", Result: stopped},
		agent.Done{Source: childSrc, Reason: agent.StopCancelled, Error: interruptedReason},
		agent.ChildState{Source: childSrc, State: agent.StateInterrupted, Detail: "covey stopped while it ran"},
		agent.ChildFinished{Source: childSrc, Reason: agent.StopCancelled, Error: interruptedReason},
		agent.ToolFinished{Source: mainSrc, CallID: "task1", Name: toolname.Task, KeyArg: "x", Result: stopped},
		agent.Message{Role: agent.RoleTool, ToolCallID: "task1", Name: toolname.Task, Content: InterruptedResult},
		agent.Message{Role: agent.RoleTool, ToolCallID: "g1", Name: toolname.Grep, Content: InterruptedResult},
		agent.Done{Source: mainSrc, Reason: agent.StopCancelled, Error: interruptedReason},
	}
	replay := decodeReplay(t, l.Replay)
	if len(replay) < len(wantTail) {
		t.Fatalf("replay too short: %d", len(replay))
	}
	mustEqual(t, "repaired end of the replay", replay[len(replay)-len(wantTail):], wantTail)
	if msg := checkHistory(l.Messages); msg != "" {
		t.Fatal(msg)
	}
	if len(l.Messages) != 4 {
		t.Fatalf("%d messages, want 4", len(l.Messages))
	}
	if err := r2.Close(); err != nil {
		t.Fatal(err)
	}

	again, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "messages on the next load", again.Messages, l.Messages)
	mustEqual(t, "replay on the next load", decodeReplay(t, again.Replay), replay)
	if len(again.fix) != 0 || len(again.Warnings) != 0 {
		t.Fatalf("the next load repaired again: fix %d, warnings %q", len(again.fix), again.Warnings)
	}
}

func TestDecodeEventErrors(t *testing.T) {
	tests := map[string]string{
		"not JSON":     `{`,
		"no type":      `{"text":"x"}`,
		"unknown type": `{"type":"teleport"}`,
		"wrong field":  `{"type":"turn_finished","turn":"one"}`,
		"array":        `[]`,
	}
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			if e, err := DecodeEvent(json.RawMessage(raw)); err == nil {
				t.Fatalf("DecodeEvent = %#v, want an error", e)
			}
		})
	}
}

func TestDecodeDisplay(t *testing.T) {
	tests := map[string]struct {
		raw  string
		want any
	}{
		"none":        {`null`, nil},
		"file change": {`{"path":"a","diff":"d","created":true}`, &tool.FileChange{Path: "a", Diff: "d", Created: true}},
		"todos":       {`[{"content":"c","status":"pending"}]`, []tool.Todo{{Content: "c", Status: "pending"}}},
		"other":       {`{"rows":3}`, json.RawMessage(`{"rows":3}`)},
		"scalar":      {`42`, json.RawMessage(`42`)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mustEqual(t, "display", decodeDisplay(json.RawMessage(tc.raw)), tc.want)
		})
	}
}

func TestLoadMissing(t *testing.T) {
	s := testStore(t)
	if _, err := s.Load("20200101T000000Z-000000"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Load of a missing session = %v, want ErrNoSession", err)
	}
	if _, err := s.Load("../etc/passwd"); !errors.Is(err, ErrInvalidID) {
		t.Fatalf("Load of a path = %v, want ErrInvalidID", err)
	}
}

// TestChildHistoriesComeBack records two children's messages, one finished
// and one cut off by the process dying: loading returns both histories,
// repaired, and marks the second interrupted.
func TestChildHistoriesComeBack(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	done := agent.Source{AgentID: "explore-1", ParentID: "main", AgentType: "Explore", Depth: 1, Name: "scout"}
	live := agent.Source{AgentID: "explore-2", ParentID: "main", AgentType: "Explore", Depth: 1, Name: "digger"}
	r.Message(agent.Message{Role: agent.RoleUser, Content: "go"})
	r.Event(agent.ChildStarted{Source: done, Model: "small", Worktree: &agent.WorktreeInfo{Branch: "covey/scout"}})
	r.Event(agent.ChildStarted{Source: live, Model: "small"})
	r.ChildMessage(done, agent.Message{Role: agent.RoleUser, Content: "look"})
	r.ChildMessage(done, agent.Message{Role: agent.RoleAssistant, Content: "found it"})
	r.Event(agent.ChildFinished{Source: done, Reason: agent.StopOK, Elapsed: 3 * time.Second, Usage: agent.Usage{InputTokens: 1200, OutputTokens: 80}})
	r.ChildMessage(live, agent.Message{Role: agent.RoleUser, Content: "dig"})
	r.ChildMessage(live, agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "b1", Name: toolname.Bash, Arguments: "{}"}}})
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	r.f.Close()

	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Children) != 2 {
		t.Fatalf("%d children, want 2: %+v", len(l.Children), l.Children)
	}
	c0, c1 := l.Children[0], l.Children[1]
	if c0.Source.Name != "scout" || c0.Reason != agent.StopOK || c0.Interrupted || len(c0.Messages) != 2 || c0.Model != "small" ||
		c0.Usage.Total() != 1280 || c0.Elapsed != 3*time.Second || !c0.Isolated {
		t.Fatalf("finished child: %+v", c0)
	}
	if !c1.Interrupted || c1.Isolated || len(c1.Messages) != 3 || c1.Messages[2].Role != agent.RoleTool || c1.Messages[2].Content != InterruptedResult {
		t.Fatalf("interrupted child: %+v", c1)
	}
	if len(l.Messages) != 1 {
		t.Fatalf("children's messages leaked into the main history: %+v", l.Messages)
	}
}

// TestEventsLeaveOutBackgroundDeliveries checks that the replay shows a
// delivery of background outcomes once, as its BackgroundResult events (as
// the TUI showed it live), not also as the user-role message that carried
// them to the model; the user's own messages all stay.
func TestEventsLeaveOutBackgroundDeliveries(t *testing.T) {
	main := agent.Source{AgentID: agent.MainAgentID}
	notice := "[background agent \"scout\" (id explore-1) finished: done]\nfound it\n\n[This message comes from covey, not the user.]"
	tests := map[string]struct {
		records []Record
		want    []string // the user messages replayed
		results int
	}{
		"a delivery after its results": {
			records: []Record{
				{Message: &agent.Message{Role: agent.RoleUser, Content: "go"}},
				{Event: agent.BackgroundResult{Source: main, ChildID: "explore-1", Name: "scout", Status: "done", Text: "found it"}},
				{Message: &agent.Message{Role: agent.RoleUser, Content: notice}},
				{Message: &agent.Message{Role: agent.RoleAssistant, Content: "noted"}},
				{Message: &agent.Message{Role: agent.RoleUser, Content: "next"}},
			},
			want: []string{"go", "next"}, results: 1,
		},
		"a user message after results is the user's": {
			records: []Record{
				{Event: agent.BackgroundResult{Source: main, ChildID: "explore-1", Name: "scout", Status: "done"}},
				{Message: &agent.Message{Role: agent.RoleUser, Content: "my own words"}},
			},
			want: []string{"my own words"}, results: 1,
		},
		"the notice's form without results is the user's": {
			records: []Record{{Message: &agent.Message{Role: agent.RoleUser, Content: notice}}},
			want:    []string{notice},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			l := &Loaded{Replay: tt.records}
			var users []string
			results := 0
			for _, e := range l.Events() {
				switch e := e.(type) {
				case agent.UserMessage:
					users = append(users, e.Text)
				case agent.BackgroundResult:
					results++
				}
			}
			if strings.Join(users, "|") != strings.Join(tt.want, "|") || results != tt.results {
				t.Errorf("user messages %q and %d results, want %q and %d", users, results, tt.want, tt.results)
			}
		})
	}
}

// TestCutAnswerIsKept: covey stopped while the main agent streamed an
// answer (killed, or quit mid-answer): the text the user saw comes back as
// an assistant message ending in CutNote, written to the file once, so the
// model is told what was on screen and not only that the turn stopped.
// Text after which the run ended, or a child's text, is no cut answer.
func TestCutAnswerIsKept(t *testing.T) {
	tests := map[string]struct {
		events []agent.Event
		want   string // the last message's content; "" for no cut answer
	}{
		"streaming when killed": {[]agent.Event{
			agent.TextDelta{Source: mainSrc, Text: "Here is "}, agent.TextDelta{Source: mainSrc, Text: "half of it"},
		}, "Here is half of it\n\n" + CutNote},
		"the run ended": {[]agent.Event{
			agent.TextDelta{Source: mainSrc, Text: "whole"}, agent.Done{Source: mainSrc, Reason: agent.StopCancelled},
		}, ""},
		"only a child streamed": {[]agent.Event{agent.TextDelta{Source: childSrc, Text: "child text"}}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := testStore(t)
			r, err := s.Create("/ws", "m")
			if err != nil {
				t.Fatal(err)
			}
			r.Message(agent.Message{Role: agent.RoleUser, Content: "tell me"})
			for _, e := range tc.events {
				r.Event(e)
			}
			if err := r.Flush(); err != nil {
				t.Fatal(err)
			}
			r.f.Close()
			r2, l, err := s.Open(r.ID())
			if err != nil {
				t.Fatal(err)
			}
			last := l.Messages[len(l.Messages)-1]
			if tc.want == "" {
				if last.Role == agent.RoleAssistant {
					t.Fatalf("an assistant message was made up: %q", last.Content)
				}
				return
			}
			if last.Role != agent.RoleAssistant || last.Content != tc.want {
				t.Fatalf("last message %s %q, want the cut answer %q", last.Role, last.Content, tc.want)
			}
			if err := r2.Close(); err != nil {
				t.Fatal(err)
			}
			again, err := s.Load(r.ID())
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "messages on the next load", again.Messages, l.Messages)
		})
	}
}

// TestEventTimesReadBack: an event line carries the time it was recorded
// at its end, which Read gives back as Record.At; a line written before
// events were timed reads with a zero time, and a torn time is no time.
func TestEventTimesReadBack(t *testing.T) {
	head := `{"type":"session","id":"x","workspace":"/ws","created":"2026-01-01T00:00:00Z","model":"m","version":1}` + "\n"
	lines := head +
		`{"type":"event","event":{"type":"tool_started","agent_id":"main","call_id":"c1","name":"glob","args":{},"read_only":true},"at":1700000000123}` + "\n" +
		`{"type":"event","event":{"type":"tool_started","agent_id":"main","call_id":"c2","name":"glob","args":{},"read_only":true}}` + "\n" +
		`{"type":"event","event":{"type":"tool_started","agent_id":"main","call_id":"c3","name":"glob","args":{},"read_only":true},"at":}` + "\n"
	l, err := Read(strings.NewReader(lines))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range l.Replay {
		if ts, ok := rec.Event.(agent.ToolStarted); ok {
			got = append(got, fmt.Sprintf("%s@%d", ts.CallID, rec.At.UnixMilli()))
		}
	}
	want := []string{"c1@1700000000123", fmt.Sprintf("c2@%d", time.Time{}.UnixMilli())}
	if strings.Join(got[:min(2, len(got))], " ") != strings.Join(want, " ") {
		t.Errorf("events read back as %v, want %v first", got, want)
	}
}
