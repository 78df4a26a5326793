package worktree

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cloneThisRepo clones the repository holding this package into a temp
// folder, so the benchmark measures covey's own tree without adding
// worktrees to the developer's repository.
func cloneThisRepo(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		b.Skipf("not in a git checkout: %v", err)
	}
	dst := filepath.Join(b.TempDir(), "covey")
	run(b, b.TempDir(), "clone", "--quiet", "--no-hardlinks", strings.TrimSpace(string(out)), dst)
	return dst
}

// BenchmarkCreateRemove measures one worktree's life on covey's own
// repository: create (from HEAD, or from HEAD plus one uncommitted file),
// diff, remove. "git" is the reference in the same run: the bare
// `git worktree add -b` + `git worktree remove` + `git branch -D` that
// any worktree costs.
func BenchmarkCreateRemove(b *testing.B) {
	b.Run("git", func(b *testing.B) {
		dir := cloneThisRepo(b)
		wt := filepath.Join(b.TempDir(), "wt")
		b.ResetTimer()
		for b.Loop() {
			run(b, dir, "worktree", "add", "--quiet", "-b", "covey/bench-ref", wt, "HEAD")
			run(b, dir, "worktree", "remove", "--force", wt)
			run(b, dir, "branch", "-D", "--quiet", "covey/bench-ref")
		}
	})
	for _, base := range []Base{BaseHead, BaseWorking} {
		b.Run(string(base), func(b *testing.B) {
			dir := cloneThisRepo(b)
			put(b, dir, "README.md", "uncommitted\n")
			// A fresh clone's index is racily clean (files as new as the
			// index), so git would re-read every file each time; a day-old
			// checkout is not. git status refreshes it, as using git does.
			time.Sleep(1100 * time.Millisecond)
			run(b, dir, "status", "--porcelain")
			r := open(b, dir)
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				w, err := r.Create(ctx, Options{Name: "bench", Base: base})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := w.Diff(ctx); err != nil {
					b.Fatal(err)
				}
				if err := w.Remove(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCreateRemoveVsGit interleaves covey's worktree life (create from
// HEAD plus one uncommitted file, diff, remove) with the bare git reference
// in every iteration, so a loaded machine slows both alike, and reports
// both times and their ratio.
func BenchmarkCreateRemoveVsGit(b *testing.B) {
	dir := cloneThisRepo(b)
	put(b, dir, "README.md", "uncommitted\n")
	time.Sleep(1100 * time.Millisecond)
	run(b, dir, "status", "--porcelain")
	r := open(b, dir)
	ctx := context.Background()
	wt := filepath.Join(b.TempDir(), "wt")
	var covey, ref time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		run(b, dir, "worktree", "add", "--quiet", "-b", "covey/bench-ref", wt, "HEAD")
		run(b, dir, "worktree", "remove", "--force", wt)
		run(b, dir, "branch", "-D", "--quiet", "covey/bench-ref")
		t1 := time.Now()
		w, err := r.Create(ctx, Options{Name: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Diff(ctx); err != nil {
			b.Fatal(err)
		}
		if err := w.Remove(ctx); err != nil {
			b.Fatal(err)
		}
		ref += t1.Sub(t0)
		covey += time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(covey.Milliseconds())/n, "covey-ms/op")
	b.ReportMetric(float64(ref.Milliseconds())/n, "git-ms/op")
	b.ReportMetric(float64(covey)/float64(ref), "x-git")
}
