//go:build unix

package tools

import (
	"errors"
	"syscall"
)

// readWhole reads the file at path into buf, growing it as needed; files
// that are not regular, too large or unreadable are reported as skipped.
//
// It talks to the kernel directly because grep reads thousands of small
// files and os.File costs two extra system calls per file (an fstat to
// decide about the poller, then the read that returns EOF): here a file is
// one open, usually one read, one close. A read shorter than asked ends the
// file, which holds for regular files; O_NONBLOCK keeps a FIFO from
// blocking, and a directory fails the read with EISDIR.
func readWhole(path string, buf []byte) ([]byte, skipReason) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	for errors.Is(err, syscall.EINTR) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		return buf, skippedUnreadable
	}
	defer syscall.Close(fd)
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > grepMaxFileSize {
				return buf[:0], skippedLarge
			}
			buf = grow(fd, buf)
		}
		want := cap(buf) - len(buf)
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return buf[:0], skippedUnreadable
		}
		buf = buf[:len(buf)+n]
		if n < want {
			if len(buf) > grepMaxFileSize {
				return buf[:0], skippedLarge
			}
			return buf, notSkipped
		}
	}
}

// grow makes room in a full buffer: to the file's size (plus a spare byte
// to see the end) when fstat knows it, so a big file is copied once, or to
// twice the size otherwise.
func grow(fd int, buf []byte) []byte {
	want := 2 * cap(buf)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Size >= int64(len(buf)) && st.Size < grepMaxFileSize {
		want = int(st.Size) + 1
	}
	nb := make([]byte, len(buf), max(want, len(buf)+1))
	copy(nb, buf)
	return nb
}
