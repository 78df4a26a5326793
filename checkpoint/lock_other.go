//go:build !unix

package checkpoint

import "os"

// createLocked writes a journal (no lock where flock does not exist).
func createLocked(path string, data []byte) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, f.Sync()
}

// lockStale opens a journal; without locks every journal counts as stale.
func lockStale(path string) (*os.File, bool) {
	f, err := os.Open(path)
	return f, err == nil
}
