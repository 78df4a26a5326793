// Package safefile reads files covey did not write (a repository's
// AGENTS.md, .mcp.json, .covey/config.yaml, agent and command files, the
// user's settings) without trusting them: only regular files are read, and
// never more than the caller's limit. A hostile repository can make any of
// these a symlink to /dev/zero, a FIFO that never answers or a device;
// os.ReadFile would read the first forever and block on the second.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by every error about a path that is not a
// regular file (a FIFO, a device, a socket, a folder), symlinks followed.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by Read's error for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading if, symlinks followed, it is a regular file.
// It never blocks on a FIFO: the file is opened without waiting for a
// writer, and what was opened is checked again (the path may have been
// swapped between the two looks).
func Open(path string) (*os.File, error) {
	// A first look without opening: opening some devices has effects.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	fi, err = f.Stat()
	if err == nil {
		err = regular(path, fi)
	}
	if err != nil {
		_ = f.Close() // read only: nothing to lose
		return nil, err
	}
	return f, nil
}

// regular refuses what is not a regular file, naming what it is.
func regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "read", Path: path, Err: NotRegular(fi.Mode())}
}

// NotRegular is the error (wrapping ErrNotRegular) for a file of mode m,
// for callers that have looked at a file without opening it.
func NotRegular(m fs.FileMode) error { return fmt.Errorf("%w (%s)", ErrNotRegular, kind(m)) }

// kind names a file type in the words of ls and find.
func kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeDir != 0:
		return "a folder"
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	default:
		return "mode " + t.String()
	}
}

// Read returns the content of path, a regular file of at most limit
// bytes; a larger one is refused with ErrTooLarge (reading stops one byte
// past the limit, whatever the size says: a file may grow while read).
func Read(path string, limit int64) ([]byte, error) {
	data, cut, err := ReadPrefix(path, limit)
	if err != nil {
		return nil, err
	}
	if cut {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: over the %s limit", ErrTooLarge, Size(limit))}
	}
	return data, nil
}

// ReadPrefix returns at most the first limit bytes of path, a regular
// file, and whether there was more.
func ReadPrefix(path string, limit int64) (data []byte, cut bool, err error) {
	f, err := Open(path)
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = f.Close() }() // read only: a close error changes nothing
	var hint int64
	if fi, err := f.Stat(); err == nil {
		hint = fi.Size()
	}
	return readAtMost(f, limit, hint)
}

// readAtMost reads up to limit bytes of r and tells whether more followed.
// hint, the size the file claims, sizes the buffer once (a large file is
// not read through a chain of doubling copies).
func readAtMost(r io.Reader, limit, hint int64) ([]byte, bool, error) {
	if limit < 0 {
		limit = 0
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(max(hint, 0), limit)+1+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, false, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

// Size formats a byte count for messages: "64 KB", "1 MB", "1.5 GB".
func Size(n int64) string {
	const k = 1024
	switch {
	case n >= k*k*k:
		return trim(float64(n)/(k*k*k)) + " GB"
	case n >= k*k:
		return trim(float64(n)/(k*k)) + " MB"
	case n >= k:
		return trim(float64(n)/k) + " KB"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trim(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s
}
