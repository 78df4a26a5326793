package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"testing"
)

// bigRepo makes a committed repository of n small files in 100 folders.
func bigRepo(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	for i := range n {
		write(b, root, fmt.Sprintf("d%02d/f%05d.go", i%100, i), fmt.Sprintf("package d\n\n// file %d\nvar x%d = %d\n", i, i, i))
	}
	run(b, root, "git", "init", "-q")
	run(b, root, "git", "config", "gc.auto", "0") // no detached gc outliving the benchmark
	run(b, root, "git", "add", "-A")
	run(b, root, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
	return root
}

func openBench(b *testing.B, root string) (*Store, string) {
	b.Helper()
	dir := Dir(b.TempDir(), root)
	s, err := Open(context.Background(), dir, root, "bench")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Take(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s, dir
}

// BenchmarkCheckpoint30k measures, on one 30,000-file repository: a
// checkpoint when nothing changed, one after a turn that changed 20 files
// and created one (reporting the shadow store's disk use after those
// turns, the first snapshot included, as disk-KB), /rewind's restore of
// such a turn (a snapshot of the present, then 21 files put back), and as
// the reference on the same machine in the same run, `git status` on the
// repository, which the user's own tools pay for all the time.
func BenchmarkCheckpoint30k(b *testing.B) {
	ctx := context.Background()
	root := bigRepo(b, 30000)
	b.Run("reference-git-status", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("git", "status", "--porcelain")
			cmd.Dir = root
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		s, _ := openBench(b, root)
		for b.Loop() {
			if _, err := s.Take(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("changed", func(b *testing.B) {
		s, dir := openBench(b, root)
		turn := 0
		for b.Loop() {
			b.StopTimer()
			turn++
			for k := range 20 {
				write(b, root, fmt.Sprintf("d%02d/f%05d.go", k, k*100+turn%100), fmt.Sprintf("package d\n// turn %d\n", turn))
			}
			write(b, root, fmt.Sprintf("new/t%d.go", turn), "package new\n")
			b.StartTimer()
			if _, err := s.Take(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(du(dir))/1024, "disk-KB")
		b.ReportMetric(float64(turn), "turns")
	})
	b.Run("rewind", func(b *testing.B) {
		s, _ := openBench(b, root)
		base, err := s.Take(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			b.StopTimer()
			for k := range 20 {
				write(b, root, fmt.Sprintf("d%02d/f%05d.go", k, k*100), "package d\n// changed\n")
			}
			write(b, root, "new/file.go", "package new\n")
			b.StartTimer()
			now, err := s.Take(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Restore(ctx, now.Tree, base.Tree, "bench", nil, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func du(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
