package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestKilledEditLeavesNoTempFile kills covey (SIGKILL) while edit_file
// writes a large file: the file keeps its old content, and the partial
// temporary file left beside it is removed at the next start.
func TestKilledEditLeavesNoTempFile(t *testing.T) {
	t.Parallel()
	const prompt = "[e2e:temp] edit the big file"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "big.txt", "limit": 1})}},
		{ToolCalls: []scripted.Call{call("edit_file", map[string]any{"path": "big.txt", "old_string": "first line\n", "new_string": "FIRST LINE\n"})}},
		{Text: "edited"},
	}})
	srv.Add(scripted.Conversation{Name: "next", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: "hello"}, Turns: []scripted.Turn{{Text: "E2E temp answer."}}})
	ws := workspace(t, sampleFiles())
	big := "first line\n" + strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 1<<19)
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())

	var temp string
	for attempt := 0; temp == "" && attempt < 3; attempt++ {
		cmd := exec.Command(coveyBin(t), "-p", prompt, "--model", "e2e-model", "--permission-mode", "bypassPermissions")
		cmd.Dir, cmd.Env = ws, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
	poll:
		for {
			select {
			case <-exited:
				break poll
			default:
			}
			if m, _ := filepath.Glob(filepath.Join(ws, ".big.txt.covey-*.tmp")); len(m) > 0 {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				temp = m[0]
				<-exited
				break poll
			}
			time.Sleep(200 * time.Microsecond)
		}
		if temp == "" {
			// The write won the race: put the file back and try again.
			t.Logf("attempt %d: the edit ended before the kill:\n%s", attempt, out.String())
			if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if temp == "" {
		t.Skip("the edit finished before the kill three times; no temporary file to clean up")
	}
	if _, err := os.Stat(temp); err != nil {
		t.Fatalf("the kill left no temporary file: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "big.txt")); string(got) != big {
		t.Error("the killed edit changed big.txt")
	}

	r := runCovey(t, ws, env, "", "-p", "hello", "--model", "e2e-model")
	if r.code != 0 || !strings.Contains(r.stdout, "E2E temp answer.") {
		t.Fatalf("the next covey (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	for i := 0; ; i++ {
		if _, err := os.Stat(temp); os.IsNotExist(err) {
			break
		}
		if i > 500 {
			t.Fatalf("the temporary file %s is still there after the next start", temp)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
