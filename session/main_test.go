package session

import (
	"os"
	"testing"

	"covey/sandbox"
)

// TestMain lets the test binary serve as covey's sandbox helper, as
// covey's main does, so a user's "!command" runs confined here as in
// covey.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		sandbox.RunHelper(os.Args[2:])
	}
	os.Exit(m.Run())
}
