package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"covey/internal/procmark"
)

// run runs git in dir and fails the test on error.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func put(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func get(t testing.TB, dir, rel string) (string, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data), true
}

const tenLines = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"

// newRepo makes a repository with one commit: a.txt (ten lines),
// dir/b.txt, gone/c.txt and a .gitignore ignoring *.log.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init", "--quiet", "-b", "main")
	put(t, dir, "a.txt", tenLines)
	put(t, dir, "dir/b.txt", "bee\n")
	put(t, dir, "gone/c.txt", "sea\n")
	put(t, dir, ".gitignore", "*.log\n")
	run(t, dir, "add", ".")
	run(t, dir, "commit", "--quiet", "-m", "first")
	return dir
}

func open(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func create(t testing.TB, r *Repo, base Base) *Worktree {
	t.Helper()
	w, err := r.Create(context.Background(), Options{Name: "General Purpose 1", Base: base})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Remove(context.Background()) })
	return w
}

// state is what the user sees of their checkout: status and index.
func state(t testing.TB, dir string) string {
	t.Helper()
	idx, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return run(t, dir, "status", "--porcelain", "--untracked-files=all") + "\n" + string(idx)
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("not a repository", func(t *testing.T) {
		_, err := Open(ctx, t.TempDir())
		if !errors.Is(err, ErrNotRepo) {
			t.Fatalf("err = %v, want ErrNotRepo", err)
		}
	})
	t.Run("git missing", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := Open(ctx, t.TempDir())
		if !errors.Is(err, ErrNoGit) {
			t.Fatalf("err = %v, want ErrNoGit", err)
		}
	})
	t.Run("no commit yet", func(t *testing.T) {
		dir := t.TempDir()
		run(t, dir, "init", "--quiet")
		r := open(t, dir)
		_, err := r.Create(ctx, Options{Name: "x"})
		if !errors.Is(err, ErrNoCommit) {
			t.Fatalf("err = %v, want ErrNoCommit", err)
		}
		if ents, _ := r.List(ctx); len(ents) != 0 {
			t.Fatalf("a failed create left %v", ents)
		}
	})
}

func TestCreateBase(t *testing.T) {
	tests := map[string]struct {
		base      Base
		dirty     bool
		wantA     string
		wantNew   bool // the staged new file is there
		wantDesc  string
		wantUncom int
	}{
		"working, with changes": {base: BaseWorking, dirty: true, wantA: "ONE\n" + tenLines[4:], wantNew: true, wantDesc: "+ your uncommitted changes (2 files)", wantUncom: 2},
		"working, clean":        {base: BaseWorking, wantA: tenLines, wantDesc: "(no uncommitted changes)"},
		"head, with changes":    {base: BaseHead, dirty: true, wantA: tenLines, wantDesc: "your uncommitted changes are not in it"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := newRepo(t)
			if tc.dirty {
				put(t, dir, "a.txt", "ONE\n"+tenLines[4:])
				put(t, dir, "staged.txt", "staged\n")
				run(t, dir, "add", "staged.txt")
				put(t, dir, "untracked.txt", "not tracked\n")
			}
			before := state(t, dir)
			r := open(t, dir)
			w := create(t, r, tc.base)

			if got := state(t, dir); got != before {
				t.Errorf("creating the worktree changed the user's checkout:\n%s\nwant\n%s", got, before)
			}
			if !strings.HasPrefix(w.Path(), filepath.Join(r.CommonDir, dirName)) {
				t.Errorf("worktree at %s, want under the git directory", w.Path())
			}
			if !strings.HasPrefix(w.Branch(), "covey/general-purpose-1-") || len(w.Branch()) != len("covey/general-purpose-1-")+6 {
				t.Errorf("branch = %q", w.Branch())
			}
			if got, _ := get(t, w.Path(), "a.txt"); got != tc.wantA {
				t.Errorf("a.txt in the worktree = %q, want %q", got, tc.wantA)
			}
			if _, ok := get(t, w.Path(), "staged.txt"); ok != tc.wantNew {
				t.Errorf("staged.txt in the worktree: %v, want %v", ok, tc.wantNew)
			}
			if _, ok := get(t, w.Path(), "untracked.txt"); ok {
				t.Error("an untracked file reached the worktree")
			}
			if !strings.Contains(w.BaseDescription(), tc.wantDesc) || !strings.HasPrefix(w.BaseDescription(), "HEAD ") {
				t.Errorf("base description = %q, want it to say %q", w.BaseDescription(), tc.wantDesc)
			}
			if w.Record().Uncommitted != tc.wantUncom {
				t.Errorf("uncommitted = %d, want %d", w.Record().Uncommitted, tc.wantUncom)
			}
			// The base is not part of the child's change.
			if ch, err := w.Diff(context.Background()); err != nil || len(ch) != 0 {
				t.Errorf("a fresh worktree's diff = %v, %v; want none", ch, err)
			}
		})
	}
}

func TestCreateInSubfolder(t *testing.T) {
	dir := newRepo(t)
	r := open(t, filepath.Join(dir, "dir"))
	if r.Prefix != "dir/" {
		t.Fatalf("prefix = %q", r.Prefix)
	}
	w := create(t, r, BaseWorking)
	if got, _ := get(t, w.Workdir(), "b.txt"); got != "bee\n" {
		t.Fatalf("the workdir does not match the workspace folder: b.txt = %q", got)
	}
}

func TestDiff(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	w := create(t, open(t, dir), BaseWorking)
	put(t, w.Path(), "a.txt", strings.Replace(tenLines, "five", "FIVE", 1))
	put(t, w.Path(), "new/n.txt", "new\n")
	put(t, w.Path(), "debug.log", "ignored\n")
	if err := os.Remove(filepath.Join(w.Path(), "gone", "c.txt")); err != nil {
		t.Fatal(err)
	}
	// A change the child committed counts as much as one it did not.
	put(t, w.Path(), "dir/b.txt", "bee 2\n")
	run(t, w.Path(), "commit", "--quiet", "-am", "child commit")

	ch, err := w.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		path   string
		status Status
		old    string
		new    string
	}
	var got []row
	for _, c := range ch {
		got = append(got, row{c.Path, c.Status, string(c.Old), string(c.New)})
	}
	want := []row{
		{"a.txt", Modified, tenLines, strings.Replace(tenLines, "five", "FIVE", 1)},
		{"dir/b.txt", Modified, "bee\n", "bee 2\n"},
		{"gone/c.txt", Deleted, "sea\n", ""},
		{"new/n.txt", Added, "", "new\n"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("diff =\n%v\nwant\n%v", got, want)
	}
	if ch[2].New != nil || ch[3].Old != nil {
		t.Error("an absent side should be nil")
	}
}

func TestApply(t *testing.T) {
	five := strings.Replace(tenLines, "five", "FIVE", 1)
	tests := map[string]struct {
		child    func(t *testing.T, wt string)
		user     func(t *testing.T, dir string)
		files    []string
		want     map[string]string // "" means absent
		conflict []string
		applied  []string
	}{
		"clean: the user changed nothing": {
			child: func(t *testing.T, wt string) {
				put(t, wt, "a.txt", five)
				put(t, wt, "new/n.txt", "new\n")
				_ = os.Remove(filepath.Join(wt, "gone", "c.txt"))
			},
			want:    map[string]string{"a.txt": five, "new/n.txt": "new\n", "gone/c.txt": "", "dir/b.txt": "bee\n"},
			applied: []string{"a.txt", "gone/c.txt", "new/n.txt"},
		},
		"merged: the user edited other lines meanwhile": {
			child: func(t *testing.T, wt string) { put(t, wt, "a.txt", five) },
			user: func(t *testing.T, dir string) {
				put(t, dir, "a.txt", strings.Replace(tenLines, "one", "ONE", 1))
			},
			want:    map[string]string{"a.txt": strings.Replace(five, "one", "ONE", 1)},
			applied: []string{"a.txt"},
		},
		"conflict: both changed the same line; nothing written": {
			child: func(t *testing.T, wt string) {
				put(t, wt, "a.txt", five)
				put(t, wt, "dir/b.txt", "child bee\n") // would merge cleanly alone
				put(t, wt, "new/n.txt", "new\n")
			},
			user: func(t *testing.T, dir string) {
				put(t, dir, "a.txt", strings.Replace(tenLines, "five", "5", 1))
			},
			want:     map[string]string{"a.txt": strings.Replace(tenLines, "five", "5", 1), "dir/b.txt": "bee\n", "new/n.txt": ""},
			conflict: []string{"a.txt"},
		},
		"conflict: the user deleted what the child changed": {
			child: func(t *testing.T, wt string) { put(t, wt, "dir/b.txt", "child bee\n") },
			user: func(t *testing.T, dir string) {
				_ = os.Remove(filepath.Join(dir, "dir", "b.txt"))
			},
			want:     map[string]string{"dir/b.txt": ""},
			conflict: []string{"dir/b.txt"},
		},
		"conflict: both created the same file": {
			child:    func(t *testing.T, wt string) { put(t, wt, "x.txt", "child\n") },
			user:     func(t *testing.T, dir string) { put(t, dir, "x.txt", "user\n") },
			want:     map[string]string{"x.txt": "user\n"},
			conflict: []string{"x.txt"},
		},
		"same result on both sides is no conflict": {
			child:   func(t *testing.T, wt string) { put(t, wt, "x.txt", "same\n") },
			user:    func(t *testing.T, dir string) { put(t, dir, "x.txt", "same\n") },
			want:    map[string]string{"x.txt": "same\n"},
			applied: nil,
		},
		"per-file choice": {
			child: func(t *testing.T, wt string) {
				put(t, wt, "a.txt", five)
				put(t, wt, "new/n.txt", "new\n")
			},
			files:   []string{"new/n.txt"},
			want:    map[string]string{"a.txt": tenLines, "new/n.txt": "new\n"},
			applied: []string{"new/n.txt"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := newRepo(t)
			r := open(t, dir)
			w := create(t, r, BaseWorking)
			tc.child(t, w.Path())
			if tc.user != nil {
				tc.user(t, dir)
			}
			applied, err := w.Apply(ctx, ApplyOptions{Files: tc.files})
			var ce *ConflictError
			switch {
			case tc.conflict != nil:
				if !errors.As(err, &ce) {
					t.Fatalf("err = %v, want a conflict", err)
				}
				if !slices.Equal(ce.Files(), tc.conflict) {
					t.Errorf("conflicts = %v, want %v", ce.Files(), tc.conflict)
				}
				for _, s := range append(tc.conflict, w.Path(), w.Branch(), "nothing was applied") {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("message %q does not say %q", err, s)
					}
				}
				if _, err := os.Stat(w.Path()); err != nil {
					t.Errorf("the worktree of a conflict is gone: %v", err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if !slices.Equal(applied, tc.applied) {
					t.Errorf("applied = %v, want %v", applied, tc.applied)
				}
			}
			for rel, want := range tc.want {
				got, ok := get(t, dir, rel)
				if want == "" && ok {
					t.Errorf("%s exists (%q), want it absent", rel, got)
				} else if want != "" && got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
			if tc.want["gone/c.txt"] == "" && tc.applied != nil && slices.Contains(tc.applied, "gone/c.txt") {
				if _, err := os.Stat(filepath.Join(dir, "gone")); !errors.Is(err, os.ErrNotExist) {
					t.Error("the emptied folder gone/ was left behind")
				}
			}
		})
	}
}

func TestApplyKeepsModeAndRefusesEscapes(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	if err := os.Chmod(filepath.Join(dir, "dir", "b.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir)
	w := create(t, r, BaseWorking)
	put(t, w.Path(), "dir/b.txt", "child bee\n")
	if _, err := w.Apply(ctx, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, "dir", "b.txt"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode after merge = %v, %v; want the user's 0600 kept", info.Mode(), err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", "a/../../x", ""} {
		if _, err := r.target(bad); err == nil {
			t.Errorf("target(%q) was accepted", bad)
		}
	}
	// A folder of the checkout that is a symlink to elsewhere.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.target("link/x.txt"); err == nil {
		t.Error("a path through a symlink leading outside was accepted")
	}
}

// TestApplyStaleTarget: a file the user saves between the merge's read and
// its write stops the merge, and what was already written is put back.
func TestApplyStaleTarget(t *testing.T) {
	dir := newRepo(t)
	w := create(t, open(t, dir), BaseWorking)
	put(t, w.Path(), "a.txt", "child a\n")
	put(t, w.Path(), "dir/b.txt", "child b\n")
	// The lock of the last target is where the user's save slips in.
	lock := func(_ context.Context, abs string) (func(), error) {
		return func() {}, nil
	}
	before := func(abs, rel string, _ bool, _ []byte, _ os.FileMode) error {
		if rel == "dir/b.txt" {
			put(t, dir, "dir/b.txt", "user saved\n")
		}
		return nil
	}
	_, err := w.Apply(context.Background(), ApplyOptions{Lock: lock, Before: before})
	if err == nil || !strings.Contains(err.Error(), "changed while the merge") {
		t.Fatalf("err = %v, want the stale target named", err)
	}
	if got, _ := get(t, dir, "a.txt"); got != tenLines {
		t.Errorf("a.txt = %q, want it put back", got)
	}
	if got, _ := get(t, dir, "dir/b.txt"); got != "user saved\n" {
		t.Errorf("dir/b.txt = %q, want the user's save kept", got)
	}
}

func TestApplyLocksTargets(t *testing.T) {
	dir := newRepo(t)
	w := create(t, open(t, dir), BaseWorking)
	put(t, w.Path(), "a.txt", "x\n")
	put(t, w.Path(), "dir/b.txt", "y\n")
	var locked []string
	_, err := w.Apply(context.Background(), ApplyOptions{Lock: func(_ context.Context, abs string) (func(), error) {
		locked = append(locked, abs)
		return func() {}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(w.repo.Top, "a.txt"), filepath.Join(w.repo.Top, "dir", "b.txt")}
	if !slices.Equal(locked, want) {
		t.Fatalf("locked %v, want %v", locked, want)
	}
}

func TestApplyBefore(t *testing.T) {
	dir := newRepo(t)
	w := create(t, open(t, dir), BaseWorking)
	put(t, w.Path(), "a.txt", "x\n")
	put(t, w.Path(), "n.txt", "new\n")
	type saved struct {
		rel     string
		existed bool
		content string
	}
	var got []saved
	before := func(_, rel string, existed bool, content []byte, _ os.FileMode) error {
		got = append(got, saved{rel, existed, string(content)})
		if rel == "n.txt" {
			return errors.New("no room for the undo copy")
		}
		return nil
	}
	if _, err := w.Apply(context.Background(), ApplyOptions{Before: before}); err == nil || !strings.Contains(err.Error(), "no room") {
		t.Fatalf("err = %v, want the Before error", err)
	}
	if a, _ := get(t, dir, "a.txt"); a != tenLines {
		t.Errorf("a.txt was written although Before failed: %q", a)
	}
	want := []saved{{"a.txt", true, tenLines}, {"n.txt", false, ""}}
	if !slices.Equal(got, want) {
		t.Errorf("Before saw %v, want %v", got, want)
	}
}

func TestRemove(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := open(t, dir)
	listBefore := run(t, dir, "worktree", "list", "--porcelain")
	branchesBefore := run(t, dir, "branch", "--list")
	w, err := r.Create(ctx, Options{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	put(t, w.Path(), "a.txt", "dirty\n") // removal must not stop at changes
	put(t, w.Path(), "scratch.log", "ignored\n")
	for i := range 2 { // twice: removing again is harmless
		if err := w.Remove(ctx); err != nil {
			t.Fatalf("remove %d: %v", i+1, err)
		}
	}
	if got := run(t, dir, "worktree", "list", "--porcelain"); got != listBefore {
		t.Errorf("worktree list after remove:\n%s\nwant\n%s", got, listBefore)
	}
	if got := run(t, dir, "branch", "--list"); got != branchesBefore {
		t.Errorf("branches after remove:\n%s\nwant\n%s", got, branchesBefore)
	}
	if ents, err := r.List(ctx); err != nil || len(ents) != 0 {
		t.Errorf("records after remove: %v, %v", ents, err)
	}
	if _, err := os.Stat(w.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("folder left: %v", err)
	}
}

func TestKeep(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	w := create(t, open(t, dir), BaseWorking)
	put(t, w.Path(), "new.txt", "kept\n")
	commit, err := w.Keep(ctx, "covey: kept")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(run(t, dir, "rev-parse", w.Branch())); got != commit {
		t.Errorf("branch at %s, want the kept commit %s", got, commit)
	}
	if got := run(t, dir, "show", w.Branch()+":new.txt"); got != "kept\n" {
		t.Errorf("new.txt on the branch = %q", got)
	}
	// The diff still shows the change after it was committed.
	if ch, err := w.Diff(ctx); err != nil || len(ch) != 1 || ch[0].Path != "new.txt" {
		t.Errorf("diff after keep = %v, %v", ch, err)
	}
}

func TestOwnershipAndPrune(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := open(t, dir)
	mine := create(t, r, BaseHead)

	// A worktree whose owner has exited.
	dead, err := r.Create(ctx, Options{Name: "dead"})
	if err != nil {
		t.Fatal(err)
	}
	put(t, dead.Path(), "a.txt", "changed\n")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	rec := dead.Record()
	rec.setOwner(cmd.Process.Pid)
	if err := rec.write(r.root()); err != nil {
		t.Fatal(err)
	}
	// A folder with no record at all (a crash, or a deleted record).
	stray := filepath.Join(r.root(), "stray-abc123")
	if err := os.MkdirAll(stray, 0o755); err != nil {
		t.Fatal(err)
	}

	all, err := r.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("list = %d entries, want 3: %+v", len(all), all)
	}
	orphans, err := r.Orphans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range orphans {
		names = append(names, o.Name)
		if o.Name == dead.Record().Name && o.Changed != 1 {
			t.Errorf("orphan %s changed = %d, want 1", o.Name, o.Changed)
		}
	}
	slices.Sort(names)
	want := []string{dead.Record().Name, "stray-abc123"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("orphans = %v, want %v (not the live %s)", names, want, mine.Record().Name)
	}

	pruned, err := r.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pruned) != 2 {
		t.Errorf("pruned %d, want 2", len(pruned))
	}
	left, _ := r.List(ctx)
	if len(left) != 1 || left[0].Name != mine.Record().Name || !left[0].Live {
		t.Errorf("after prune: %+v, want only the live worktree", left)
	}
	if out := run(t, dir, "branch", "--list", "covey/dead*"); out != "" {
		t.Errorf("the orphan's branch survived: %s", out)
	}
	if strings.Contains(run(t, dir, "worktree", "list"), dead.Path()) {
		t.Error("the orphan's worktree is still registered")
	}
}

func TestAdoptAndApplyOrphan(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := open(t, dir)
	mine := create(t, r, BaseWorking)
	if _, err := r.Adopt(ctx, mine.Branch()); err == nil || !strings.Contains(err.Error(), "running covey") {
		t.Errorf("adopting a live worktree: %v", err)
	}
	orphan, err := r.Create(ctx, Options{Name: "crashed"})
	if err != nil {
		t.Fatal(err)
	}
	put(t, orphan.Path(), "dir/b.txt", "rescued\n")
	rec := orphan.Record()
	rec.PID, rec.PIDStart = 1<<22+1, "" // no such process
	if err := rec.write(r.root()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Adopt(ctx, "nope"); err == nil {
		t.Error("adopted a worktree that does not exist")
	}
	w, err := r.Adopt(ctx, rec.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Apply(ctx, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := get(t, dir, "dir/b.txt"); got != "rescued\n" {
		t.Errorf("dir/b.txt = %q after applying the orphan", got)
	}
	if left, _ := r.List(ctx); len(left) != 1 {
		t.Errorf("after applying the orphan %d worktrees are listed, want the live one", len(left))
	}
}

// TestUserHooksAndSigning: the user's failing hooks and commit signing do
// not break covey's own git calls.
func TestUserHooksAndSigning(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	for _, hook := range []string{"post-checkout", "pre-commit", "commit-msg", "post-commit"} {
		p := filepath.Join(dir, ".git", "hooks", hook)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, "config", "commit.gpgSign", "true")
	run(t, dir, "config", "gpg.program", "false")
	put(t, dir, "a.txt", "uncommitted\n") // so the base is a commit covey makes
	w := create(t, open(t, dir), BaseWorking)
	if w.Record().Uncommitted != 1 {
		t.Fatalf("uncommitted = %d", w.Record().Uncommitted)
	}
	put(t, w.Path(), "k.txt", "k\n")
	if _, err := w.Keep(ctx, "covey: kept"); err != nil {
		t.Fatalf("keep with failing hooks and signing configured: %v", err)
	}
}

// TestKeptIsAnOrphan: a kept worktree may be applied or pruned while the
// session that made it runs; one its child still works in may not.
func TestKeptIsAnOrphan(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := open(t, dir)
	working := create(t, r, BaseWorking)
	kept := create(t, r, BaseWorking)
	put(t, kept.Path(), "k.txt", "k\n")
	if _, err := kept.Keep(ctx, "covey: kept"); err != nil {
		t.Fatal(err)
	}
	orphans, err := r.Orphans(ctx)
	if err != nil || len(orphans) != 1 || orphans[0].Name != kept.Record().Name {
		t.Fatalf("orphans = %+v, %v; want the kept one alone", orphans, err)
	}
	if _, err := r.Adopt(ctx, working.Branch()); err == nil {
		t.Error("adopted a worktree a child still works in")
	}
	w, err := r.Adopt(ctx, kept.Branch())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Apply(ctx, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := get(t, dir, "k.txt"); got != "k\n" {
		t.Errorf("k.txt = %q", got)
	}
	var b strings.Builder
	if err := WriteList(&b, orphans); err != nil || !strings.Contains(b.String(), "kept (its child finished") {
		t.Errorf("list = %q, %v", b.String(), err)
	}
}

func TestParseBase(t *testing.T) {
	for in, want := range map[string]Base{"": BaseWorking, "head": BaseHead, "HEAD": BaseHead, "working": BaseWorking} {
		if got, err := ParseBase(in); err != nil || got != want {
			t.Errorf("ParseBase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseBase("tip"); err == nil {
		t.Error("ParseBase accepted tip")
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"General Purpose 1": "general-purpose-1",
		"../../etc":         "etc",
		"":                  "child",
		"a..b":              "a.b",
		"x/y~z^":            "x-y-z",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKilledOwnerIsNotLive: a covey killed with SIGKILL whose parent has
// not reaped it yet (a zombie) owns nothing: its worktrees can be pruned.
func TestKilledOwnerIsNotLive(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here: liveness is kill(pid, 0) alone")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	rec := Record{PID: cmd.Process.Pid, PIDStart: procmark.StartTime(cmd.Process.Pid)}
	if !rec.Live() {
		t.Fatal("a running owner is not live")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped: wait until the kernel shows it as a zombie.
	for i := 0; i < 500; i++ {
		if data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)); strings.Contains(string(data), ") Z ") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rec.Live() {
		t.Error("a killed, unreaped owner still counts as live")
	}
}

// TestApplyLineEndings: in a repository whose attributes check text out
// with CRLF, the user's files hold CRLF while git's blobs hold LF. A change
// is compared and merged in the files' own form: no false conflict, and
// what lands keeps the checkout's line endings.
func TestApplyLineEndings(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "init", "--quiet", "-b", "main")
	put(t, dir, ".gitattributes", "*.txt text eol=crlf\n")
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	put(t, dir, "a.txt", crlf(tenLines))
	put(t, dir, "b.txt", crlf("bee\n"))
	run(t, dir, "add", ".")
	run(t, dir, "commit", "--quiet", "-m", "first")
	r := open(t, dir)
	w := create(t, r, BaseHead)
	if got, _ := get(t, w.Path(), "a.txt"); got != crlf(tenLines) {
		t.Fatalf("the worktree's a.txt = %q, want the CRLF checkout", got)
	}
	five := strings.Replace(tenLines, "five", "FIVE", 1)
	put(t, w.Path(), "a.txt", crlf(five))                                  // the child edits line 5
	put(t, w.Path(), "b.txt", crlf("child bee\n"))                         // and b.txt
	put(t, dir, "a.txt", crlf(strings.Replace(tenLines, "one", "ONE", 1))) // the user edits line 1 meanwhile
	applied, err := w.Apply(context.Background(), ApplyOptions{})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if len(applied) != 2 {
		t.Errorf("applied %v, want a.txt and b.txt", applied)
	}
	if got, _ := get(t, dir, "a.txt"); got != crlf(strings.Replace(five, "one", "ONE", 1)) {
		t.Errorf("a.txt = %q, want both edits with CRLF line ends", got)
	}
	if got, _ := get(t, dir, "b.txt"); got != crlf("child bee\n") {
		t.Errorf("b.txt = %q, want the child's, with CRLF", got)
	}
}

// TestDiffSeesASameSizeEditOfTheCheckoutSecond: git trusts a file whose
// size and mtime (whole seconds) match its index entry, unless the entry is
// as new as the index ("racy git"). An edit of the same size, in the second
// the worktree was checked out, must still be seen: the copy of the index
// covey reads through keeps the index's time.
func TestDiffSeesASameSizeEditOfTheCheckoutSecond(t *testing.T) {
	dir := newRepo(t)
	r := open(t, dir)
	w := create(t, r, BaseHead)
	a := filepath.Join(w.Path(), "a.txt")
	before, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	checkedOut := before.ModTime()
	// The child's edit: same size, and (as a fast one would have) the
	// checkout's time; the index as new as the entry.
	put(t, w.Path(), "a.txt", strings.Replace(tenLines, "five", "FIVE", 1))
	index := strings.TrimSpace(run(t, w.Path(), "rev-parse", "--git-path", "index"))
	if !filepath.IsAbs(index) {
		index = filepath.Join(w.Path(), index)
	}
	for _, p := range []string{a, index} {
		if err := os.Chtimes(p, checkedOut, checkedOut); err != nil {
			t.Fatal(err)
		}
	}
	// A copy made now, in a later second, would no longer look racy.
	time.Sleep(time.Until(checkedOut.Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
	changes, err := w.Diff(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Fatalf("changes = %+v, want a.txt's edit", changes)
	}
}
