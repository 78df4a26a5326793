package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// peakRSSArg, as the test binary's first argument, makes it a helper
// (see runPeakRSSHelper) instead of a test run.
const peakRSSArg = "-e2e.peak-rss-of"

// A child's ru_maxrss is not its own peak alone: Go starts a command with
// clone(CLONE_VM|CLONE_VFORK), and at the exec Linux folds the high-water
// mark of the memory the child was sharing, its parent's, into the child's
// maxrss. covey started by the test process therefore reports at least the
// test process's own peak, which under -race with the package's parallel
// tests passed 1.2 GB. runPeakRSSHelper measures covey from a small parent:
// the test binary started afresh runs covey and writes covey's maxrss to a
// file, so what was shared at covey's exec is the helper's few MB.

// runPeakRSSHelper runs args[1:] with the helper's stdio, directory and
// environment, writes its maxrss in bytes to the file args[0] and exits
// with its exit code.
func runPeakRSSHelper(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "e2e: usage: "+peakRSSArg+" FILE COMMAND [ARG...]")
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "e2e: peak RSS helper:", err)
		return 125
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KB on Linux
	if err := os.WriteFile(args[0], []byte(strconv.FormatInt(rss, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: peak RSS helper:", err)
		return 125
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	return 1 // killed by a signal
}

// peakRSSCommand returns a command that runs covey with args through the
// helper, and a function that returns covey's peak RSS in bytes once the
// command has run.
func peakRSSCommand(t testing.TB, args ...string) (*exec.Cmd, func() int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "maxrss")
	cmd := exec.Command(self, append([]string{peakRSSArg, file, coveyBin(t)}, args...)...)
	return cmd, func() int64 {
		t.Helper()
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("covey's peak RSS: %v", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			t.Fatalf("covey's peak RSS: %v", err)
		}
		return n
	}
}
