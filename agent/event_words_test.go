package agent

import "testing"

// TestEndVerb: a child that did not finish is never said to have.
func TestEndVerb(t *testing.T) {
	for how, want := range map[string]string{
		StateDone: "finished", StopOK: "finished", StateCancelled: "was cancelled", StateFailed: "failed", StopError: "failed",
		StateCutShort: "was cut short", StopTimeout: "timed out", StopBudget: "stopped at its budget", StopMaxTurns: "stopped at its turn limit",
	} {
		if got := EndVerb(how); got != want {
			t.Errorf("EndVerb(%q) = %q, want %q", how, got, want)
		}
	}
}
