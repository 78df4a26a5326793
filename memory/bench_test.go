package memory

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad loads a user file, a repository root with an import and
// two folders down to the working directory.
func BenchmarkLoad(b *testing.B) {
	base, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	home, repo := filepath.Join(base, "home"), filepath.Join(base, "repo")
	work := filepath.Join(repo, "a", "b")
	for path, text := range map[string]string{
		filepath.Join(home, ".claude/CLAUDE.md"): "user notes",
		filepath.Join(repo, "AGENTS.md"):         "root notes @docs/style.md",
		filepath.Join(repo, "docs/style.md"):     "style",
		filepath.Join(repo, "a/CLAUDE.md"):       "a notes",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if m := Load(Options{Home: home, RepoRoot: repo, WorkDir: work}); len(m.Files) != 4 {
			b.Fatalf("loaded %d files", len(m.Files))
		}
	}
}

// BenchmarkOnReadSeen is the cost read_file pays for a file in a folder
// whose memory was looked at already (every read after the first).
func BenchmarkOnReadSeen(b *testing.B) {
	work := b.TempDir()
	n := Load(Options{WorkDir: work}).Nested()
	file := filepath.Join(work, "pkg", "sub", "a.go")
	n.OnRead(file)
	b.ResetTimer()
	for b.Loop() {
		if n.OnRead(file) != "" {
			b.Fatal("joined again")
		}
	}
}
