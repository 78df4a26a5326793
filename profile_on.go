//go:build coveyprof

package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfile writes a CPU profile of the whole run to $COVEY_CPUPROFILE
// when it is set, for finding where a mode's CPU goes (docs/performance.md):
//
//	go build -tags coveyprof -o /tmp/covey-prof .
//	COVEY_CPUPROFILE=/tmp/tui.pprof /tmp/covey-prof ...
//	go tool pprof -top /tmp/covey-prof /tmp/tui.pprof
//
// $COVEY_TRACE names a file for an execution trace of the run instead (who
// wakes whom: go tool trace -d=parsed FILE lists every event), and
// $COVEY_MEMPROFILE one for the allocations of the whole run.
func startProfile() (stop func()) {
	if path := os.Getenv("COVEY_TRACE"); path != "" {
		return startRecording("trace", path, trace.Start, trace.Stop)
	}
	if path := os.Getenv("COVEY_CPUPROFILE"); path != "" {
		return startRecording("cpu profile", path, pprof.StartCPUProfile, pprof.StopCPUProfile)
	}
	if path := os.Getenv("COVEY_MEMPROFILE"); path != "" {
		// Every allocation of the run, by where it was made (go tool
		// pprof -sample_index=alloc_space): what makes the collector run.
		return func() {
			f, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "covey: memory profile: %v\n", err)
			}
		}
	}
	return func() {}
}

// startRecording starts a recording into the file path; the returned stop
// ends it and closes the file.
func startRecording(what, path string, start func(io.Writer) error, end func()) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "covey: %s: %v\n", what, err)
		return func() {}
	}
	if err := start(f); err != nil {
		fmt.Fprintf(os.Stderr, "covey: %s: %v\n", what, err)
		_ = f.Close()
		return func() {}
	}
	return func() {
		end()
		_ = f.Close()
	}
}
