package workspace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWildmatch(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"*.log", "a.log", true},
		{"*.log", "dir/a.log", false}, // * never crosses a slash
		{"a?c", "abc", true},
		{"a?c", "a/c", false},
		{"[abc]x", "bx", true},
		{"[!abc]x", "bx", false},
		{"[^abc]x", "dx", true},
		{"[a-c]x", "cx", true},
		{"[a-c]x", "dx", false},
		{"[]]x", "]x", true},
		{"[[:digit:]]*", "7up", true},
		{"[[:upper:]]*", "up", false},
		{"[abc", "a", false}, // unterminated class
		{`\*x`, "*x", true},
		{`\*x`, "ax", false},
		{"**/foo", "foo", true},
		{"**/foo", "a/b/foo", true},
		{"foo/**", "foo/a/b", true},
		{"foo/**", "foo", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a**b", "axxb", true},
		{"a**b", "ax/xb", false}, // ** not between slashes is a plain *
		{"**", "any/thing", true},
		{"x**/y", "xa/y", true},
		{"x**/y", "xa/b/y", false}, // "**" not starting a segment is a plain *
		{"doc/*.txt", "doc/a.txt", true},
		{"doc/*.txt", "doc/x/a.txt", false},
		{"", "", true},
		{"abc", "ab", false},
	}
	for _, tt := range tests {
		t.Run(tt.pat+"~"+tt.s, func(t *testing.T) {
			if got := wildmatch(tt.pat, tt.s); got != tt.want {
				t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pat, tt.s, got, tt.want)
			}
		})
	}
}

func TestParseIgnore(t *testing.T) {
	tests := map[string]struct {
		in   string
		want []ignoreRule
	}{
		"comment and blank": {in: "# c\n\n", want: nil},
		"escaped hash":      {in: `\#x`, want: []ignoreRule{{pattern: `\#x`, basename: true}}},
		"negation":          {in: "!keep.log", want: []ignoreRule{{pattern: "keep.log", negate: true, basename: true}}},
		"escaped bang":      {in: `\!x`, want: []ignoreRule{{pattern: `\!x`, basename: true}}},
		"dir only":          {in: "build/", want: []ignoreRule{{pattern: "build", dirOnly: true, basename: true}}},
		"anchored":          {in: "/top", want: []ignoreRule{{pattern: "top"}}},
		"inner slash":       {in: "a/b", want: []ignoreRule{{pattern: "a/b"}}},
		"trailing spaces":   {in: "x  \ny\\ ", want: []ignoreRule{{pattern: "x", basename: true}, {pattern: `y\ `, basename: true}}},
		"crlf and bom":      {in: "\xef\xbb\xbfa\r\nb\r\n", want: []ignoreRule{{pattern: "a", basename: true}, {pattern: "b", basename: true}}},
		"lone slash":        {in: "/\n!\n", want: nil},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := parseIgnore([]byte(tt.in), "")
			if !slices.Equal(got, tt.want) {
				t.Errorf("parseIgnore(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

// isolateGit points git at an empty global config (plus extra lines) and
// no system config, so the user's own settings cannot leak into a test.
func isolateGit(t *testing.T, globalConfig string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	cfg := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(cfg, []byte(globalConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// mkTree creates files (slash paths; a trailing slash makes an empty
// directory) under root.
func mkTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitVisible is the ground truth: git's own list of visible files.
func gitVisible(t *testing.T, dir string) []string {
	t.Helper()
	out := gitT(t, dir, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	files := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	if len(files) == 1 && files[0] == "" {
		return nil
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// ignoreTree exercises the rules git's docs describe; it is shared by the
// git and the walker parity tests.
var ignoreTree = map[string]string{
	".gitignore":               "*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/*.tmp\n*.o\n!important.o\nnested/deep/\n\\#hash\nspace\\ \nlogs/*\n!logs/keep/\n",
	"a.log":                    "",
	"keep.log":                 "",
	"sub/keep.log":             "",
	"sub/b.log":                "",
	"top.txt":                  "",
	"sub/top.txt":              "",
	"build/out":                "",
	"sub/build/out":            "",
	"build.txt":                "",
	"docs/a.tmp":               "",
	"docs/x/y/b.tmp":           "",
	"docs/keep.md":             "",
	"x.o":                      "",
	"important.o":              "",
	"nested/deep/f":            "",
	"nested/shallow/f":         "",
	"#hash":                    "",
	"space ":                   "",
	"logs/a":                   "",
	"logs/keep/b":              "",
	"logs/other/c":             "",
	"src/.gitignore":           "*.gen.go\n!/only_here.gen.go\n/local\n",
	"src/a.go":                 "",
	"src/a.gen.go":             "",
	"src/only_here.gen.go":     "",
	"src/pkg/only_here.gen.go": "",
	"src/local/x":              "",
	"src/pkg/local/x":          "",
	"src/pkg/.gitignore":       "!a.gen.go\n",
	"src/pkg/a.gen.go":         "",
	"src/pkg/b.gen.go":         "",
	"excluded/in_parent/f":     "",
	"empty_dir/":               "",
	"weird [name].txt":         "",
	".hidden":                  "",
}

func TestVisibleFilesMatchGit(t *testing.T) {
	isolateGit(t, "")
	root := t.TempDir()
	gitT(t, root, "init", "-q")
	mkTree(t, root, ignoreTree)
	// git-only sources of rules: the repository's exclude file and a global
	// excludes file named by core.excludesFile in the repository config.
	mkTree(t, root, map[string]string{
		"from_info.txt": "", "sub/from_info.txt": "",
		"from_global.bak": "", "sub/x.bak": "",
		"tracked_then_ignored.txt": "", "deleted_tracked.txt": "",
	})
	if err := os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte("from_info.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(t.TempDir(), "global_ignore")
	if err := os.WriteFile(global, []byte("*.bak\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, root, "config", "core.excludesFile", global)
	gitT(t, root, "add", "tracked_then_ignored.txt", "deleted_tracked.txt")
	gitT(t, root, "commit", "-qm", "init")
	f, err := os.OpenFile(filepath.Join(root, ".gitignore"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "tracked_then_ignored.txt")
	f.Close()

	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	want := gitVisible(t, root)
	for _, must := range []string{"tracked_then_ignored.txt", "keep.log", "src/pkg/a.gen.go", "logs/keep/b"} {
		if !slices.Contains(want, must) {
			t.Fatalf("test setup: git does not list %s: %v", must, want)
		}
	}
	// A tracked file deleted from disk stays in git's list, not in ours.
	if err := os.Remove(filepath.Join(root, "deleted_tracked.txt")); err != nil {
		t.Fatal(err)
	}
	want = slices.DeleteFunc(want, func(s string) bool { return s == "deleted_tracked.txt" })
	got, err := ws.Files(context.Background(), ".")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Files differ from git ls-files:\n%s", setDiff(got, want))
	}

	t.Run("subdirectory", func(t *testing.T) {
		got, err := ws.Files(context.Background(), "src")
		if err != nil {
			t.Fatal(err)
		}
		var wantSub []string
		for _, f := range want {
			if strings.HasPrefix(f, "src/") {
				wantSub = append(wantSub, f)
			}
		}
		if !slices.Equal(got, wantSub) {
			t.Errorf("Files(src) differ:\n%s", setDiff(got, wantSub))
		}
	})
	t.Run("workspace below the repository root", func(t *testing.T) {
		sub, err := NewWorkspace(filepath.Join(root, "src"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := sub.Files(context.Background(), ".")
		if err != nil {
			t.Fatal(err)
		}
		wantSub := gitVisible(t, filepath.Join(root, "src"))
		if !slices.Equal(got, wantSub) {
			t.Errorf("Files differ:\n%s", setDiff(got, wantSub))
		}
	})
}

// TestWalkerMatchesGit checks our own .gitignore matcher, used outside git
// repositories, against git on the same tree with nothing tracked and no
// exclude file or global rules.
func TestWalkerMatchesGit(t *testing.T) {
	isolateGit(t, "")
	root := t.TempDir()
	gitT(t, root, "init", "-q")
	mkTree(t, root, ignoreTree)
	want := gitVisible(t, root)
	got, err := walkVisible(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("walker differs from git ls-files:\n%s", setDiff(got, want))
	}
}

// TestWalkerMatchesGitRandom builds random trees and .gitignore files from
// a small alphabet of names and patterns and compares the walker with git.
func TestWalkerMatchesGitRandom(t *testing.T) {
	isolateGit(t, "")
	names := []string{"a", "b", "a.log", "b.txt", "keep.log", "x.o", "build", "doc"}
	pats := []string{"*.log", "!keep.log", "build/", "/a", "a/", "doc/**", "**/b", "!b.txt", "*.o", "!/doc/a", "a/*.txt", "[ab]", "?.o", "**/build/**", "!*/", "*", "!a"}
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			root := t.TempDir()
			gitT(t, root, "init", "-q")
			tree := map[string]string{}
			var dirs = []string{""}
			for range 30 {
				d := dirs[rng.IntN(len(dirs))]
				p := path0(d, names[rng.IntN(len(names))])
				if rng.IntN(3) == 0 {
					dirs = append(dirs, p)
					continue
				}
				if !hasPrefixDir(tree, p) {
					tree[p] = ""
				}
			}
			for _, d := range dirs {
				if rng.IntN(2) == 0 {
					var lines []string
					for range 1 + rng.IntN(4) {
						lines = append(lines, pats[rng.IntN(len(pats))])
					}
					tree[path0(d, ".gitignore")] = strings.Join(lines, "\n") + "\n"
				}
			}
			// Drop files whose path runs through another file.
			for p := range tree {
				for q := range tree {
					if strings.HasPrefix(p, q+"/") {
						delete(tree, p)
					}
				}
			}
			mkTree(t, root, tree)
			want := gitVisible(t, root)
			got, err := walkVisible(context.Background(), root, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				var ignores []string
				for p, c := range tree {
					if strings.HasSuffix(p, ".gitignore") {
						ignores = append(ignores, p+": "+strings.ReplaceAll(c, "\n", " | "))
					}
				}
				slices.Sort(ignores)
				t.Errorf("walker differs from git:\n%s\nignore files:\n%s", setDiff(got, want), strings.Join(ignores, "\n"))
			}
		})
	}
}

func path0(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func hasPrefixDir(tree map[string]string, p string) bool {
	for q := range tree {
		if strings.HasPrefix(q, p+"/") {
			return true
		}
	}
	return false
}

// setDiff describes how got and want differ.
func setDiff(got, want []string) string {
	var b strings.Builder
	for _, g := range got {
		if !slices.Contains(want, g) {
			fmt.Fprintf(&b, "  extra:   %q\n", g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			fmt.Fprintf(&b, "  missing: %q\n", w)
		}
	}
	return b.String()
}

// walkOrderTree has names that sort differently as bare names and as
// paths: "a.go" < "a/x" < "a0" because '.' < '/' < '0', but "a" < "a.go".
var walkOrderTree = map[string]string{
	"a!": "hit\n", "a b/x": "hit\n", "a-b": "hit\n", "a.go": "hit\n", "a/x": "hit\n", "a/y/z": "hit\n",
	"a/y.txt": "hit\n", "a0": "hit\n", "ab/x": "hit\n", "b": "hit\n", "b.d/c": "hit\n", "b.d.txt": "hit\n",
}

// TestWalkOrderIsSorted checks that the walk hands over its files in the
// sorted order of their paths, which grep's output order relies on.
func TestWalkOrderIsSorted(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, walkOrderTree)
	got, err := walkVisible(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(got) || len(got) != len(walkOrderTree) {
		t.Errorf("walk order %q, want the %d paths sorted", got, len(walkOrderTree))
	}
}

// TestEachVisibleCachesItsWalk: a walk of the whole root that hands its
// files over as it goes (no git, nothing cached yet) is cached as
// VisibleUnder's walk would be, and hands them over in VisibleUnder's order.
func TestEachVisibleCachesItsWalk(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, walkOrderTree)
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if _, err := ws.EachVisible(context.Background(), ws.Root, func(_ *Visible, rel string) bool {
		got = append(got, rel)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if ws.cache == nil || len(ws.cache.files) != len(walkOrderTree) {
		t.Fatal("a complete walk of the root was not cached")
	}
	v, err := ws.VisibleUnder(context.Background(), ws.Root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Rels(), got) {
		t.Errorf("EachVisible handed over %q, VisibleUnder lists %q", got, v.Rels())
	}
}
