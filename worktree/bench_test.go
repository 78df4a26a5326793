package worktree

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
// repository: create (with the working-tree base, one file uncommitted),
// diff, remove.
func BenchmarkCreateRemove(b *testing.B) {
	for _, base := range []Base{BaseHead, BaseWorking} {
		b.Run(string(base), func(b *testing.B) {
			dir := cloneThisRepo(b)
			put(b, dir, "README.md", "uncommitted\n")
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
