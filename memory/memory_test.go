package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// realDir is a temp folder by its real path (macOS's /var is a link).
func realDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func paths(files []File, base string) []string {
	var out []string
	for _, f := range files {
		rel, _ := filepath.Rel(base, f.Path)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func TestLoadLayers(t *testing.T) {
	base := realDir(t)
	home, cfg, repo := filepath.Join(base, "home"), filepath.Join(base, "cfg"), filepath.Join(base, "repo")
	work := filepath.Join(repo, "svc", "api")
	write(t, filepath.Join(home, ".claude/CLAUDE.md"), "user claude")
	write(t, filepath.Join(cfg, "AGENTS.md"), "user covey")
	write(t, filepath.Join(repo, "AGENTS.md"), "root agents")
	write(t, filepath.Join(repo, "CLAUDE.md"), "@AGENTS.md\nroot claude")
	write(t, filepath.Join(repo, "svc/CLAUDE.local.md"), "svc local")
	write(t, filepath.Join(work, ".claude/CLAUDE.md"), "api dot-claude")
	write(t, filepath.Join(work, "deeper/AGENTS.md"), "below the working directory")
	write(t, filepath.Join(base, "AGENTS.md"), "above the repository")
	m := Load(Options{Home: home, UserConfigDir: cfg, RepoRoot: repo, WorkDir: work})
	got := strings.Join(paths(m.Files, base), " ")
	want := "home/.claude/CLAUDE.md cfg/AGENTS.md repo/AGENTS.md repo/CLAUDE.md repo/svc/CLAUDE.local.md repo/svc/api/.claude/CLAUDE.md"
	if got != want {
		t.Fatalf("files = %s\nwant    %s", got, want)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("warnings: %v", m.Warnings)
	}
	text := Render(m.Files, home)
	if !strings.Contains(text, "## ~/.claude/CLAUDE.md\n\nuser claude") || strings.Count(text, "root agents") != 1 {
		t.Errorf("render:\n%s", text)
	}
}

func TestImports(t *testing.T) {
	base := realDir(t)
	home, repo := filepath.Join(base, "home"), filepath.Join(base, "repo")
	write(t, filepath.Join(home, "notes/style.md"), "house style")
	write(t, filepath.Join(home, "secret.md"), "private")
	// The user's file imports from anywhere: ~/ and absolute paths.
	write(t, filepath.Join(home, ".claude/CLAUDE.md"), "see @~/notes/style.md and @"+filepath.Join(base, "abs.md"))
	write(t, filepath.Join(base, "abs.md"), "absolute")
	// A chain six deep: 1 → 2 → ... → 7.
	for i := 1; i <= 7; i++ {
		write(t, filepath.Join(repo, "docs", "d"+string(rune('0'+i))+".md"), "level @./d"+string(rune('0'+i+1))+".md")
	}
	write(t, filepath.Join(repo, "AGENTS.md"), "start @docs/d1.md, mention @alice, code `@docs/x.md`\n```\n@docs/fenced.md\n```\n@a.md\n@~/secret.md")
	write(t, filepath.Join(repo, "a.md"), "a imports @b.md")
	write(t, filepath.Join(repo, "b.md"), "b imports @a.md back")
	write(t, filepath.Join(repo, "docs/x.md"), "in code")
	write(t, filepath.Join(repo, "docs/fenced.md"), "in a fence")
	m := Load(Options{Home: home, RepoRoot: repo, WorkDir: repo})
	got := strings.Join(paths(m.Files, base), " ")
	want := "home/.claude/CLAUDE.md home/notes/style.md abs.md repo/AGENTS.md repo/docs/d1.md repo/docs/d2.md repo/docs/d3.md repo/docs/d4.md repo/docs/d5.md repo/a.md repo/b.md"
	if got != want {
		t.Fatalf("files = %s\nwant    %s", got, want)
	}
	warns := strings.Join(m.Warnings, "\n")
	for _, w := range []string{"more than 5 imports deep", "imports it back: the cycle is not followed", "outside the repository"} {
		if !strings.Contains(warns, w) {
			t.Errorf("warnings lack %q:\n%s", w, warns)
		}
	}
	for _, f := range m.Files {
		if strings.Contains(f.Text, "private") {
			t.Error("a repository imported the user's private file")
		}
		if strings.HasSuffix(f.Path, "d5.md") && f.Depth != 5 {
			t.Errorf("d5 depth = %d", f.Depth)
		}
	}
}

func TestNestedJoinsOnFirstRead(t *testing.T) {
	base := realDir(t)
	work := filepath.Join(base, "repo")
	write(t, filepath.Join(work, "AGENTS.md"), "root")
	write(t, filepath.Join(work, "web/AGENTS.md"), "web rules @../shared.md")
	write(t, filepath.Join(work, "shared.md"), "shared")
	write(t, filepath.Join(work, "web/ui/CLAUDE.md"), "ui rules")
	write(t, filepath.Join(work, "web/ui/a.ts"), "")
	write(t, filepath.Join(work, "web/ui/b.ts"), "")
	write(t, filepath.Join(work, "main.go"), "")
	m := Load(Options{WorkDir: work})
	n := m.Nested()
	if got := n.OnRead(filepath.Join(work, "main.go")); got != "" {
		t.Fatalf("a file in the working directory joined %q", got)
	}
	got := n.OnRead(filepath.Join(work, "web/ui/a.ts"))
	for _, w := range []string{"web rules", "ui rules", "shared", "joins your instructions"} {
		if !strings.Contains(got, w) {
			t.Errorf("first read lacks %q:\n%s", w, got)
		}
	}
	if strings.Index(got, "web rules") > strings.Index(got, "ui rules") {
		t.Errorf("the outer folder's file comes after the inner's:\n%s", got)
	}
	if again := n.OnRead(filepath.Join(work, "web/ui/b.ts")); again != "" {
		t.Errorf("a second read joined again: %q", again)
	}
	if len(n.Joined()) != 3 {
		t.Errorf("joined %v", n.Joined())
	}
	// Another agent has its own context, so memory joins it too.
	if other := m.Nested().OnRead(filepath.Join(work, "web/ui/b.ts")); !strings.Contains(other, "ui rules") {
		t.Errorf("another agent's first read joined %q", other)
	}
	if got := n.OnRead(filepath.Join(base, "elsewhere.go")); got != "" {
		t.Errorf("a file outside the workspace joined %q", got)
	}
}

func TestBounds(t *testing.T) {
	work := realDir(t)
	write(t, filepath.Join(work, "AGENTS.md"), strings.Repeat("x", MaxFileBytes+10))
	m := Load(Options{WorkDir: work})
	if len(m.Files) != 1 || len(m.Files[0].Text) > MaxFileBytes+200 || !strings.Contains(m.Files[0].Text, "cut") {
		t.Fatalf("a big memory file is not cut")
	}
}

func TestRepositoryFileLinkedOutside(t *testing.T) {
	base := realDir(t)
	repo := filepath.Join(base, "repo")
	write(t, filepath.Join(base, "secret"), "PRIVATE KEY")
	write(t, filepath.Join(repo, "docs/shared.md"), "shared")
	if err := os.Symlink("../secret", filepath.Join(repo, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("docs/shared.md", filepath.Join(repo, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	m := Load(Options{RepoRoot: repo, WorkDir: repo})
	got := strings.Join(paths(m.Files, base), " ")
	if got != "repo/docs/shared.md" {
		t.Errorf("files = %s, want only the link inside the repository", got)
	}
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "leads outside the repository") {
		t.Errorf("warnings: %v", m.Warnings)
	}
}
