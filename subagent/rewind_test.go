package subagent

import "testing"

// TestDiscardedOutcomesAreNeverDelivered: a /rewind drops children; their
// outcomes, waiting or still to come, never reach the parent, and the
// inbox does not wait for them.
func TestDiscardedOutcomesAreNeverDelivered(t *testing.T) {
	in := newInbox()
	in.add()
	in.add()
	in.add()
	in.post(Notice{ChildID: "a", Text: "waiting"})
	in.Discard([]string{"a", "b"})
	in.post(Notice{ChildID: "b", Text: "late"})
	in.post(Notice{ChildID: "c", Text: "kept"})
	in.deliver(Notice{ChildID: "b", Text: "forwarded"})
	got := in.Take()
	if len(got) != 1 || got[0].ChildID != "c" {
		t.Fatalf("delivered %+v, want only c's", got)
	}
	if !in.Idle() {
		t.Fatalf("the inbox still waits: %d outstanding", in.Outstanding())
	}
}
