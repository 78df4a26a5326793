package subagent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRedteamGitStatusRunsNoRepoCommand: the git status covey runs after
// a child's bash call runs in covey's own process, outside the sandbox; a
// core.fsmonitor the child wrote into .git/config must not run there.
func TestRedteamGitStatusRunsNoRepoCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, out := t.TempDir(), t.TempDir()
	marker := filepath.Join(out, "fsmonitor-ran")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("config", "core.fsmonitor", "touch "+marker+"; true")
	w := &fileWatcher{root: root}
	if !w.isGit(context.Background()) {
		t.Fatal("not seen as a git work tree")
	}
	if snap := w.snapshot(context.Background()); len(snap) == 0 {
		t.Error("git status saw no untracked file")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("git status ran the repository's core.fsmonitor command")
	}
}
