//go:build !unix

package boundedfile

import "os"

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
