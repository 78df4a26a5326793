package e2e

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/procmark"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestKilledCoveyLeavesNoProcesses kills covey (SIGKILL) while a bash call
// runs a tree of processes (a background job, a setsid grandchild, a
// foreground sleep): the shell dies with covey, and the next covey start
// stops what it left behind, found by the mark covey gave it.
func TestKilledCoveyLeavesNoProcesses(t *testing.T) {
	t.Parallel()
	if !procmark.Supported {
		t.Skip("no /proc to find processes by their mark here")
	}
	tag := "E2E_ORPHAN_TAG=" + strconv.Itoa(int(time.Now().UnixNano()))
	const prompt = "[e2e:orphans] start a tree"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "export " + tag + "; sleep 301 & setsid sleep 302 & sleep 303"})}},
		{Text: "never"},
	}})
	srv.Add(scripted.Conversation{Name: "next", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: "hello"}, Turns: []scripted.Turn{{Text: "E2E orphans answer."}}})
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())

	cmd := exec.Command(coveyBin(t), "-p", prompt, "--model", "e2e-model", "--permission-mode", "bypassPermissions")
	cmd.Dir, cmd.Env = ws, env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var tree []int
	for i := 0; len(tree) < 3; i++ {
		if i > 3000 {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the bash call never started its three sleeps (found %v)", tree)
		}
		time.Sleep(10 * time.Millisecond)
		tree = procmark.Find(tag)
	}
	t.Cleanup(func() {
		for _, pid := range procmark.Find(tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// The shell that started the sleeps (its own environment predates the
	// export) is covey's child, through the sandbox helper's exec.
	shell := 0
	for _, pid := range tree {
		if p := parentOf(pid); parentOf(p) == cmd.Process.Pid {
			shell = p
		}
	}
	if shell == 0 {
		t.Fatalf("no parent of %v is covey's child (pid %d)", tree, cmd.Process.Pid)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	// The parent-death signal takes the shell at once, before any restart.
	for i := 0; procmark.Alive(strconv.Itoa(shell) + "."); i++ {
		if i > 500 {
			t.Fatalf("the shell (pid %d) outlived the covey that ran it", shell)
		}
		time.Sleep(10 * time.Millisecond)
	}

	r := runCovey(t, ws, env, "", "-p", "hello", "--model", "e2e-model")
	if r.code != 0 || !strings.Contains(r.stdout, "E2E orphans answer.") {
		t.Fatalf("the next covey (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	var left []int
	for i := 0; i < 500; i++ {
		left = left[:0]
		for _, pid := range procmark.Find(tag) {
			if procmark.Alive(strconv.Itoa(pid) + ".") {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("processes the killed covey started still run after the next start: %v", left)
}

// parentOf is pid's parent process id (field 4 of /proc/<pid>/stat), or 0.
func parentOf(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}
