package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"covey/internal/scripted"
)

// TestHeadlessRepairedSessionWarns cuts a session's last line mid-write
// (as a crash does) and continues it headless: stderr carries the warning
// the TUI shows. (-p used to repair the session silently.)
func TestHeadlessRepairedSessionWarns(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	crashScript(h.srv, map[string]scripted.Turn{
		"first prompt":  {Text: "FIRST ANSWER"},
		"second prompt": {Text: "SECOND ANSWER"},
	})
	if r := h.run(t, "", "-p", "first prompt"); r.code != 0 {
		t.Fatalf("first run: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(h.box.home, ".local/share/covey/sessions/*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	cut := strings.Join(lines[:len(lines)-1], "\n") + "\n" + last[:len(last)/2]
	if err := os.WriteFile(files[0], []byte(cut), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run(t, "", "-p", "second prompt", "--continue")
	if r.code != 0 || !strings.Contains(r.stdout, "SECOND ANSWER") {
		t.Fatalf("continued run: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	want := "covey: warning: line " + strconv.Itoa(len(lines)) + ": incomplete last line skipped (covey stopped while writing it)"
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
	}
}

// hostile makes path a symlink to /dev/zero or a FIFO.
func hostile(t *testing.T, path, kind string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	if kind == "fifo" {
		err = syscall.Mkfifo(path, 0o644)
	} else {
		err = os.Symlink("/dev/zero", path)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestHostileRepositoryFiles makes the files covey reads from a repository
// a symlink to /dev/zero or a FIFO: covey must neither read forever (it
// grew to 23.7 GB) nor hang, and must name the file.
func TestHostileRepositoryFiles(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		file     string
		args     []string
		wantCode int
		want     string
		// zeroWant, when set, is what a symlink to /dev/zero gets instead
		// (memory files refuse links that leave the repository first).
		zeroWant string
	}{
		"AGENTS.md": {file: "AGENTS.md", args: []string{"-p", "hello"}, want: "/AGENTS.md: not a regular file",
			zeroWant: "/AGENTS.md leads outside the repository (to /dev/zero): not loaded"},
		"CLAUDE.md": {file: "CLAUDE.md", args: []string{"-p", "hello"}, want: "/CLAUDE.md: not a regular file",
			zeroWant: "/CLAUDE.md leads outside the repository (to /dev/zero): not loaded"},
		".covey/config.yaml": {file: ".covey/config.yaml", args: []string{"-p", "hello"}, wantCode: 2, want: "config.yaml: not a regular file"},
		".mcp.json":          {file: ".mcp.json", args: []string{"mcp", "list"}, wantCode: 1, want: ".mcp.json: not a regular file"},
		"an agent file":      {file: ".claude/agents/evil.md", args: []string{"agents"}, wantCode: 1, want: "evil.md\n    error   skipped: not a regular file"},
	}
	for name, tc := range tests {
		for _, kind := range []string{"zero", "fifo"} {
			t.Run(name+" "+kind, func(t *testing.T) {
				t.Parallel()
				h := newHeadlessRun(t)
				h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{Text: "HELLO"}}})
				hostile(t, filepath.Join(h.ws, tc.file), kind)
				r := h.run(t, "", tc.args...)
				out := r.stdout + r.stderr
				want := tc.want
				if kind == "zero" && tc.zeroWant != "" {
					if !strings.Contains(out, tc.zeroWant) {
						t.Fatalf("exit %d, want %q in:\n%s", r.code, tc.zeroWant, out)
					}
					return
				}
				if r.code != tc.wantCode || !strings.Contains(out, want) {
					t.Fatalf("exit %d, want %d and %q in:\n%s", r.code, tc.wantCode, want, out)
				}
				what := "a character device"
				if kind == "fifo" {
					what = "a FIFO"
				}
				if !strings.Contains(out, what) {
					t.Errorf("the message does not say the file is %s:\n%s", what, out)
				}
			})
		}
	}
}

// startCovey starts the binary without waiting for it. Its stdin is a pipe
// that stays open until the test ends; the test writes to it through the
// returned file.
func startCovey(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *os.File) {
	t.Helper()
	cmd := exec.Command(coveyBin(t), args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// A pipe of our own, not StdinPipe's, so unread can ask it how much
	// covey has not read yet.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = r
	err = cmd.Start()
	_ = r.Close() // covey holds its own copy
	if err != nil {
		_ = w.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = w.Close()
		_ = cmd.Process.Kill()
	})
	return cmd, &out, w
}

// unread is how many bytes written to the pipe w its reader has not read
// (FIONREAD, which Linux names TIOCINQ; a pipe answers it at either end).
func unread(t *testing.T, w *os.File) int {
	t.Helper()
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, w.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("FIONREAD on covey's stdin: %v", errno)
	}
	return int(n)
}

// waitPhase waits up to waitLong for covey to show it is in a phase
// (inPhase reports it) and fails the test if it never does.
func waitPhase(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer, what string, inPhase func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitLong); !inPhase(); time.Sleep(pollEvery) {
		if time.Now().After(deadline) {
			// Ended first, so its output is complete and no longer written.
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("covey never got to %s in %s:\n%s", what, waitLong, out)
		}
	}
}

// killLeft kills those of procs still running (a failed test's leftovers).
func killLeft(procs []proc) {
	for _, p := range procs {
		if _, _, start, ok := procStat(p.pid); ok && start == p.start {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

// waitExit waits up to d for cmd to end and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("covey still ran %s after SIGTERM:\n%s", d, out)
	}
	return 0
}

// TestSIGTERMEndsEveryPhase sends SIGTERM to covey in phases that do not
// watch for it (reading a prompt from a stdin that never ends) and ones
// that should (listing an MCP server that never answers): covey ends, by
// its own hand, and takes its processes with it. Each case waits for
// evidence that covey is in its phase before it signals: a signal that
// came earlier would test only covey's start.
func TestSIGTERMEndsEveryPhase(t *testing.T) {
	t.Parallel()
	const server = "sleep\x00281.3" // the silent server's command line
	tests := map[string]struct {
		args  []string
		setup func(t *testing.T, ws string)
		// phase is what covey is doing; inPhase reports that it is, given
		// covey's pid and its stdin.
		phase   string
		inPhase func(t *testing.T, pid int, stdin *os.File) bool
	}{
		"reading the prompt from stdin": {
			args:  []string{"-p", "-"},
			phase: "reading the prompt from stdin",
			// The start of a prompt, read: covey is in the read, which
			// waits for an end of stdin that never comes.
			inPhase: func(t *testing.T, _ int, stdin *os.File) bool { return unread(t, stdin) == 0 },
		},
		"mcp list of a silent server": {
			args: []string{"mcp", "list"},
			setup: func(t *testing.T, ws string) {
				if err := os.WriteFile(filepath.Join(ws, "mcp.json"), []byte(`{"mcpServers":{"silent":{"command":"sleep","args":["281.3"]}}}`), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			phase: "starting the silent MCP server",
			inPhase: func(_ *testing.T, pid int, _ *os.File) bool {
				for _, p := range processTree(pid) {
					if cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline"); err == nil && strings.Contains(string(cmdline), server) {
						return true
					}
				}
				return false
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHeadlessRun(t)
			args := append([]string{"--model", "e2e-model"}, tc.args...)
			if tc.setup != nil {
				tc.setup(t, h.ws)
				args = append(args, "--mcp-config", filepath.Join(h.ws, "mcp.json"))
			}
			cmd, out, stdin := startCovey(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), args...)
			// Every case's stdin holds the start of a prompt and never ends.
			if _, err := stdin.WriteString("the start of a prompt that never ends\n"); err != nil {
				t.Fatal(err)
			}
			waitPhase(t, cmd, out, tc.phase, func() bool { return tc.inPhase(t, cmd.Process.Pid, stdin) })
			tree := processTree(cmd.Process.Pid)
			t.Cleanup(func() { killLeft(tree) })
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			switch code := waitExit(t, cmd, out, 15*time.Second); code {
			case 0:
				t.Errorf("exit 0 after SIGTERM:\n%s", out)
			case -1:
				t.Errorf("covey was killed by the signal (%v), not ended by its own handler:\n%s", cmd.ProcessState, out)
			}
			if left := waitProcessesGone(tree, 5*time.Second); len(left) > 0 {
				t.Errorf("processes covey started outlived it: %v", left)
			}
		})
	}
}

// TestSIGTERMTakesSetsidGrandchild: a bash call leaves a setsid grandchild
// (out of its process group); SIGTERM of covey must end it too.
func TestSIGTERMTakesSetsidGrandchild(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	const marker = "293.417"
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "setsid sleep " + marker + " </dev/null >/dev/null 2>&1 & sleep 294.5", "timeout_s": 600})}},
		{Text: "done"},
	}})
	// The grandchild's own command line ("sleep\x00293.417"), not the
	// shell's, which holds the marker too.
	grandchild := "sleep\x00" + marker
	t.Cleanup(func() {
		for _, pid := range processesWith(grandchild) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	cmd, out, _ := startCovey(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "--model", "e2e-model", "--permission-mode", "bypassPermissions", "-p", "run it")
	for deadline := time.Now().Add(20 * time.Second); len(processesWith(grandchild)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild never started:\n%s", out)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, out, 15*time.Second)
	for deadline := time.Now().Add(5 * time.Second); len(processesWith(grandchild)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the setsid grandchild survived covey's SIGTERM: %v", processesWith(grandchild))
		}
	}
}

// writeUserConfig writes the sandbox user's config.yaml.
func writeUserConfig(t *testing.T, box sandbox, yaml string) {
	t.Helper()
	dir := filepath.Join(box.home, ".config", "covey")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHeadlessEndlessStreams plays endless and keep-alive-only streams to
// the built binary: each run ends with a clear error, and the session
// file stays near the cap. (An endless text stream made a 1.13 GB session
// file; a keep-alive stream waited forever.)
func TestHeadlessEndlessStreams(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		turn scripted.Turn
		want string
	}{
		"text":      {turn: scripted.Turn{Endless: "text", Text: strings.Repeat("z", 1000)}, want: "the answer's text passed its 1 MB limit (max_text)"},
		"reasoning": {turn: scripted.Turn{Endless: "reasoning", Text: strings.Repeat("r", 1000)}, want: "the answer's reasoning passed its 1 MB limit (max_reasoning)"},
		"arguments": {turn: scripted.Turn{Endless: "arguments", Text: strings.Repeat("a", 1000)}, want: "passed their 1 MB limit (max_tool_args)"},
		"calls":     {turn: scripted.Turn{Endless: "calls"}, want: "the answer passed its limit of 50 tool calls (max_tool_calls)"},
		"keepalive": {turn: scripted.Turn{Endless: "keepalive", ChunkDelay: 100 * time.Millisecond}, want: "no progress from the server for 3s: it sent only keep-alives or empty chunks"},
		"empty":     {turn: scripted.Turn{Endless: "empty", ChunkDelay: 100 * time.Millisecond}, want: "no progress from the server for 3s"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHeadlessRun(t)
			writeUserConfig(t, h.box, "stream_idle_timeout: 1s\nstream_keepalive_timeout: 3s\n"+
				"stream_limits: {max_text: 1048576, max_reasoning: 1048576, max_tool_args: 1048576, max_tool_calls: 50}\n")
			h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{tc.turn}})
			r := h.run(t, "", "-p", "go on forever")
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, want 1 and %q on stderr:\n%s", r.code, tc.want, r.stderr)
			}
			files, _ := filepath.Glob(filepath.Join(h.box.home, ".local/share/covey/sessions/*.jsonl"))
			for _, f := range files {
				// The answer is kept three times at most: its streamed
				// deltas, the message, and the run's end.
				if fi, err := os.Stat(f); err == nil && fi.Size() > 3<<20+64<<10 {
					t.Errorf("session file of %d bytes after a 1 MB cap", fi.Size())
				}
			}
		})
	}
}

// TestParallelReadsBounded: one message asks for 40 reads of a 16 MB file
// at once. covey's peak memory stays far below 40 x 16 MB, and the next
// request carries the results within their budget. (100 reads of a 60 MB
// file peaked at 6.48 GB and made a 40 MB request.)
func TestParallelReadsBounded(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	line := strings.Repeat("q", 127) + "\n"
	if err := os.WriteFile(filepath.Join(h.ws, "huge.txt"), []byte(strings.Repeat(line, (16<<20)/len(line))), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls []scripted.Call
	for range 40 {
		calls = append(calls, call("read_file", map[string]any{"path": "huge.txt"}))
	}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{ToolCalls: calls}, {Text: "READ THEM ALL"}}})
	// covey's own peak: its maxrss as a child of the test process would
	// include the test process's peak (see peakRSSCommand).
	cmd, peakRSS := peakRSSCommand(t, "--model", "e2e-model", "-p", "read it forty times")
	cmd.Dir, cmd.Env = h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "READ THEM ALL") {
		t.Fatalf("covey: %v\n%s", err, out)
	}
	rss := peakRSS()
	if rss > 500<<20 {
		t.Errorf("peak memory %d MB for 40 parallel reads of 16 MB", rss>>20)
	}
	if last := lastRequest(t, h.srv, "main"); len(last.Body) > 700<<10 {
		t.Errorf("the request after the reads is %d KB, over the 512 KB budget of the results", len(last.Body)>>10)
	}
	t.Logf("peak memory %d MB; request after the reads %d KB", rss>>20, len(lastRequest(t, h.srv, "main").Body)>>10)
}
