// Package boundedfile reads the small files covey loads on its own
// (commands, skills, memory): regular files only, and never more than a
// limit, so a FIFO, a device or a huge file named like one cannot hang or
// exhaust covey. It stands in for the bounded reader the faults-bounds work
// adds (same contract) until that lands.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is returned, with the first limit bytes, when a file holds
// more than the limit.
var ErrTooLarge = errors.New("file is larger than the limit")

// ErrNotRegular is returned for anything but a regular file (after
// following symlinks): a folder, FIFO, socket or device.
var ErrNotRegular = errors.New("not a regular file")

// Read returns the content of the regular file at path, at most limit
// bytes. A longer file returns its first limit bytes and an error wrapping
// ErrTooLarge.
func Read(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been swapped for a FIFO between Stat and Open.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return data[:limit], fmt.Errorf("%s: %w of %d bytes", path, ErrTooLarge, limit)
	}
	return data, nil
}
