package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/workspace"
)

func TestGlob(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		".gitignore":       "vendor/\n*.gen.go\n",
		"main.go":          "",
		"main_test.go":     "",
		"x.gen.go":         "",
		"tools/env.go":     "",
		"tools/sub/a.go":   "",
		"tools/notes.md":   "",
		"vendor/v/v.go":    "",
		"web/app.ts":       "",
		"web/app.json":     "",
		"web/[weird].yaml": "",
	})
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args    map[string]any
		want    string
		summary string
		isErr   bool
	}{
		"all go files":          {args: map[string]any{"pattern": "**/*.go"}, want: "main.go\nmain_test.go\ntools/env.go\ntools/sub/a.go", summary: "4 files"},
		"top level only":        {args: map[string]any{"pattern": "*.go"}, want: "main.go\nmain_test.go"},
		"relative to path":      {args: map[string]any{"pattern": "*.go", "path": "tools"}, want: "tools/env.go"},
		"root-relative in path": {args: map[string]any{"pattern": "tools/**/*.go", "path": "tools"}, want: "tools/env.go\ntools/sub/a.go"},
		"braces":                {args: map[string]any{"pattern": "web/*.{ts,json}"}, want: "web/app.json\nweb/app.ts"},
		"dot slash prefix":      {args: map[string]any{"pattern": "./tools/*.md"}, want: "tools/notes.md"},
		"escaped bracket":       {args: map[string]any{"pattern": `web/\[weird\].yaml`}, want: "web/[weird].yaml"},
		"ignored not listed":    {args: map[string]any{"pattern": "vendor/**"}, want: "No files match \"vendor/**\" under .."},
		"ignored dir named":     {args: map[string]any{"pattern": "**/*.go", "path": "vendor"}, want: "vendor/v/v.go"},
		"no match":              {args: map[string]any{"pattern": "*.rs"}, want: "No files match \"*.rs\" under ..", summary: "0 files"},
		"invalid pattern":       {args: map[string]any{"pattern": "[a"}, want: "Error: invalid glob pattern \"[a\" (check brackets and braces)", isErr: true},
		"empty pattern":         {args: map[string]any{}, want: "Error: pattern is required, e.g. \"**/*.go\"", isErr: true},
		"path is a file":        {args: map[string]any{"pattern": "*", "path": "main.go"}, want: "Error: path main.go is a file; glob searches a directory (omit path to search the workspace)", isErr: true},
		"missing path":          {args: map[string]any{"pattern": "*", "path": "nope"}, want: "Error: directory not found: nope", isErr: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, NewGlob(&Env{WS: ws}), tt.args)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			if res.Content != tt.want {
				t.Errorf("content:\n%s\nwant:\n%s", res.Content, tt.want)
			}
			if tt.summary != "" && res.Summary != tt.summary {
				t.Errorf("summary = %q, want %q", res.Summary, tt.summary)
			}
		})
	}
}

func TestGlobCapAndOutside(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("f%02d.txt", i)] = ""
	}
	mkTree(t, root, files)
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("cap", func(t *testing.T) {
		res := callTool(t, &globTool{env: &Env{WS: ws}, max: 10}, map[string]any{"pattern": "*.txt"})
		lines := strings.Split(res.Content, "\n")
		if len(lines) != 11 || lines[10] != "… 2 more files not shown (12 in all); use a narrower pattern or path." {
			t.Errorf("content:\n%s", res.Content)
		}
		if res.Summary != "12 files" {
			t.Errorf("summary = %q", res.Summary)
		}
	})
	t.Run("outside the workspace gives absolute paths", func(t *testing.T) {
		other := t.TempDir()
		mkTree(t, other, map[string]string{"o.txt": ""})
		res := callTool(t, NewGlob(&Env{WS: ws}), map[string]any{"pattern": "*.txt", "path": other})
		if want := filepath.ToSlash(filepath.Join(other, "o.txt")); res.Content != want {
			t.Errorf("content = %q, want %q", res.Content, want)
		}
	})
	t.Run("deleted file is not reported", func(t *testing.T) {
		if res := callTool(t, NewGlob(&Env{WS: ws}), map[string]any{"pattern": "f00.txt"}); res.Content != "f00.txt" {
			t.Fatalf("before delete: %q", res.Content)
		}
		if err := os.Remove(filepath.Join(root, "f00.txt")); err != nil {
			t.Fatal(err)
		}
		// The listing is cached; a stale entry must still not be reported.
		if res := callTool(t, NewGlob(&Env{WS: ws}), map[string]any{"pattern": "f00.txt"}); !strings.HasPrefix(res.Content, "No files match") {
			t.Errorf("after delete: %q", res.Content)
		}
	})
}
