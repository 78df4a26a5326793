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

	// The line counts after the call (git diff --numstat) clean the
	// changed file too, and a diff driver's textconv or an external diff
	// would run there as well.
	if err := os.WriteFile(filepath.Join(root, ".gitattributes"), []byte("*.txt filter=x diff=t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A nested repository with a filter of its own, which git status
	// would enter to see whether it is dirty.
	nested := filepath.Join(root, "sub")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn := func(dir string, args ...string) {
		// The test's own git runs none of the planted commands.
		cmd := exec.Command("git", append([]string{"-c", "core.fsmonitor=false", "-c", "filter.x.clean=", "-c", "filter.x.process=", "-c", "filter.y.clean="}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	gitIn(root, "commit", "-q", "-m", "a", "--no-verify")
	gitIn(nested, "init", "-q")
	if err := os.WriteFile(filepath.Join(nested, "f.txt"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nested, ".gitattributes"), []byte("*.txt filter=y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(nested, "add", ".")
	gitIn(nested, "commit", "-q", "-m", "f", "--no-verify")
	gitIn(nested, "config", "filter.y.clean", "touch "+marker+"-nested; cat")
	gitIn(root, "add", "sub")
	gitIn(root, "commit", "-q", "-m", "sub", "--no-verify")
	git("config", "diff.t.textconv", "touch "+marker+"-textconv; cat")
	git("config", "diff.external", "touch "+marker+"-external")
	for _, m := range []string{marker, marker + "-filter", marker + "-process", marker + "-nested"} {
		os.Remove(m) // set-up commands of the test's own
	}
	before := w.snapshot(context.Background())
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nested, "f.txt"), []byte("f\ng\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(nested, "f.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	after := w.snapshot(context.Background())
	changes := w.changes(context.Background(), before, after)
	if len(changes) == 0 {
		t.Error("no change seen after a.txt was written")
	}
	for _, m := range []string{marker, marker + "-filter", marker + "-process", marker + "-textconv", marker + "-external", marker + "-nested"} {
		if _, err := os.Stat(m); err == nil {
			t.Errorf("covey's git after a bash call ran a command of a repository's config (%s)", filepath.Base(m))
		}
	}
}
