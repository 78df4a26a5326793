package subagent

import "testing"

// TestInboxTakeIsAChange: a waiter that saw notices waiting (Driver.Wait)
// must wake when they are taken, since the turn they start may run and end
// before it looks at the driver again; taking nothing changes nothing (the
// driver's loop would spin).
func TestInboxTakeIsAChange(t *testing.T) {
	in := newInbox()
	in.add()
	in.post(Notice{ChildID: "c1", Name: "scout", Status: "done"})
	changed := in.Changed()
	if got := in.Take(); len(got) != 1 {
		t.Fatalf("took %d notices, want 1", len(got))
	}
	select {
	case <-changed:
	default:
		t.Error("taking the waiting notices did not signal a change")
	}
	if !in.Idle() {
		t.Error("the inbox is not idle after its notice was taken")
	}
	changed = in.Changed()
	in.Take()
	select {
	case <-changed:
		t.Error("taking nothing signalled a change")
	default:
	}
}
