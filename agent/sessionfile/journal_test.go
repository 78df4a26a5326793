package sessionfile

import (
	"encoding/json"
	"testing"
	"time"

	"covey/agent"
)

// TestJournaledQuestionsLoad: the questions put to the user and their
// answers, and collisions, come back from the file as the events they
// were, timed; a user message takes the time of the checkpoint before it.
func TestJournaledQuestionsLoad(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(1_700_000_000_000)
	r.now = func() time.Time { return at }
	child := agent.Source{AgentID: "general-purpose-1", Name: "scribe", Depth: 1}
	sent := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	r.Checkpoint(Checkpoint{ID: "c1", Time: sent, Text: "go"})
	r.Message(agent.Message{Role: agent.RoleUser, Content: "go"})
	r.Event(agent.ApprovalAsked{Source: child, ID: 7, Tool: "write_file", Summary: "NOTES.md", Request: json.RawMessage(`{"Tool":"write_file","Path":"NOTES.md"}`)})
	r.Event(agent.ApprovalAnswered{Source: child, ID: 7, Tool: "write_file", Allowed: false, Outcome: agent.OutcomeDenied, Detail: "not now"})
	r.Event(agent.Collision{Source: child, Path: "a.go", WithID: "explore-1", WithName: "scout", Action: "read"})
	r.Event(agent.ChildFinished{Source: child, Reason: agent.StopOK})
	r.Event(agent.Done{Source: agent.Source{AgentID: agent.MainAgentID}, Reason: agent.StopOK})
	// A trust question answered after the turn starts no run to repair.
	r.Event(agent.ApprovalAsked{Source: agent.Source{AgentID: agent.MainAgentID}, ID: 8, Tool: "merge_worktree"})
	r.Event(agent.ApprovalAnswered{Source: agent.Source{AgentID: agent.MainAgentID}, ID: 8, Tool: "merge_worktree", Allowed: true, Outcome: agent.OutcomeAllowed})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) > 0 {
		t.Fatalf("warnings: %v", l.Warnings)
	}
	evs := l.TimedEvents()
	if len(evs) != 8 {
		t.Fatalf("%d events: %#v", len(evs), evs)
	}
	if u, ok := evs[0].Event.(agent.UserMessage); !ok || u.Text != "go" || !evs[0].At.Equal(sent) {
		t.Errorf("the user's message: %#v at %v, want at %v", evs[0].Event, evs[0].At, sent)
	}
	if a, ok := evs[1].Event.(agent.ApprovalAsked); !ok || a.ID != 7 || a.AgentID != child.AgentID || string(a.Request) != `{"Tool":"write_file","Path":"NOTES.md"}` || !evs[1].At.Equal(at) {
		t.Errorf("the request: %#v at %v", evs[1].Event, evs[1].At)
	}
	if a, ok := evs[2].Event.(agent.ApprovalAnswered); !ok || a.Outcome != agent.OutcomeDenied || a.Detail != "not now" {
		t.Errorf("the answer: %#v", evs[2].Event)
	}
	if c, ok := evs[3].Event.(agent.Collision); !ok || c.WithName != "scout" {
		t.Errorf("the collision: %#v", evs[3].Event)
	}
	if got := len(l.Events()); got != 8 {
		t.Errorf("Events gives %d, TimedEvents 8", got)
	}
}
