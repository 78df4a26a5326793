package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/workspace"
)

// listTree has ignored entries, an empty directory, a directory holding
// only ignored files and a symlink, for list_dir in and out of git.
var listTree = map[string]string{
	".gitignore":          "*.log\nnode_modules/\nonly_ignored/*.tmp\n",
	"a.txt":               "12345",
	"b.log":               "ignored",
	"src/main.go":         "package main\n",
	"node_modules/x/y.js": "",
	"empty/":              "",
	"empty_tree/a/b/":     "",
	"only_ignored/z.tmp":  "",
	"zeta.md":             "",
}

func TestListDir(t *testing.T) {
	for _, inGit := range []bool{false, true} {
		name := "walker"
		if inGit {
			name = "git"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if inGit {
				isolateGit(t, "")
				gitT(t, root, "init", "-q")
			}
			mkTree(t, root, listTree)
			if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
				t.Fatal(err)
			}
			ws, err := workspace.NewWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			tests := map[string]struct {
				args    map[string]any
				want    string
				wantSub []string
				isErr   bool
				summary string
			}{
				"root": {
					args:    map[string]any{},
					want:    ".: 3 directories, 4 files\nempty/\nempty_tree/\nsrc/\n.gitignore (39 B)\na.txt (5 B)\nlink -> a.txt (symlink)\nzeta.md (0 B)",
					summary: "7 entries",
				},
				"subdirectory":      {args: map[string]any{"path": "src"}, want: "src: 0 directories, 1 file\nmain.go (13 B)"},
				"ignored directory": {args: map[string]any{"path": "node_modules"}, want: "node_modules: 1 directory, 0 files\n(This directory is ignored by .gitignore; showing all of its entries.)\nx/"},
				"file":              {args: map[string]any{"path": "a.txt"}, wantSub: []string{"a.txt is a file", "use read_file"}, isErr: true},
				"missing":           {args: map[string]any{"path": "srcc"}, wantSub: []string{"directory not found: srcc", "Did you mean: src"}, isErr: true},
			}
			for name, tt := range tests {
				t.Run(name, func(t *testing.T) {
					res := callTool(t, NewListDir(&Env{WS: ws}), tt.args)
					if res.IsError != tt.isErr {
						t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
					}
					if tt.wantSub == nil && res.Content != tt.want {
						t.Errorf("content:\n%s\nwant:\n%s", res.Content, tt.want)
					}
					for _, sub := range tt.wantSub {
						if !strings.Contains(res.Content, sub) {
							t.Errorf("content %q lacks %q", res.Content, sub)
						}
					}
					if tt.summary != "" && res.Summary != tt.summary {
						t.Errorf("summary = %q, want %q", res.Summary, tt.summary)
					}
				})
			}
		})
	}
}

func TestListDirCap(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n] = ""
	}
	mkTree(t, root, files)
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	res := callTool(t, &listDir{env: &Env{WS: ws}, max: 3}, map[string]any{})
	want := ".: 0 directories, 5 files\na (0 B)\nb (0 B)\nc (0 B)\n… 2 more entries not shown; use glob with a pattern to narrow down."
	if res.Content != want {
		t.Errorf("content:\n%s\nwant:\n%s", res.Content, want)
	}
}
