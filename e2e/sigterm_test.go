package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestTUIEndsOnSIGTERM sends SIGTERM to the TUI while an answer streams and
// after it: covey must end every time and leave the terminal as it found
// it. (Both covey and Bubble Tea listened for SIGTERM once; when covey's
// handler ended the program first, Bubble Tea's was left sending a quit
// message nobody read, and the process hung on its way out.)
func TestTUIEndsOnSIGTERM(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	srv.Add(scripted.Conversation{Name: "slow", Turns: []scripted.Turn{{
		Text: "STREAMING" + strings.Repeat(" on and on", 100), ChunkSize: 10, ChunkDelay: 20 * time.Millisecond}}})
	for i := range 4 {
		tm := startTUI(t, ws, env, "--model", "e2e-model")
		tm.waitText(helpLine)
		if i%2 == 1 {
			tm.submit("stream something")
			tm.waitText("STREAMING")
		}
		if err := syscall.Kill(tm.coveyPID(), syscall.SIGTERM); err != nil {
			t.Fatalf("kill covey: %v", err)
		}
		code, tty, s := tm.exited()
		if code != "0" || !strings.Contains(tty, "icanon") || strings.Contains(tty, "-icanon") {
			t.Fatalf("run %d: covey exited with %q and tty %q after SIGTERM, want 0 and a canonical terminal:\n%s", i, code, tty, frame(s))
		}
	}
}

// TestTUIHangupStopsCommands closes covey's terminal (SIGHUP) while a bash
// call runs: covey must end and take the command with it. (SIGHUP used to
// kill covey outright, leaving bash and its children running as orphans.)
func TestTUIHangupStopsCommands(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	// The odd duration marks this test's processes on a shared machine.
	const command = "sleep 297.613; echo finished"
	srv.Add(scripted.Conversation{Name: "hup", Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": command, "timeout_s": 600})}},
		{Text: "the command finished"},
	}})
	tm := startTUI(t, ws, env, "--model", "e2e-model", "--permission-mode", "bypassPermissions")
	tm.waitText(helpLine)
	tm.submit("run the long command")
	var pids []int
	tm.waitOK("the command running", func(string) error {
		if pids = processesWith("297.613"); len(pids) == 0 {
			return fmt.Errorf("no process runs %q yet", command)
		}
		return nil
	})
	t.Cleanup(func() {
		for _, pid := range processesWith("297.613") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := syscall.Kill(tm.coveyPID(), syscall.SIGHUP); err != nil {
		t.Fatalf("hang up covey: %v", err)
	}
	tm.exited()
	deadline := time.Now().Add(5 * time.Second)
	for len(processesWith("297.613")) > 0 && time.Now().Before(deadline) {
		time.Sleep(pollEvery)
	}
	if left := processesWith("297.613"); len(left) > 0 {
		t.Fatalf("after the hang-up the command's processes %v (of %v) still run", left, pids)
	}
}

// processesWith lists the processes whose command line holds marker.
func processesWith(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}
