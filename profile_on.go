//go:build coveyprof

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole run to $COVEY_CPUPROFILE
// when it is set, for finding where a mode's CPU goes (docs/performance.md):
//
//	go build -tags coveyprof -o /tmp/covey-prof .
//	COVEY_CPUPROFILE=/tmp/tui.pprof /tmp/covey-prof ...
//	go tool pprof -top /tmp/covey-prof /tmp/tui.pprof
func startProfile() (stop func()) {
	path := os.Getenv("COVEY_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "covey: cpu profile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "covey: cpu profile:", err)
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
