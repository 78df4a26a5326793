package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// slowGit writes, in a folder of its own, a git that is the real one except
// for `git worktree add`: that makes the worktree without a checkout, checks
// out one file, says so in ready, and then goes on writing files into the
// worktree forever, as a checkout of a huge repository still running would.
// Its pid goes to ready's first line.
func slowGit(t *testing.T, ready string) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	script := `#!/bin/bash
real='` + real + `'
args=(); add=0
for a in "$@"; do
  args+=("$a")
  if [ "$a" = add ] && [ "${#args[@]}" -ge 2 ] && [ "${args[-2]}" = worktree ]; then args+=(--no-checkout); add=1; fi
done
[ $add = 0 ] && exec "$real" "$@"
"$real" "${args[@]}" || exit $?
wt="${args[-2]}"
(cd "$wt" && "$real" checkout HEAD -- main.go) || exit 1
echo $$ > '` + ready + `'
while :; do : > "$wt/.still-checking-out-$RANDOM"; sleep 0.02; done
`
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWorktreeCreationKilled kills covey (SIGKILL) while an isolated
// child's worktree is still being checked out. The half-made worktree is
// listed as incomplete, `covey worktrees apply` refuses it (it would read
// every file not yet checked out as a deletion) and leaves the user's
// files, uncommitted edit included, alone; `covey worktrees prune` stops
// the `git worktree add` still running and removes everything.
func TestWorktreeCreationKilled(t *testing.T) {
	t.Parallel()
	const prompt = "[e2e:wt-killed] work in a worktree"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_iso", Name: "task", Args: map[string]any{
			"description": "isolated", "subagent_type": "general-purpose", "prompt": "edit", "isolation": "worktree"}}}},
		{Text: "done"},
	}})
	ws := workspace(t, sampleFiles())
	const edit = "# sample\n\nThe user's uncommitted edit.\n"
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte(edit), 0o644); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(t.TempDir(), "ready")
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	env[0] = "PATH=" + slowGit(t, ready) + ":" + os.Getenv("PATH")

	cmd := exec.Command(coveyBin(t), "-p", prompt, "--model", "e2e-model")
	cmd.Dir, cmd.Env = ws, env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var gitPID int
	for i := 0; ; i++ {
		data, _ := os.ReadFile(ready)
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			gitPID = n
			break
		}
		if i > 3000 {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("the worktree was never half made")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(func() { _ = syscall.Kill(gitPID, syscall.SIGKILL) })
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	list := runCovey(t, ws, env, "", "worktrees")
	if list.code != 0 || !strings.Contains(list.stdout, "incomplete") {
		t.Errorf("covey worktrees does not call the half-made worktree incomplete (exit %d):\n%s%s", list.code, list.stdout, list.stderr)
	}
	branch := regexp.MustCompile(`covey/\S+`).FindString(list.stdout)
	if branch == "" {
		t.Fatalf("no branch in covey worktrees:\n%s", list.stdout)
	}
	ap := runCovey(t, ws, env, "", "worktrees", "apply", branch)
	if ap.code == 0 || !strings.Contains(ap.stderr, "never completely created") {
		t.Errorf("covey worktrees apply of a half-made worktree (exit %d):\n%s%s", ap.code, ap.stdout, ap.stderr)
	}
	for name, content := range sampleFiles() {
		if name == "README.md" {
			content = edit
		}
		if got, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(got) != content {
			t.Errorf("%s after apply = %q (%v), want %q", name, got, err, content)
		}
	}

	prune := runCovey(t, ws, env, "", "worktrees", "prune")
	if prune.code != 0 || strings.Contains(prune.stderr, "not empty") {
		t.Fatalf("covey worktrees prune (exit %d):\n%s%s", prune.code, prune.stdout, prune.stderr)
	}
	noWorktreesLeft(t, ws)
	if err := syscall.Kill(gitPID, 0); err == nil {
		if st, _ := os.ReadFile("/proc/" + strconv.Itoa(gitPID) + "/stat"); !strings.Contains(string(st), ") Z ") {
			t.Errorf("the orphaned git worktree add (pid %d) still runs after prune", gitPID)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(got) != edit {
		t.Errorf("the user's uncommitted edit is gone after prune: %q", got)
	}
}
