package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// grepTree is a small non-git workspace for the grep tool's tests.
var grepTree = map[string]string{
	".gitignore":       "ignored/\n*.gen\n",
	"a.go":             "package a\n\nfunc Alpha() {}\n\nfunc Beta() {}\n",
	"b.txt":            "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
	"sub/c.go":         "package sub\n// func in a comment\nfunc Gamma() {}\n",
	"sub/d_test.go":    "package sub\nfunc TestDelta() {}\n",
	"ignored/x.go":     "func Ignored() {}\n",
	"skip.gen":         "func Generated() {}\n",
	"bin.dat":          "func Binary()\x00\x01\n",
	"crlf.txt":         "FUNC upper\r\nfunc lower\r\n",
	"deep/er/nest.txt": "func nested\n",
}

func newGrepEnv(t *testing.T) (*Env, string) {
	t.Helper()
	root := t.TempDir()
	mkTree(t, root, grepTree)
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return &Env{WS: ws}, root
}

func callTool(t *testing.T, tool tool.Tool, args map[string]any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Run(context.Background(), raw)
}

func TestGrepTool(t *testing.T) {
	env, _ := newGrepEnv(t)
	tests := map[string]struct {
		args    map[string]any
		want    string // exact content, unless wantSub is set
		wantSub []string
		summary string
		isErr   bool
	}{
		"content default": {
			args:    map[string]any{"pattern": `^func \w+\(`},
			want:    "a.go:3:func Alpha() {}\na.go:5:func Beta() {}\nsub/c.go:3:func Gamma() {}\nsub/d_test.go:2:func TestDelta() {}",
			summary: "4 matches in 3 files",
		},
		"files_with_matches": {
			args:    map[string]any{"pattern": "func", "output_mode": "files_with_matches"},
			want:    "a.go\ncrlf.txt\ndeep/er/nest.txt\nsub/c.go\nsub/d_test.go",
			summary: "5 files",
		},
		"count": {
			args:    map[string]any{"pattern": "func", "output_mode": "count", "path": "sub"},
			want:    "sub/c.go:2\nsub/d_test.go:1",
			summary: "3 matches in 2 files",
		},
		"ignore case": {
			args: map[string]any{"pattern": "FUNC (upper|lower)", "ignore_case": true},
			want: "crlf.txt:1:FUNC upper\ncrlf.txt:2:func lower",
		},
		"ignore case as string": {
			args: map[string]any{"pattern": "func upper", "ignore_case": "true"},
			want: "crlf.txt:1:FUNC upper",
		},
		"glob on base name": {
			args: map[string]any{"pattern": "func", toolname.Glob: "*_test.go"},
			want: "sub/d_test.go:2:func TestDelta() {}",
		},
		"negated glob": {
			args: map[string]any{"pattern": "func", toolname.Glob: "!*.go", "output_mode": "files_with_matches"},
			want: "crlf.txt\ndeep/er/nest.txt",
		},
		"glob with slash": {
			args: map[string]any{"pattern": "func", toolname.Glob: "deep/**", "output_mode": "files_with_matches"},
			want: "deep/er/nest.txt",
		},
		"glob relative to path": {
			args: map[string]any{"pattern": "func", "path": "deep", toolname.Glob: "er/*.txt", "output_mode": "files_with_matches"},
			want: "deep/er/nest.txt",
		},
		"context merges groups": {
			args: map[string]any{"pattern": "^(three|five|ten)$", "path": "b.txt", "context": 1},
			want: "b.txt-2-two\nb.txt:3:three\nb.txt-4-four\nb.txt:5:five\nb.txt-6-six\n--\nb.txt-9-nine\nb.txt:10:ten",
		},
		"context at file start": {
			args: map[string]any{"pattern": "^one$", "path": "b.txt", "context": 2},
			want: "b.txt:1:one\nb.txt-2-two\nb.txt-3-three",
		},
		"context between files": {
			args: map[string]any{"pattern": "Gamma|Delta", "path": "sub", "context": 1},
			want: "sub/c.go-2-// func in a comment\nsub/c.go:3:func Gamma() {}\n--\nsub/d_test.go-1-package sub\nsub/d_test.go:2:func TestDelta() {}",
		},
		"explicit ignored file is searched": {
			args: map[string]any{"pattern": "Ignored", "path": "ignored/x.go"},
			want: "ignored/x.go:1:func Ignored() {}",
		},
		"explicit ignored directory is searched": {
			args: map[string]any{"pattern": "Ignored", "path": "ignored"},
			want: "ignored/x.go:1:func Ignored() {}",
		},
		"ignored files are not searched": {
			args:    map[string]any{"pattern": "Ignored|Generated"},
			want:    "No matches for `Ignored|Generated`.\n(Skipped 1 binary file.)",
			summary: "no matches",
		},
		"no match shows the pattern as written": {
			args:    map[string]any{"pattern": `func nowhere\(`, "path": "b.txt"},
			want:    "No matches for `func nowhere\\(`.",
			summary: "no matches",
		},
		"text anchors fall back to lines": {
			args: map[string]any{"pattern": `\Afunc \w+\(\) \{\}\z`, "path": "sub"},
			want: "sub/c.go:3:func Gamma() {}\nsub/d_test.go:2:func TestDelta() {}",
		},
		"invalid regex": {
			args:    map[string]any{"pattern": "func("},
			wantSub: []string{"invalid regular expression", "missing closing )"},
			isErr:   true,
		},
		"bad mode": {
			args:    map[string]any{"pattern": "x", "output_mode": "lines"},
			wantSub: []string{"unknown output_mode"},
			isErr:   true,
		},
		"missing path": {
			args:    map[string]any{"pattern": "x", "path": "nope"},
			wantSub: []string{"path not found: nope"},
			isErr:   true,
		},
		"bad glob": {
			args:    map[string]any{"pattern": "x", toolname.Glob: "[a"},
			wantSub: []string{"invalid glob"},
			isErr:   true,
		},
		"no pattern": {
			args:    map[string]any{},
			wantSub: []string{"pattern is required"},
			isErr:   true,
		},
		"negative context": {
			args:    map[string]any{"pattern": "x", "context": -1},
			wantSub: []string{"context must be 0 or more"},
			isErr:   true,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, NewGrep(env), tt.args)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v, want %v; content:\n%s", res.IsError, tt.isErr, res.Content)
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
}

func TestGrepCaps(t *testing.T) {
	root := t.TempDir()
	var files = map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("hit here\n", 10)
	}
	files["long.txt"] = strings.Repeat("x", 5000) + " hit\n"
	mkTree(t, root, files)
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{WS: ws}
	tests := map[string]struct {
		tool    *grepTool
		args    map[string]any
		lines   int // lines before the note
		note    string
		summary string
	}{
		"match cap": {
			tool:    &grepTool{env: env, maxMatches: 25, maxBytes: 1 << 20, maxFiles: 100},
			args:    map[string]any{"pattern": "hit here"},
			lines:   25,
			note:    "(Output cut at 25 matching lines;",
			summary: "+ matches in ",
		},
		"byte cap": {
			tool:  &grepTool{env: env, maxMatches: 1000, maxBytes: 300, maxFiles: 100},
			args:  map[string]any{"pattern": "hit here"},
			lines: 15, // 19 bytes per line
			note:  "(Output cut at 300 B after 15 matching lines;",
		},
		"file cap": {
			tool:    &grepTool{env: env, maxMatches: 1000, maxBytes: 1 << 20, maxFiles: 7},
			args:    map[string]any{"pattern": "hit", "output_mode": "files_with_matches"},
			lines:   7,
			note:    "(Output cut at 7 files;",
			summary: "files",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, tt.tool, tt.args)
			if res.IsError {
				t.Fatal(res.Content)
			}
			body, note, ok := strings.Cut(res.Content, "\n(")
			if !ok || !strings.HasPrefix("("+note, tt.note) {
				t.Fatalf("note = %q, want prefix %q", note, tt.note)
			}
			if n := strings.Count(body, "\n") + 1; n != tt.lines {
				t.Errorf("%d lines before the note, want %d", n, tt.lines)
			}
			if !strings.Contains(res.Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", res.Summary, tt.summary)
			}
		})
	}
	t.Run("long line cut", func(t *testing.T) {
		res := callTool(t, NewGrep(env), map[string]any{"pattern": "x hit", "path": "long.txt"})
		if !strings.Contains(res.Content, "… [line cut, 5004 bytes in all]") || len(res.Content) > 600 {
			t.Errorf("long line not cut: %d bytes: %.80q", len(res.Content), res.Content)
		}
	})
}

func TestGrepCancelled(t *testing.T) {
	env, _ := newGrepEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := NewGrep(env).Run(ctx, json.RawMessage(`{"pattern":"func"}`))
	if !res.IsError || !strings.Contains(res.Content, "context canceled") {
		t.Errorf("got %+v, want a cancellation error", res)
	}
}

func TestGrepOutsideWorkspace(t *testing.T) {
	env, _ := newGrepEnv(t)
	other := t.TempDir()
	mkTree(t, other, map[string]string{"o.txt": "needle\n", ".gitignore": "hidden.txt\n", "hidden.txt": "needle\n"})
	res := callTool(t, NewGrep(env), map[string]any{"pattern": "needle", "path": other})
	want := filepath.ToSlash(filepath.Join(other, "o.txt")) + ":1:needle"
	if res.Content != want {
		t.Errorf("content = %q, want %q", res.Content, want)
	}
}

func TestReadWholeGrowsBuffer(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("0123456789", 10000)
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	buf, skip := readWhole(p, make([]byte, 0, 10))
	if skip != notSkipped || string(buf) != big {
		t.Fatalf("readWhole: skip=%v len=%d", skip, len(buf))
	}
	if _, skip := readWhole(dir, nil); skip != skippedUnreadable {
		t.Errorf("directory: skip=%v, want unreadable", skip)
	}
}

// walkOrderTree has names that sort differently as bare names and as
// paths: "a.go" < "a/x" < "a0" because '.' < '/' < '0', but "a" < "a.go".
var walkOrderTree = map[string]string{
	"a!": "hit\n", "a b/x": "hit\n", "a-b": "hit\n", "a.go": "hit\n", "a/x": "hit\n", "a/y/z": "hit\n",
	"a/y.txt": "hit\n", "a0": "hit\n", "ab/x": "hit\n", "b": "hit\n", "b.d/c": "hit\n", "b.d.txt": "hit\n",
}

// TestGrepStreamedMatchesListed checks that a grep searching as the walk
// goes (no listing cached) gives what a grep over the cached listing gives,
// in every mode and at the caps. (That the walk is cached for the next
// search is workspace's TestEachVisibleCachesItsWalk.)
func TestGrepStreamedMatchesListed(t *testing.T) {
	files := maps.Clone(walkOrderTree)
	for i := range 40 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = strings.Repeat("hit here\n", i%4+1)
	}
	root := t.TempDir()
	mkTree(t, root, files)
	for _, args := range []map[string]any{
		{"pattern": "hit"},
		{"pattern": "hit", "output_mode": "count"},
		{"pattern": "hit", "output_mode": "files_with_matches"},
		{"pattern": "hit", "glob": "*.txt", "context": 1},
	} {
		for _, caps := range [][2]int{{1000, 1000}, {7, 5}} { // maxMatches, maxFiles
			ws, err := workspace.NewWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			tool := &grepTool{env: &Env{WS: ws}, maxMatches: caps[0], maxBytes: 1 << 20, maxFiles: caps[1]}
			streamed := callTool(t, tool, args)
			ws.Invalidate()
			if _, err := ws.Files(context.Background(), "."); err != nil { // caches the listing
				t.Fatal(err)
			}
			listed := callTool(t, tool, args)
			if streamed.Content != listed.Content || streamed.IsError {
				t.Errorf("%v, caps %v: streamed\n%s\nlisted\n%s", args, caps, streamed.Content, listed.Content)
			}
		}
	}
}
