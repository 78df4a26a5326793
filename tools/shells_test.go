package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"covey/permission"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// shellEnv is a workspace env with background shells, whose events are
// collected.
func shellEnv(t *testing.T) (*Env, *shellLog) {
	t.Helper()
	env := wtEnv(t)
	env.Shells = NewShells()
	env.Shells.tick = 10 * time.Millisecond
	env.Agent = mainAgent
	log := &shellLog{}
	env.Shells.Observe(log.add)
	t.Cleanup(env.Shells.Close)
	return env, log
}

type shellLog struct {
	mu     sync.Mutex
	events []ShellEvent
}

func (l *shellLog) add(e ShellEvent) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// waitExits waits until n exits were reported: the report follows the
// end of bash_output's wait.
func (l *shellLog) waitExits(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(strings.Join(l.kinds(), " "), ShellExited) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d exits not reported: %v", n, l.kinds())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (l *shellLog) kinds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		out = append(out, e.Kind)
	}
	return out
}

// startShell runs bash with run_in_background and returns the shell's id.
func startShell(t *testing.T, env *Env, command string) string {
	t.Helper()
	res := wtRun(t, NewBash(env), map[string]any{"command": command, "run_in_background": true})
	if res.IsError || !strings.HasPrefix(res.Summary, "background shell-") {
		t.Fatalf("start: %+v", res)
	}
	return strings.TrimPrefix(res.Summary, "background ")
}

func runTool(t *testing.T, tool tool.Tool, args map[string]any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	return tool.Run(context.Background(), raw)
}

func TestBackgroundShell(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	env, log := shellEnv(t)
	out, kill := ShellTools(env)[0], ShellTools(env)[1]
	if out.Name() != toolname.BashOutput || kill.Name() != toolname.KillShell {
		t.Fatalf("tools %s, %s", out.Name(), kill.Name())
	}

	id := startShell(t, env, "echo one; sleep 0.2; echo two; exit 3")
	res := runTool(t, out, map[string]any{"id": id, "wait_s": 30})
	if !strings.Contains(res.Content, "one\ntwo\n") || !strings.Contains(res.Content, "exited with code 3") || res.Summary != "exit 3" {
		t.Fatalf("first read: %+v", res)
	}
	// A second read has nothing new.
	res = runTool(t, out, map[string]any{"id": id})
	if !strings.Contains(res.Content, "(no new output)") || strings.Contains(res.Content, "one") {
		t.Fatalf("second read: %+v", res)
	}
	log.waitExits(t, 1)
	kinds := strings.Join(log.kinds(), " ")
	if !strings.HasPrefix(kinds, ShellStarted) || !strings.HasSuffix(kinds, ShellExited) {
		t.Fatalf("events %s", kinds)
	}

	// Reading while it runs: what it printed so far, and "still running".
	id2 := startShell(t, env, "echo first; sleep 100 & echo $! > bg.tmp; mv bg.tmp bg.pid; wait")
	pid := waitForPidFile(t, filepath.Join(env.WS.Root, "bg.pid"))
	// The output reaches the ring a moment after the shell writes it.
	var read string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(read, "first") && time.Now().Before(deadline); {
		res = runTool(t, out, map[string]any{"id": id2})
		if !strings.Contains(res.Content, "still running") || res.Summary != "running" {
			t.Fatalf("running read: %+v", res)
		}
		read += res.Content
	}
	if !strings.Contains(read, "first") {
		t.Fatalf("never read: %s", read)
	}
	res = runTool(t, kill, map[string]any{"id": id2})
	if res.IsError || res.Summary != "killed" {
		t.Fatalf("kill: %+v", res)
	}
	assertGone(t, pid)
	res = runTool(t, out, map[string]any{"id": id2})
	if !strings.Contains(res.Content, "was killed") {
		t.Fatalf("after kill: %+v", res)
	}
	if res = runTool(t, kill, map[string]any{"id": id2}); res.IsError || res.Summary != "already ended" {
		t.Fatalf("second kill: %+v", res)
	}
}

func TestBackgroundShellErrors(t *testing.T) {
	env, _ := shellEnv(t)
	out, kill := ShellTools(env)[0], ShellTools(env)[1]
	tests := map[string]struct {
		tool tool.Tool
		args map[string]any
		want string
	}{
		"unknown id":         {out, map[string]any{"id": "shell-9"}, `no background shell "shell-9"`},
		"kill unknown id":    {kill, map[string]any{"id": "nope"}, `no background shell "nope"`},
		"negative wait":      {out, map[string]any{"id": "shell-1", "wait_s": -1}, "must not be negative"},
		"bad arguments":      {out, map[string]any{"id": 3}, "invalid arguments"},
		"bash without shell": {NewBash(wtEnv(t)), map[string]any{"command": "true", "run_in_background": true}, "not available"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			res := runTool(t, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(res.Content, tt.want) {
				t.Fatalf("%+v, want an error with %q", res, tt.want)
			}
		})
	}
}

// A background shell passes the same gate as any command.
func TestBackgroundShellGate(t *testing.T) {
	env, log := shellEnv(t)
	env.Gate = permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
		if req.Tool != toolname.Bash || !strings.Contains(req.Command, "forbidden") {
			t.Errorf("asked %+v", req)
		}
		return permission.Verdict{Reason: "a deny rule"}
	})
	res := wtRun(t, NewBash(env), map[string]any{"command": "echo forbidden", "run_in_background": true})
	if !res.IsError || !strings.Contains(res.Content, "not allowed: a deny rule") {
		t.Fatalf("%+v", res)
	}
	if len(log.kinds()) != 0 || len(env.Shells.Running()) != 0 {
		t.Fatalf("a shell started: %v", log.kinds())
	}
}

// Another agent's shell is out of reach, except for the main agent.
func TestBackgroundShellOwner(t *testing.T) {
	env, _ := shellEnv(t)
	env.Agent = "explore-1"
	id := startShell(t, env, "sleep 100")
	other := *env
	other.Agent = "general-purpose-2"
	if res := runTool(t, ShellTools(&other)[1], map[string]any{"id": id}); !res.IsError || !strings.Contains(res.Content, "another agent") {
		t.Fatalf("another child killed it: %+v", res)
	}
	main := *env
	main.Agent = mainAgent
	if res := runTool(t, ShellTools(&main)[0], map[string]any{"id": id}); res.IsError {
		t.Fatalf("main could not read it: %+v", res)
	}
	env.Shells.KillOwnedBy("explore-1")
	if res := runTool(t, ShellTools(env)[0], map[string]any{"id": id, "wait_s": 30}); !strings.Contains(res.Content, "was killed") {
		t.Fatalf("not killed with its owner: %+v", res)
	}
}

// Close stops every shell and its process group, and no shell starts after.
func TestShellsClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	env, log := shellEnv(t)
	startShell(t, env, "trap '' TERM; sleep 100 & echo $! > a.tmp; mv a.tmp a.pid; wait")
	startShell(t, env, "sleep 100 & echo $! > b.tmp; mv b.tmp b.pid; wait")
	a := waitForPidFile(t, filepath.Join(env.WS.Root, "a.pid"))
	b := waitForPidFile(t, filepath.Join(env.WS.Root, "b.pid"))
	env.Shells.Close()
	assertGone(t, a)
	assertGone(t, b)
	if n := strings.Count(strings.Join(log.kinds(), " "), ShellExited); n != 2 {
		t.Fatalf("%d exits reported: %v", n, log.kinds())
	}
	res := wtRun(t, NewBash(env), map[string]any{"command": "true", "run_in_background": true})
	if !res.IsError || !strings.Contains(res.Content, "shutting down") {
		t.Fatalf("started after Close: %+v", res)
	}
}

// Output past the ring is cut, and the read says how much.
func TestBackgroundShellRing(t *testing.T) {
	env, log := shellEnv(t)
	env.Shells.keep = 1000
	id := startShell(t, env, "for i in $(seq 1 2000); do echo line$i; done")
	res := runTool(t, ShellTools(env)[0], map[string]any{"id": id, "wait_s": 30})
	if !strings.Contains(res.Content, "bytes printed since your last read were cut") || !strings.Contains(res.Content, "line2000\n") ||
		strings.Contains(res.Content, "line1\n") {
		t.Fatalf("%s", res.Content)
	}
	log.waitExits(t, 1)
	log.mu.Lock()
	last := log.events[len(log.events)-1]
	log.mu.Unlock()
	if n := len(last.Tail); n != shellTailLines || last.Tail[n-1] != "line2000" || last.Info.Bytes < 10000 || last.Info.Kept != 1000 {
		t.Fatalf("last event %+v", last)
	}
	full, cut, ok := env.Shells.Output(id)
	if !ok || len(full) != 1000 || cut != last.Info.Bytes-1000 || !strings.HasSuffix(full, "line2000\n") {
		t.Fatalf("output %d bytes, cut %d", len(full), cut)
	}
}

func TestRing(t *testing.T) {
	for _, writes := range [][]string{
		{"abc"}, {"abcdefghij"}, {"abcdefghijklmno"}, {"abc", "defg", "hijkl", "mn"}, {"abcdefgh", "ij", "k"},
	} {
		r := ring{cap: 8}
		all := ""
		for _, w := range writes {
			r.Write([]byte(w))
			all += w
		}
		want := all[max(0, len(all)-8):]
		for n := 0; n <= 9; n++ {
			got := string(r.last(n))
			exp := want[max(0, len(want)-n):]
			if got != exp {
				t.Errorf("%v: last(%d) = %q, want %q", writes, n, got, exp)
			}
		}
		if r.total != int64(len(all)) {
			t.Errorf("%v: total %d", writes, r.total)
		}
	}
}

// BenchmarkBackgroundShellOutput measures the memory a background shell
// costs while it prints 100 MB: its ring is bounded, whatever it prints
// (go test ./tools -run '^$' -bench BackgroundShellOutput -benchmem; the
// whole process's RSS: e2e's BenchmarkBackgroundShellRSS).
func BenchmarkBackgroundShellOutput(b *testing.B) {
	ws, err := workspace.NewWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	env := &Env{WS: ws, Reads: workspace.NewReadTracker(), Locks: workspace.NewFileLocks(), Shells: NewShells(), Agent: mainAgent}
	defer env.Shells.Close()
	var reports int
	env.Shells.Observe(func(ShellEvent) { reports++ })
	for i := 0; i < b.N; i++ {
		raw := []byte(`{"command": "head -c 100000000 /dev/zero | tr '\\0' x | fold -w 100", "run_in_background": true}`)
		res := NewBash(env).Run(context.Background(), raw)
		id := strings.TrimPrefix(res.Summary, "background ")
		out := ShellTools(env)[0]
		r := out.Run(context.Background(), []byte(fmt.Sprintf(`{"id": %q, "wait_s": 600}`, id)))
		if !bytes.Contains([]byte(r.Content), []byte("exited with code 0")) {
			b.Fatalf("%s", r.Content)
		}
		info, _ := env.Shells.Info(id)
		b.ReportMetric(float64(info.Bytes)/1e6, "MB-printed")
	}
}
