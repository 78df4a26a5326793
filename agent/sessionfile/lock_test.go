//go:build unix

package sessionfile

import (
	"errors"
	"os"
	"strings"
	"testing"

	"covey/agent"
)

// TestSessionLock: a session a recorder holds open (created or reopened)
// is refused to a second opener, which is told who holds it; once the
// holder closes (or dies: the lock goes with its file), it opens.
func TestSessionLock(t *testing.T) {
	s := testStore(t)
	r1, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	r1.Message(agent.Message{Role: agent.RoleUser, Content: "live turn"})
	r1.Event(agent.TextDelta{Source: mainSrc, Text: "still streaming"})
	before := readFile(t, r1.Path())

	_, _, err = s.Open(r1.ID())
	var inUse *InUseError
	if !errors.As(err, &inUse) || !errors.Is(err, ErrInUse) {
		t.Fatalf("Open of a session in use = %v, want an InUseError", err)
	}
	if inUse.PID != os.Getpid() || !strings.Contains(err.Error(), "pid ") {
		t.Errorf("the refusal names pid %d (%v), want this process %d", inUse.PID, err, os.Getpid())
	}
	if after := readFile(t, r1.Path()); after != before {
		t.Errorf("the refused Open wrote to the file:\n%s", after[len(before):])
	}
	if err := r1.Close(); err != nil {
		t.Fatal(err)
	}
	r2, _, err := s.Open(r1.ID())
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	if _, _, err := s.Open(r1.ID()); !errors.Is(err, ErrInUse) {
		t.Errorf("a reopened session is not locked: %v", err)
	}
	if err := r2.Close(); err != nil {
		t.Fatal(err)
	}
}
