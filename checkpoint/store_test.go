package checkpoint

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo makes a git repository with files and one commit.
func repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		write(t, dir, name, body)
	}
	run(t, dir, "git", "init", "-q")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
	return dir
}

func write(t testing.TB, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

func open(t testing.TB, root string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Dir(t.TempDir(), root), root, "sess1")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func read(t testing.TB, dir, name string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "", false
	}
	return string(b), true
}

func TestRestoreRoundTripLeavesTheRepositoryAlone(t *testing.T) {
	ctx := context.Background()
	root := repo(t, map[string]string{"a.txt": "a1\n", "dir/b.txt": "b1\n", "gone.txt": "g\n", ".gitignore": "*.log\n"})
	write(t, root, "staged.txt", "s\n")
	run(t, root, "git", "add", "staged.txt")
	index, _ := os.ReadFile(filepath.Join(root, ".git", "index"))
	status := run(t, root, "git", "status", "--porcelain")
	s := open(t, root)

	before, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "a.txt", "a2\n")
	write(t, root, "new/c.txt", "c\n")
	write(t, root, "x.log", "ignored\n")
	if err := os.Remove(filepath.Join(root, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	now, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.Changes(ctx, before.Tree, now.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Paths(cs), []string{"a.txt", "gone.txt", "new/c.txt"}; !slices.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	res, err := s.Restore(ctx, now.Tree, before.Tree, "test", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 2 || len(res.Removed) != 1 {
		t.Fatalf("restored %+v", res)
	}
	for name, want := range map[string]string{"a.txt": "a1\n", "gone.txt": "g\n", "dir/b.txt": "b1\n", "x.log": "ignored\n", "staged.txt": "s\n"} {
		if got, ok := read(t, root, name); !ok || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Errorf("the folder of a created file is still there: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(root, ".git", "index"))
	if !bytes.Equal(index, after) {
		t.Error("the repository's index changed")
	}
	if got := run(t, root, "git", "status", "--porcelain"); got != status {
		t.Errorf("git status changed:\n%s\nwas:\n%s", got, status)
	}
	if got := run(t, root, "git", "branch", "--list"); strings.Count(got, "\n") != 1 {
		t.Errorf("branches: %q", got)
	}
	if _, err := os.Stat(s.journalPath()); !os.IsNotExist(err) {
		t.Errorf("the journal is left: %v", err)
	}
}

func TestOversizedFilesAreNamedNotCovered(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir() // not a repository
	write(t, root, "small.txt", "s")
	write(t, root, "big.bin", strings.Repeat("x", 200))
	s := open(t, root)
	s.Limit = 100
	snap, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(snap.Skipped, []string{"big.bin"}) {
		t.Fatalf("skipped %v", snap.Skipped)
	}
	write(t, root, "small.txt", strings.Repeat("y", 150)) // grows past the limit
	snap2, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(snap2.Skipped, "small.txt") {
		t.Fatalf("skipped %v", snap2.Skipped)
	}
	out, _ := s.git(ctx, nil, "ls-tree", "-r", "--name-only", snap2.Tree)
	if strings.TrimSpace(string(out)) != "" {
		t.Fatalf("tree holds %q", out)
	}
}

func TestUnchangedWorkspaceKeepsItsTree(t *testing.T) {
	ctx := context.Background()
	root := repo(t, map[string]string{"a": "1", "b/c": "2"})
	s := open(t, root)
	a, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a.Tree != b.Tree {
		t.Fatalf("trees %s and %s", a.Tree, b.Tree)
	}
}

// TestKilledRestoreIsFinishedAtNextStart kills (SIGKILL) a process in the
// middle of a restore and checks the journal finishes it.
func TestKilledRestoreIsFinishedAtNextStart(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for _, n := range []string{"f1", "f2", "f3", "f4", "f5"} {
		files[n] = n + " before\n"
	}
	root := repo(t, files)
	dir := Dir(t.TempDir(), root)
	s, err := Open(ctx, dir, root, "sess1")
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n := range files {
		write(t, root, n, n+" after\n")
	}
	after, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "marker")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRestore$")
	cmd.Env = append(os.Environ(), "COVEY_CHECKPOINT_HELPER="+strings.Join([]string{dir, root, after.Tree, before.Tree, marker}, "\n"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if i > 3000 {
			_ = cmd.Process.Kill()
			t.Fatal("the helper never reached the middle of its restore")
		}
		sleep()
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	restored := 0
	for n := range files {
		if got, _ := read(t, root, n); got == n+" before\n" {
			restored++
		}
	}
	if restored == 0 || restored == len(files) {
		t.Fatalf("the kill left %d of %d files restored: not in the middle", restored, len(files))
	}
	got := Recover(ctx, dir, root)
	if len(got) != 1 || got[0].Err != nil || got[0].Label != "helper" {
		t.Fatalf("recover: %+v", got)
	}
	for n := range files {
		if body, _ := read(t, root, n); body != n+" before\n" {
			t.Errorf("%s = %q after recovery", n, body)
		}
	}
	if again := Recover(ctx, dir, root); len(again) != 0 {
		t.Fatalf("recovered twice: %+v", again)
	}
}

// TestHelperRestore is the process TestKilledRestoreIsFinishedAtNextStart
// kills: it restores, and after two files says so and waits.
func TestHelperRestore(t *testing.T) {
	spec := os.Getenv("COVEY_CHECKPOINT_HELPER")
	if spec == "" {
		t.Skip("run by TestKilledRestoreIsFinishedAtNextStart")
	}
	f := strings.Split(spec, "\n")
	s, err := Open(context.Background(), f[0], f[1], "sess1")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = s.Restore(context.Background(), f[2], f[3], "helper", nil, nil, func(done int) {
		if done == 2 {
			_ = os.WriteFile(f[4], nil, 0o600)
			select {}
		}
	})
}
