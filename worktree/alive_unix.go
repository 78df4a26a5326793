//go:build unix

package worktree

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with pid exists (signal 0 probes
// without delivering anything; EPERM means it exists but is not ours).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
