package sessionfile

import (
	"testing"
	"time"

	"covey/agent"
)

// TestCollisionRoundTrips: the collision radar's events are journaled and
// read back (the crew report marks them), without a load warning.
func TestCollisionRoundTrips(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/work/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	src := agent.Source{AgentID: "general-purpose-2", Name: "coder", AgentType: "general-purpose", Depth: 1, ParentID: agent.MainAgentID}
	want := []agent.Event{
		agent.Collision{Source: src, CallID: "w1", Path: "server.go", WithID: "general-purpose-1", WithName: "docs (general-purpose-1)", Action: "read", Ago: 2 * time.Second},
		agent.Collision{Source: src, Path: "NOTES.md ~ *.md", WithID: "general-purpose-1", WithName: "docs (general-purpose-1)", Action: "declared"},
	}
	for _, e := range want {
		r.Event(e)
	}
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
	var got []agent.Event
	for _, rec := range l.Replay {
		if rec.Event != nil {
			got = append(got, rec.Event)
		}
	}
	// Loading then closes the coder's unfinished run: only the first two
	// are the journal's.
	if len(got) < len(want) {
		t.Fatalf("%d events read back, want %d at least", len(got), len(want))
	}
	mustEqual(t, "events", got[:len(want)], want)
}
