package workspace

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// NewFilePerm is the permission of a file the tools create.
const NewFilePerm os.FileMode = 0o644

// TempFile is the part of *os.File an atomic write uses.
type TempFile interface {
	io.Writer
	Name() string
	Chmod(mode os.FileMode) error
	Sync() error
	Close() error
}

// FileSystem is the handful of calls an atomic write makes. The tools keep
// one in an unexported field so tests can inject a failure at each step
// without package-level state.
type FileSystem interface {
	CreateTemp(dir, pattern string) (TempFile, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
}

// OSFS is the real filesystem. With Temps, every temporary file is listed
// in the journal and locked while it is written, so a covey killed
// mid-write leaves nothing a later one cannot clean up.
type OSFS struct{ Temps *TempJournal }

// CreateTemp creates a temporary file in dir, as os.CreateTemp does.
func (fs OSFS) CreateTemp(dir, pattern string) (TempFile, error) {
	if fs.Temps == nil {
		return os.CreateTemp(dir, pattern)
	}
	// As os.CreateTemp, but the name is listed before the file exists: a
	// kill between the two must not leave a file nobody knows of.
	prefix, suffix, _ := strings.Cut(pattern, "*")
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		if err := fs.Temps.note(name); err != nil {
			return nil, err // unlisted, it could be left behind for good
		}
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		lockTemp(f)
		return f, nil
	}
	return nil, fmt.Errorf("create a temporary file in %s: no free name", dir)
}

// Rename is os.Rename.
func (OSFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove is os.Remove.
func (OSFS) Remove(name string) error { return os.Remove(name) }

// WriteAtomic replaces the file at path with data so that a reader, or a
// crash, sees either the old content or the new, never a mix: it writes a
// temporary file in the same folder (so the rename stays on one filesystem),
// syncs it, gives it perm, and renames it over path. On any failure it
// removes the temporary file and leaves path untouched.
//
// Renaming replaces path itself: a hard link elsewhere keeps the old content.
// Callers pass a symlink-resolved path so a symlink stays a symlink.
func WriteAtomic(fsys FileSystem, path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := fsys.CreateTemp(dir, tempPattern(base))
	if err != nil {
		return fmt.Errorf("create temporary file for %s: %w", path, err)
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err == nil {
			return
		}
		if !closed {
			_ = f.Close()
		}
		if rmErr := fsys.Remove(tmp); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			err = fmt.Errorf("%w (and removing %s failed: %w)", err, tmp, rmErr)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	// CreateTemp makes the file 0600; chmod is not subject to the umask, so
	// the original's bits come back exactly.
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	closed = true
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err = fsys.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s over %s: %w", tmp, path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable. It is best effort: the write has already
// happened, and some filesystems refuse to sync a directory.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// KeepMode returns the permission and special bits of an existing file, the
// ones a rewrite must carry over.
func KeepMode(info os.FileInfo) os.FileMode {
	return info.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
}
