//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// lockTemp takes the lock of a temporary file while it is written (it goes
// when the file is closed, or its process dies).
func lockTemp(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// unlocked reports whether no one holds the lock of the file at path.
func unlocked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
