//go:build !unix

package tools

import (
	"errors"
	"io"
	"os"
)

// readWhole reads the file at path into buf, growing it as needed; files
// that are not regular, too large or unreadable are reported as skipped.
func readWhole(path string, buf []byte) ([]byte, skipReason) {
	f, err := os.Open(path)
	if err != nil {
		return buf, skippedUnreadable
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return buf, skippedUnreadable
	}
	if fi.Size() > grepMaxFileSize {
		return buf, skippedLarge
	}
	// One spare byte lets a single Read reach EOF for a file that did not grow.
	if want := int(fi.Size()) + 1; cap(buf) < want {
		buf = make([]byte, 0, want+want/4)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > grepMaxFileSize {
				return buf[:0], skippedLarge
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, notSkipped
		}
		if err != nil {
			return buf[:0], skippedUnreadable
		}
	}
}
