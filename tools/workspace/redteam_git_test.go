package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteamGitListingRunsNoRepoCommand: covey lists the workspace with
// git in its own process, outside the sandbox. A model that wrote
// core.fsmonitor into .git/config (the sandbox lets it: the workspace is
// writable) must not get that command run unconfined by the next
// glob, grep or list_dir.
func TestRedteamGitListingRunsNoRepoCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, out := t.TempDir(), t.TempDir()
	marker := filepath.Join(out, "fsmonitor-ran")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		// None of the caller's GIT_* variables: run from a git hook or
		// `git rebase -x`, GIT_DIR would point init, add and config (the
		// fsmonitor command) at the caller's repository.
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GIT_") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	git("config", "core.fsmonitor", "touch "+marker+"; true")
	files, err := gitListFiles(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Errorf("git listed nothing")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("listing the workspace ran the repository's core.fsmonitor command")
	}
}
