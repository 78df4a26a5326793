package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/tools/tool"
)

// sessionOf writes events as a session file and reads it back, each event
// a millisecond after the last.
func sessionOf(t *testing.T, events ...agent.Event) *sessionfile.Loaded {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"type":"session","id":"s1","workspace":"/ws","created":"2026-01-01T00:00:00Z","model":"m","version":1}` + "\n")
	at := time.UnixMilli(1_700_000_000_000)
	for _, e := range events {
		body, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		// The kind goes first, as the recorder writes it.
		line := fmt.Sprintf(`{"type":"event","event":{"type":%q,%s,"at":%d}`, e.Kind(), body[1:], at.UnixMilli())
		b.WriteString(line + "\n")
		at = at.Add(time.Millisecond)
	}
	l, err := sessionfile.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestReportStaysSmall: a child that logged 10 MB of tool results still
// gives a report of a few hundred KB in every format.
func TestReportStaysSmall(t *testing.T) {
	child := agent.Source{AgentID: "general-purpose-1", Name: "noisy", AgentType: "general-purpose", Depth: 1, ParentID: agent.MainAgentID, ParentCallID: "c0"}
	events := []agent.Event{agent.ChildStarted{Source: child, Model: "m"}}
	big := strings.Repeat("x", 1000)
	for i := range 10_000 {
		id := fmt.Sprintf("call%d", i)
		events = append(events,
			agent.ToolStarted{Source: child, CallID: id, Name: "write_file", KeyArg: fmt.Sprintf("f%d.go", i)},
			agent.ToolFinished{Source: child, CallID: id, Name: "write_file", KeyArg: fmt.Sprintf("f%d.go", i),
				Result: tool.Result{Content: big, Display: &tool.FileChange{Path: fmt.Sprintf("f%d.go", i), Diff: "+x", Added: 1}}})
	}
	events = append(events, agent.ChildFinished{Source: child, Reason: agent.StopOK, ToolCalls: 10_000})
	r := Build(sessionOf(t, events...), Options{Path: "/s/s1.jsonl"})
	a := r.Agents[len(r.Agents)-1]
	if a.ToolCalls != 10_000 || len(a.Files) != maxFiles || a.MoreFiles != 10_000-maxFiles || a.MoreMarks != 10_000-maxMarks {
		t.Errorf("calls %d, files %d (+%d), marks %d (+%d)", a.ToolCalls, len(a.Files), a.MoreFiles, len(a.Marks), a.MoreMarks)
	}
	for _, format := range []string{FormatMarkdown, FormatJSON, FormatHTML} {
		var out bytes.Buffer
		if err := Write(&out, r, format); err != nil {
			t.Fatal(err)
		}
		if out.Len() > 300<<10 {
			t.Errorf("%s report of a 10 MB child is %d KB", format, out.Len()>>10)
		}
	}
}

// TestReportSpansAndReview: a child paused then resumed, in the
// background, isolated and applied with a file left out: its spans,
// paused time and review say so; a session file without times has no
// timeline.
func TestReportSpansAndReview(t *testing.T) {
	c := agent.Source{AgentID: "explore-1", Name: "scout", AgentType: "Explore", Depth: 1, ParentID: agent.MainAgentID}
	l := sessionOf(t,
		agent.ChildStarted{Source: c},
		agent.ChildState{Source: c, State: agent.StatePaused, Paused: true},
		agent.ChildState{Source: c, State: agent.StateRunning},
		agent.ChildState{Source: c, State: agent.StateRunning, Background: true},
		agent.WorktreeResult{Source: c, Status: agent.WorktreeApplied, Skipped: []string{"b.go"}},
		agent.ChildFinished{Source: c, Reason: agent.StopMaxTurns},
	)
	r := Build(l, Options{})
	a := r.Agents[1]
	var kinds []string
	for _, s := range a.Spans {
		kinds = append(kinds, s.Kind)
	}
	if strings.Join(kinds, ",") != "running,paused,running,background" || a.Paused != 0.001 || a.State != "cut short" ||
		a.Review != "applied, trimmed by hunk or file (1 skipped)" || !r.Timed {
		t.Errorf("spans %v, paused %v, state %q, review %q, timed %v", kinds, a.Paused, a.State, a.Review, r.Timed)
	}
	var md bytes.Buffer
	if err := Write(&md, r, "pdf"); err == nil {
		t.Error("an unknown format is no error")
	}
}

// TestReportUserTurns counts the user's prompts, not the message that
// delivers background children's outcomes to the main agent.
func TestReportUserTurns(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","id":"s1","workspace":"/ws","created":"2026-01-01T00:00:00Z","model":"m","version":1}` + "\n")
	for _, line := range []string{
		`{"type":"message","message":{"role":"user","content":"start the scout"}}`,
		`{"type":"event","event":{"type":"background_result","agent_id":"main","child_id":"explore-1","name":"scout","status":"done","text":"found"}}`,
		`{"type":"message","message":{"role":"user","content":"[background agent \"scout\" (explore-1) finished: done]\nfound"}}`,
		`{"type":"message","message":{"role":"user","content":"thanks, now fix it"}}`,
	} {
		b.WriteString(line + "\n")
	}
	l, err := sessionfile.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got := Build(l, Options{}).Session.UserTurns; got != 2 {
		t.Errorf("user turns %d, want 2", got)
	}
}

// TestReportApprovalGaps: a question put to the user is a gap in the
// asking agent's timeline, a child's and the main agent's alike, and the
// wait is counted.
func TestReportApprovalGaps(t *testing.T) {
	main := agent.Source{AgentID: agent.MainAgentID}
	child := agent.Source{AgentID: "general-purpose-1", Name: "scribe", AgentType: "general-purpose", Depth: 1, ParentID: agent.MainAgentID, ParentCallID: "c0"}
	r := Build(sessionOf(t,
		agent.ToolStarted{Source: main, CallID: "c0", Name: "task"}, // 0 ms
		agent.ChildStarted{Source: child, Model: "m"},               // 1
		agent.ApprovalAsked{Source: child, ID: 1, Tool: "write_file", Summary: "NOTES.md"},
		agent.ToolStarted{Source: child, CallID: "w", Name: "write_file"},
		agent.ApprovalAnswered{Source: child, ID: 1, Tool: "write_file", Allowed: true, Outcome: agent.OutcomeAllowed}, // 4
		agent.ChildFinished{Source: child, Reason: agent.StopOK},                                                       // 5
		agent.ApprovalAsked{Source: main, ID: 2, Tool: "ask_user", Question: true, Summary: "which?"},                  // 6
		agent.ApprovalAnswered{Source: main, ID: 2, Tool: "ask_user", Allowed: true, Outcome: agent.OutcomeAllowed},    // 7
		agent.Done{Source: main, Reason: agent.StopOK},                                                                 // 8
	), Options{})
	kinds := func(a *Agent) string {
		var s []string
		for _, sp := range a.Spans {
			s = append(s, fmt.Sprintf("%s %.3f-%.3f", sp.Kind, sp.Start, sp.End))
		}
		return strings.Join(s, ", ")
	}
	m, c := r.Agents[0], r.Agents[1]
	if got, want := kinds(c), "running 0.001-0.002, approval 0.002-0.004, running 0.004-0.005"; got != want {
		t.Errorf("the child's timeline: %s, want %s", got, want)
	}
	if got, want := kinds(m), "running 0.000-0.006, question 0.006-0.007, running 0.007-0.008"; got != want {
		t.Errorf("the main agent's timeline: %s, want %s", got, want)
	}
	if c.Asked != 1 || c.Waited != 0.002 || m.Asked != 1 || m.Waited != 0.001 {
		t.Errorf("asked/waited: child %d/%v, main %d/%v", c.Asked, c.Waited, m.Asked, m.Waited)
	}
	var page bytes.Buffer
	if err := Write(&page, r, FormatHTML); err != nil || !strings.Contains(page.String(), `class="span approval"`) || !strings.Contains(page.String(), `class="span question"`) {
		t.Errorf("the page draws no gap (%v)", err)
	}
}

// TestReportCollisionCount: the page counts a child's collisions in
// words ("1 collision", "2 collisions").
func TestReportCollisionCount(t *testing.T) {
	c := agent.Source{AgentID: "general-purpose-1", Name: "coder", AgentType: "general-purpose", Depth: 1, ParentID: agent.MainAgentID}
	for n, want := range map[int]string{1: "⚠ 1 collision<", 2: "⚠ 2 collisions<"} {
		events := []agent.Event{agent.ChildStarted{Source: c}}
		for i := range n {
			events = append(events, agent.Collision{Source: c, Path: fmt.Sprintf("f%d.go", i), WithID: "explore-2", WithName: "scout (explore-2)", Action: "read"})
		}
		events = append(events, agent.ChildFinished{Source: c})
		var page bytes.Buffer
		if err := Write(&page, Build(sessionOf(t, events...), Options{}), FormatHTML); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page.String(), want) {
			t.Errorf("%d collisions: the page does not say %q", n, want)
		}
	}
}
