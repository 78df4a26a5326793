// Package proctree finds the processes a command left behind by a mark in
// their environment, so they can be ended with the command. A process
// group is not enough: `setsid cmd &` starts a session (and a group) of its
// own, out of the group's reach, yet it inherits the environment of the
// shell that started it.
//
// What escapes the mark: a process that clears or rewrites its environment
// (env -i, a daemon that re-executes itself clean), one running as another
// user (sudo, setuid), and every process on systems without /proc
// (Find reports nothing there).
package proctree

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"syscall"
)

// Env is the environment variable that carries the mark.
const Env = "COVEY_PROC_MARK"

// NewMark returns a mark unique to one command of this covey: its process
// id, a dot, and random hex (so OwnerPrefix finds every mark of this
// process at its exit).
func NewMark() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on supported systems
	return OwnerPrefix(os.Getpid()) + hex.EncodeToString(b[:])
}

// OwnerPrefix is the start of every mark made by the covey with process id
// pid.
func OwnerPrefix(pid int) string { return strconv.Itoa(pid) + "." }

// EnvEntry is the KEY=VALUE entry that puts mark in a command's
// environment.
func EnvEntry(mark string) string { return Env + "=" + mark }

// Find returns the processes (other than this one) whose environment holds
// a mark that starts with prefix; an exact mark is its own prefix.
func Find(prefix string) []int {
	if prefix == "" {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	want := []byte("\x00" + Env + "=" + prefix)
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		// Another user's processes cannot be read (and are not covey's).
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || len(env) == 0 {
			continue
		}
		if bytes.Contains(append([]byte{0}, env...), want) {
			out = append(out, pid)
		}
	}
	return out
}

// Kill sends SIGKILL to every process Find(prefix) returns, again until
// none is left (a process may fork while it is being killed), at most a
// few rounds. It returns how many processes it signalled.
func Kill(prefix string) int {
	killed := map[int]bool{}
	for range 5 {
		pids := Find(prefix)
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			// One still dying is found again: signalled again, counted once.
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed[pid] = true
			}
		}
	}
	return len(killed)
}
