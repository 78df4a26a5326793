package workspace

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkListGOROOT measures listing GOROOT/src with the .gitignore
// walker, the part of an uncached grep that is not searching.
func BenchmarkListGOROOT(b *testing.B) {
	src := filepath.Join(runtime.GOROOT(), "src")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := listFiles(context.Background(), src); err != nil {
			b.Fatal(err)
		}
	}
}
