//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
)

// backends are tried in order; none exists here yet (Seatbelt on macOS
// would be one).
func backends() []backend { return nil }

// RunHelper is the sandbox helper; on this system there is nothing it can
// confine with, so it refuses to run the command.
func RunHelper(args []string) {
	fmt.Fprintf(os.Stderr, "covey sandbox: no sandbox for %s; the command did not run\n", runtime.GOOS)
	os.Exit(125)
}

// DefaultMode is the sandbox mode when the config and flags name none:
// off where covey has no sandbox yet.
func DefaultMode() Mode { return ModeOff }
