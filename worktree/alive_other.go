//go:build !unix

package worktree

import "os"

// processAlive reports whether a process with pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
