package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestSessionInUse runs `covey --continue -p B` while `covey -p A` is
// still in its turn on the same session: B refuses, naming A's pid, and
// writes nothing, so A's turn ends as it would alone, not "interrupted".
func TestSessionInUse(t *testing.T) {
	t.Parallel()
	const (
		first  = "[e2e:lock-a] take your time"
		second = "[e2e:lock-b] me too"
	)
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "a", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: first}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "sleep 3; echo rested"})}},
		{Text: "E2E lock answer A."},
	}})
	ws := workspace(t, sampleFiles())
	box := newSandbox(t)
	env := box.env("OPENAI_BASE_URL=" + srv.URL())

	a := exec.Command(coveyBin(t), "-p", first, "--model", "e2e-model", "--permission-mode", "bypassPermissions")
	a.Dir, a.Env = ws, env
	var aOut, aErr bytes.Buffer
	a.Stdout, a.Stderr = &aOut, &aErr
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Process.Kill() })
	// A is in its turn once its session holds the bash call.
	sessions := filepath.Join(box.home, ".local/share/covey/sessions")
	for i := 0; ; i++ {
		files, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
		if len(files) == 1 {
			if data, _ := os.ReadFile(files[0]); bytes.Contains(data, []byte(`"tool_started"`)) {
				break
			}
		}
		if i > 2000 {
			t.Fatalf("covey -p A never started its bash call:\n%s", aErr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}

	b := runCovey(t, ws, env, "", "--continue", "-p", second, "--model", "e2e-model")
	want := "in use by another covey process (pid " + strconv.Itoa(a.Process.Pid) + ")"
	if b.code == 0 || !strings.Contains(b.stderr, want) {
		t.Errorf("covey --continue while A runs (exit %d), want a refusal saying %q:\n%s%s", b.code, want, b.stdout, b.stderr)
	}
	if err := a.Wait(); err != nil || !strings.Contains(aOut.String(), "E2E lock answer A.") {
		t.Fatalf("covey -p A: %v\n%s\n%s", err, aOut.String(), aErr.String())
	}
	files, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v, want A's alone", files)
	}
	data, _ := os.ReadFile(files[0])
	if bytes.Contains(data, []byte("interrupted")) || !bytes.Contains(data, []byte("rested")) {
		t.Errorf("A's session was disturbed:\n%s", data)
	}
}
