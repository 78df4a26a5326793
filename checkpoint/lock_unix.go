//go:build unix

package checkpoint

import (
	"os"
	"syscall"
)

// createLocked writes a journal and keeps it locked (flock: released when
// the file is closed or the process dies, however it dies), so Recover
// tells a live restore from one a killed covey left.
func createLocked(path string, data []byte) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	return f, nil
}

// lockStale opens a journal and locks it when no live process holds it.
func lockStale(path string) (*os.File, bool) {
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, false
	}
	return f, true
}
