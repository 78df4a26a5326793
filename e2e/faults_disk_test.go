package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"covey/agent/sessionfile"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// smallDisk mounts a tmpfs of size bytes for the test, or skips it where
// mounting is not allowed (not root, no tmpfs).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fillDisk writes a file that takes every free byte of dir's file system
// but keep, and returns its path.
func fillDisk(t *testing.T, dir string, keep int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(max(0, n-keep)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiskFullMidRun fills the data folder's disk while a headless run
// records its session, then frees it again mid-run: covey says at once on
// stderr that the file cannot be written, keeps the lines, writes them when
// the disk has room, and says so; the file holds the bash result (not an
// "interrupted" call) and the next --continue sends the model the real
// history.
func TestDiskFullMidRun(t *testing.T) {
	t.Parallel()
	data := smallDisk(t, "64k")
	if err := os.MkdirAll(filepath.Join(data, "covey", "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	const prompt = "[e2e:disk-full] run the build"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "seq 1 3000"})}},
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "sleep 4; echo slept"})}},
		{Text: "E2E disk answer: built."},
		{Text: "E2E disk answer: second."},
	}})
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL="+srv.URL(), "XDG_DATA_HOME="+data)
	filler := fillDisk(t, data, 8192)

	cmd := exec.Command(coveyBin(t), "-p", prompt, "--model", "e2e-model", "--permission-mode", "bypassPermissions")
	cmd.Dir, cmd.Env = ws, env
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		stderr strings.Builder
	)
	warned := make(chan struct{})
	scanDone := make(chan struct{})
	go func() {
		defer close(scanDone)
		sc := bufio.NewScanner(pipe)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.Contains(sc.Text(), "session file cannot be written") {
				once.Do(func() { close(warned) })
			}
		}
	}()
	select {
	case <-warned:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
	}
	// The disk has room again while the second command runs.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	<-scanDone
	werr := cmd.Wait()
	mu.Lock()
	errText := stderr.String()
	mu.Unlock()
	if werr != nil || !strings.Contains(stdout.String(), "E2E disk answer: built.") {
		t.Fatalf("covey -p: %v\nstdout:\n%s\nstderr:\n%s", werr, stdout.String(), errText)
	}
	for _, want := range []string{"session file cannot be written", "no space left on device", "written again: nothing was lost"} {
		if !strings.Contains(errText, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errText)
		}
	}
	if strings.Contains(errText, "could not be fully written") {
		t.Errorf("stderr says lines were lost:\n%s", errText)
	}

	store := sessionfile.Store{Dir: filepath.Join(data, "covey", "sessions")}
	id, err := store.Latest(ws)
	if err != nil {
		t.Fatal(err)
	}
	l, err := store.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, m := range l.Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 2 || !strings.Contains(results[0], "2999\n3000") || !strings.Contains(results[1], "slept") || len(l.Warnings) > 0 {
		t.Errorf("the session holds tool results %q, warnings %v; want both bash results", results, l.Warnings)
	}

	r := runCovey(t, ws, env, "", "--continue", "-p", "again", "--model", "e2e-model")
	if r.code != 0 || !strings.Contains(r.stdout, "E2E disk answer: second.") {
		t.Fatalf("covey --continue (exit %d):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "interrupted") {
		t.Errorf("the resumed session reports an interrupted call:\n%s", r.stderr)
	}
}

// TestTUIDiskFullNotice fills the data folder's disk during a TUI run: the
// notice that the session file cannot be written is on screen at once, and
// so is the one when the freed disk took every kept line.
func TestTUIDiskFullNotice(t *testing.T) {
	t.Parallel()
	data := smallDisk(t, "64k")
	if err := os.MkdirAll(filepath.Join(data, "covey", "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	const prompt = "[e2e:tui-disk-full] run the build"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "seq 1 3000"})}},
		{Text: "E2E TUI disk answer."},
	}})
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL="+srv.URL(), "XDG_DATA_HOME="+data)
	filler := fillDisk(t, data, 8192)
	tm := startTUI(t, ws, env, "--model", "e2e-model", "--permission-mode", "bypassPermissions")
	tm.waitText(helpLine)
	tm.submit(prompt)
	tm.waitText("session file cannot be written", "E2E TUI disk answer.")
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	tm.waitText("the session file is written again: nothing was lost")
	tm.quitAndCheck(helpLine)
}
