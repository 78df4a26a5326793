package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// faultFS is the real filesystem with one step made to fail.
type faultFS struct {
	failAt string // "create", "write", "chmod", "sync", "close" or "rename"
	temps  []string
}

var errInjected = errors.New("injected failure")

func (f *faultFS) CreateTemp(dir, pattern string) (workspace.TempFile, error) {
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

func TestAtomicWriteFailureKeepsOriginal(t *testing.T) {
	const original = "original content\nline two\n"
	for _, step := range []string{"create", "write", "chmod", "sync", "close", "rename"} {
		for _, toolName := range []string{toolname.WriteFile, toolname.EditFile} {
			t.Run(toolName+"/"+step, func(t *testing.T) {
				env := wtEnv(t)
				abs := wtPut(t, env, "f.txt", original, true)
				if err := os.Chmod(abs, 0o640); err != nil {
					t.Fatal(err)
				}
				fsys := &faultFS{failAt: step}
				var res tool.Result
				if toolName == toolname.WriteFile {
					wt := NewWriteFile(env).(*writeFileTool)
					wt.m.fs = fsys
					res = wtRun(t, wt, map[string]any{"path": "f.txt", "content": "replacement\n"})
				} else {
					et := NewEditFile(env).(*editFileTool)
					et.m.fs = fsys
					res = wtRun(t, et, map[string]any{"path": "f.txt", "old_string": "two", "new_string": "2"})
				}
				if !res.IsError || !strings.Contains(res.Content, errInjected.Error()) {
					t.Fatalf("want the injected error, got %+v", res)
				}
				if got := wtGet(t, abs); got != original {
					t.Fatalf("original changed to %q", got)
				}
				info, err := os.Stat(abs)
				if err != nil || info.Mode().Perm() != 0o640 {
					t.Fatalf("mode %v, %v", info.Mode(), err)
				}
				assertOnlyFile(t, filepath.Dir(abs), "f.txt")
				// The agent's record still matches the file: retrying works.
				if err := env.Reads.Check(abs, []byte(original)); err != nil {
					t.Fatalf("tracker: %v", err)
				}
			})
		}
	}
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
