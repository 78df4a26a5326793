//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := Read(small, 5)
	if err != nil || string(data) != "hello" {
		t.Fatalf("Read at the limit = %q, %v", data, err)
	}
	data, err = Read(small, 3)
	if !errors.Is(err, ErrTooLarge) || string(data) != "hel" {
		t.Fatalf("Read past the limit = %q, %v; want the first 3 bytes and ErrTooLarge", data, err)
	}
	if _, err := Read(dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Read of a folder = %v, want ErrNotRegular", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Read of a missing file = %v, want ErrNotExist", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal("mkfifo:", err)
	}
	// A FIFO without a writer would block a plain read for ever.
	if _, err := Read(fifo, 10); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Read of a FIFO = %v, want ErrNotRegular", err)
	}
}
