package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadSettingsHostile: a repository's settings file that is a FIFO or
// a symlink to /dev/zero is refused at once, naming what it is.
func TestReadSettingsHostile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a FIFO", zero: "a character device"} {
		if _, err := ReadSettings(path); err == nil || !strings.Contains(err.Error(), "not a regular file ("+want+")") {
			t.Errorf("ReadSettings(%s) = %v, want it refused as %s", path, err, want)
		}
	}
}
