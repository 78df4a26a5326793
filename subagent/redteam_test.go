package subagent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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
	// A clean filter git status runs on a file whose time changed.
	if err := os.WriteFile(filepath.Join(root, ".gitattributes"), []byte("*.txt filter=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	git("config", "core.fsmonitor", "touch "+marker+"; true")
	git("config", "filter.x.clean", "touch "+marker+"-filter; cat")
	git("config", "filter.x.process", "touch "+marker+"-process")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(root, "a.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	os.Remove(marker + "-filter")
	os.Remove(marker + "-process")
	w := &fileWatcher{root: root}
	if !w.isGit(context.Background()) {
		t.Fatal("not seen as a git work tree")
	}
	if snap := w.snapshot(context.Background()); len(snap) == 0 {
		t.Error("git status saw no untracked file")
	}
	for _, m := range []string{marker, marker + "-filter", marker + "-process"} {
		if _, err := os.Stat(m); err == nil {
			t.Errorf("git status ran a command of the repository's config (%s)", filepath.Base(m))
		}
	}
}
