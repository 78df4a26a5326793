//go:build unix

// Package procmark finds and stops the processes covey marked as its own.
//
// covey gives the processes it starts (a tool's bash, a `git worktree
// add`) an environment variable naming what they belong to. Children
// inherit it, so the whole tree carries the mark, even a grandchild that
// left the process group. When the owner dies without stopping them
// (SIGKILL, a crash), the mark is how a later covey proves they are covey's
// and stops them. Linux reads the marks in /proc; elsewhere Find finds
// nothing and Supported is false.
package procmark

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// OwnerVar is the variable every tool process carries: the owning covey's
// pid and start time (see Owner), so a later covey can tell processes whose
// owner died from those of a covey still running.
const OwnerVar = "COVEY_OWNER"

// Owner is the value of OwnerVar for the process pid: "pid.start", with
// its start time in clock ticks since boot where /proc has it ("pid."
// elsewhere).
func Owner(pid int) string {
	return strconv.Itoa(pid) + "." + StartTime(pid)
}

// OwnerEnv is OwnerVar=Owner(pid), ready for an environment.
func OwnerEnv(pid int) string { return OwnerVar + "=" + Owner(pid) }

// Alive reports whether the owner named by a value of OwnerVar still runs:
// the pid exists, is no zombie, and (where known) started at the same
// time, so a reused pid is not taken for the owner.
func Alive(owner string) bool {
	p, start, ok := strings.Cut(owner, ".")
	pid, err := strconv.Atoi(p)
	if !ok || err != nil || pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	state, now := stat(pid)
	if state == "Z" || state == "X" {
		return false
	}
	return start == "" || now == "" || start == now
}

// StartTime is field 22 of /proc/<pid>/stat (clock ticks since boot), or
// "" where it cannot be read.
func StartTime(pid int) string {
	_, start := stat(pid)
	return start
}

// Stop kills pids with SIGKILL and waits, up to timeout, until every one
// is gone or a zombie (which holds no file and writes nothing). It names
// the ones still running after that.
func Stop(pids []int, timeout time.Duration) error {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, pid := range pids {
			if running(pid) {
				left = append(left, strconv.Itoa(pid))
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process %s still running after SIGKILL", strings.Join(left, ", "))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	state, _ := stat(pid)
	return state != "Z" && state != "X"
}
