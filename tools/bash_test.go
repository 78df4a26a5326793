package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/tools/tool"
	"covey/tools/toolname"

	"go.uber.org/goleak"

	"covey/permission"
)

func TestBash(t *testing.T) {
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		summary string
		want    []string
	}{
		{name: "ok", args: map[string]any{"command": "echo hi"}, summary: "exit 0", want: []string{"hi\n", "[exit code 0]"}},
		{
			name: "stdout and stderr, non-zero exit", args: map[string]any{"command": "echo out; echo err >&2; exit 3"},
			summary: "exit 3", want: []string{"out\nerr\n", "[exit code 3]"},
		},
		{name: "no output", args: map[string]any{"command": "true"}, summary: "exit 0", want: []string{"(no output)"}},
		{name: "stdin is empty", args: map[string]any{"command": "read x; echo rc=$?"}, summary: "exit 0", want: []string{"rc=1"}},
		{name: "runs in the workspace", args: map[string]any{"command": "pwd"}, summary: "exit 0"},
		// Its own session: no controlling terminal to draw on or to push
		// keystrokes into (field 6 of /proc/PID/stat is the session id).
		{name: "a session of its own", args: map[string]any{"command": "read -r _ _ _ _ _ sid _ < /proc/$$/stat; [ \"$sid\" = $$ ] && echo own-session"}, summary: "exit 0", want: []string{"own-session"}},
		{name: "killed by a signal", args: map[string]any{"command": "kill -KILL $$"}, summary: "killed by signal 9", want: []string{"killed by signal 9"}},
		{
			name: "timeout clamped", args: map[string]any{"command": "true", "timeout_s": 5000},
			summary: "exit 0", want: []string{"clamped to the maximum of 600"},
		},
		{name: "empty command", args: map[string]any{"command": "  "}, isError: true, want: []string{"command is required"}},
		{name: "negative timeout", args: map[string]any{"command": "true", "timeout_s": -1}, isError: true, want: []string{"must be positive"}},
		{
			name: "timeout", args: map[string]any{"command": "echo started; sleep 100", "timeout_s": 0.2},
			isError: true, summary: "timed out after 200ms", want: []string{"started", "timed out after 200ms"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			res := wtRun(t, NewBash(env), tt.args)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			if tt.summary != "" && res.Summary != tt.summary {
				t.Errorf("summary %q, want %q", res.Summary, tt.summary)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("content %q lacks %q", res.Content, w)
				}
			}
			if tt.name == "runs in the workspace" && !strings.HasPrefix(res.Content, env.WS.Root+"\n") {
				t.Errorf("pwd = %q, want %s", res.Content, env.WS.Root)
			}
		})
	}
}

func TestBashKillsProcessGroup(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tests := []struct {
		name    string
		command string
		timeout float64
		grace   time.Duration
		summary string
	}{
		{
			name:    "timeout kills the pipeline and its background job",
			command: "sleep 100 & echo $! > bg.pid; sleep 100 | cat",
			timeout: 0.3, summary: "timed out after 300ms",
		},
		{
			name:    "a group that ignores SIGTERM is killed after the grace",
			command: "trap '' TERM; sleep 100 & echo $! > bg.pid; wait",
			timeout: 0.3, grace: 50 * time.Millisecond, summary: "timed out after 300ms",
		},
		{
			name:    "background jobs die with a finished command",
			command: "sleep 100 & echo $! > bg.pid; echo done",
			summary: "exit 0",
		},
		{
			name:    "a setsid grandchild dies with a finished command",
			command: "setsid sleep 100 & echo $! > bg.pid; echo done",
			summary: "exit 0",
		},
		{
			name:    "a setsid grandchild dies with a timed-out command",
			command: "setsid sleep 100 & echo $! > bg.pid; sleep 100",
			timeout: 0.3, summary: "timed out after 300ms",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			tool := NewBash(env).(*bashTool)
			if tt.grace > 0 {
				tool.grace = tt.grace
			}
			args := map[string]any{"command": tt.command}
			if tt.timeout > 0 {
				args["timeout_s"] = tt.timeout
			}
			res := wtRun(t, tool, args)
			if res.Summary != tt.summary {
				t.Fatalf("summary %q, want %q (%s)", res.Summary, tt.summary, res.Content)
			}
			assertGone(t, readPid(t, filepath.Join(env.WS.Root, "bg.pid")))
		})
	}
}

func TestBashCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	env := wtEnv(t)
	pidFile := filepath.Join(env.WS.Root, "bg.pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan tool.Result, 1)
	go func() {
		// setsid: the grandchild leaves the process group; the cancel
		// must take it all the same.
		args, _ := json.Marshal(map[string]any{"command": "setsid sleep 100 & echo $! > bg.pid.tmp; mv bg.pid.tmp bg.pid; wait"})
		done <- NewBash(env).Run(ctx, args)
	}()
	pid := waitForPidFile(t, pidFile)
	cancel()
	select {
	case res := <-done:
		if !res.IsError || res.Summary != "cancelled" {
			t.Fatalf("result %+v", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	assertGone(t, pid)

	// A context already done runs nothing.
	res := NewBash(env).Run(ctx, json.RawMessage(`{"command":"touch ran"}`))
	if _, err := os.Stat(filepath.Join(env.WS.Root, "ran")); !res.IsError || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ran under a done context: %+v", res)
	}
}

func TestBashEscapedProcessHoldingPipe(t *testing.T) {
	// A process that left the group keeps the output pipe open; Run must
	// still return once the shell is done.
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	env := wtEnv(t)
	res := wtRun(t, NewBash(env), map[string]any{"command": "setsid sleep 100 & echo $! > bg.pid; echo out"})
	pid := readPid(t, filepath.Join(env.WS.Root, "bg.pid"))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if res.IsError || !strings.Contains(res.Content, "out") {
		t.Fatalf("result %+v", res)
	}
}

func TestBashOutputCap(t *testing.T) {
	env := wtEnv(t)
	res := wtRun(t, NewBash(env), map[string]any{"command": "echo START; head -c 200000 /dev/zero | tr '\\0' x; echo; echo END"})
	for _, w := range []string{"START", "END", "bytes cut", "[exit code 0]"} {
		if !strings.Contains(res.Content, w) {
			t.Errorf("content lacks %q", w)
		}
	}
	if len(res.Content) > bashOutputCap+200 {
		t.Errorf("content is %d bytes, cap is %d", len(res.Content), bashOutputCap)
	}
}

func TestBashGate(t *testing.T) {
	env := wtEnv(t)
	var seen permission.Request
	env.Gate = permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
		seen = req
		return permission.Verdict{Reason: "ask first"}
	})
	res := wtRun(t, NewBash(env), map[string]any{"command": "touch made"})
	if !res.IsError || !strings.Contains(res.Content, "ask first") {
		t.Fatalf("result %+v", res)
	}
	if seen.Tool != toolname.Bash || seen.Command != "touch made" || seen.Dir != env.WS.Root {
		t.Fatalf("gate saw %+v", seen)
	}
	if _, err := os.Stat(filepath.Join(env.WS.Root, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused command ran")
	}
}

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		writes []string
		want   string
	}{
		{"short", 4, []string{"ab"}, "ab"},
		{"exactly full", 4, []string{"abcdefgh"}, "abcdefgh"},
		{"one big write", 4, []string{"abcdefghij"}, "abcd\n… 2 bytes cut (send the output to a file and grep or read_file it to see them) …\nghij"},
		{"small writes wrap the ring", 4, []string{"abc", "def", "ghi", "jk"}, "abcd\n… 3 bytes cut (send the output to a file and grep or read_file it to see them) …\nhijk"},
		{"cuts off partial runes", 4, []string{"abcé", "XXXXXX", "éz", "é"}, "abc\n… 10 bytes cut (send the output to a file and grep or read_file it to see them) …\nzé"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeadTail(tt.n)
			for _, w := range tt.writes {
				if n, err := h.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := h.String(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid file holds %q", b)
	}
	return pid
}

// waitForPidFile polls until the command under test has written its pid.
func waitForPidFile(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(file); err == nil {
			return readPid(t, file)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the command never wrote its pid")
	return 0
}

// assertGone waits for pid to be dead: absent, or a zombie its new parent
// has yet to reap. SIGKILL is delivered asynchronously, hence the polling.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err == nil {
			// The state follows the command name in parentheses.
			if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				return
			}
		}
		if err != nil && syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d outlived its command", pid)
}
