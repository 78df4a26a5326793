//go:build unix

package boundedfile

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading without blocking on a FIFO that has
// no writer.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
