//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNoBlock opens path read-only without waiting for a FIFO's writer
// (O_NONBLOCK changes nothing for a regular file's reads).
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
