package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// faultFS is the real filesystem with one step made to fail.
type faultFS struct {
	failAt string // "create", "write", "chmod", "sync", "close" or "rename"
	temps  []string
}

var errInjected = errors.New("injected failure")

func (f *faultFS) CreateTemp(dir, pattern string) (TempFile, error) {
	if f.failAt == "create" {
		return nil, errInjected
	}
	file, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	f.temps = append(f.temps, file.Name())
	return &faultFile{File: file, failAt: f.failAt}, nil
}

func (f *faultFS) Rename(oldpath, newpath string) error {
	if f.failAt == "rename" {
		return errInjected
	}
	return os.Rename(oldpath, newpath)
}

func (f *faultFS) Remove(name string) error { return os.Remove(name) }

type faultFile struct {
	*os.File
	failAt string
}

// Write fails half way, as a full disk does.
func (f *faultFile) Write(p []byte) (int, error) {
	if f.failAt == "write" {
		n, _ := f.File.Write(p[:len(p)/2])
		return n, errInjected
	}
	return f.File.Write(p)
}

func (f *faultFile) Chmod(mode os.FileMode) error {
	if f.failAt == "chmod" {
		return errInjected
	}
	return f.File.Chmod(mode)
}

func (f *faultFile) Sync() error {
	if f.failAt == "sync" {
		return errInjected
	}
	return f.File.Sync()
}

func (f *faultFile) Close() error {
	err := f.File.Close()
	if f.failAt == "close" {
		return errInjected
	}
	return err
}

func TestWriteAtomicNewFileFailure(t *testing.T) {
	for _, step := range []string{"write", "sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "new.txt")
			err := WriteAtomic(&faultFS{failAt: step}, path, []byte("data"), NewFilePerm)
			if !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the injected failure wrapped", err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a failed write created the file: %v", err)
			}
			assertOnlyFile(t, dir)
		})
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(OSFS{}, path, []byte("new"), 0o751); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Fatalf("content %q", got)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o751 {
		t.Fatalf("mode %v", info.Mode())
	}
	assertOnlyFile(t, dir, "f")
}

// assertOnlyFile fails unless dir holds exactly the named entries: no
// temporary file may be left behind.
func assertOnlyFile(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("dir holds %v, want %v", got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("dir holds %v, want %v", got, names)
		}
	}
}
