package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/workspace"
)

func TestReadFile(t *testing.T) {
	root := t.TempDir()
	var many strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	mkTree(t, root, map[string]string{
		"small.txt":      "alpha\nbeta\ngamma",
		"crlf.txt":       "one\r\ntwo\r\n",
		"empty.txt":      "",
		"many.txt":       many.String(),
		"long.txt":       strings.Repeat("é", 1500) + "\n", // 3000 bytes
		"bin.dat":        "ELF\x00\x01\x02",
		"latin1.txt":     strings.Repeat("caf\xe9 ", 200),
		"dir/inner.txt":  "x\n",
		"config.yaml":    "a: 1\n",
		"README.md":      "hi\n",
		"wide/huge.txt":  strings.Repeat(strings.Repeat("w", 1999)+"\n", 200),                                                      // 400 KB
		"utf8_cut.txt":   strings.Repeat(strings.Repeat("a", 99)+"\n", 81) + strings.Repeat("a", binarySniffLen-8101) + "é tail\n", // é straddles the sniff
		"mostly_ok.txt":  "text with one bad byte \xff here\n",
		"configs/x.json": "{}",
	})
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args    map[string]any
		want    string
		wantSub []string
		summary string
		isErr   bool
	}{
		"whole small file":       {args: map[string]any{"path": "small.txt"}, want: "     1\talpha\n     2\tbeta\n     3\tgamma\n", summary: "3 lines"},
		"offset and limit":       {args: map[string]any{"path": "small.txt", "offset": 2, "limit": 1}, want: "     2\tbeta\n\n(Showing lines 2-2 of 3. To read further, call read_file with offset=3.)", summary: "lines 2-2 of 3"},
		"offset as string":       {args: map[string]any{"path": "small.txt", "offset": "3"}, want: "     3\tgamma\n", summary: "lines 3-3 of 3"},
		"offset zero is start":   {args: map[string]any{"path": "small.txt", "offset": 0, "limit": 1}, wantSub: []string{"     1\talpha\n"}},
		"absolute path":          {args: map[string]any{"path": filepath.Join(root, "dir", "inner.txt")}, want: "     1\tx\n", summary: "1 line"},
		"crlf stripped":          {args: map[string]any{"path": "crlf.txt"}, want: "     1\tone\n     2\ttwo\n"},
		"empty":                  {args: map[string]any{"path": "empty.txt"}, want: "(the file is empty)", summary: "empty file"},
		"default limit":          {args: map[string]any{"path": "many.txt"}, wantSub: []string{"  2000\tline 2000\n\n(Showing lines 1-2000 of 2500. To read further, call read_file with offset=2001.)"}, summary: "lines 1-2000 of 2500"},
		"long line cut":          {args: map[string]any{"path": "long.txt"}, wantSub: []string{"… [line cut, 3000 bytes in all]"}},
		"size cap":               {args: map[string]any{"path": "wide/huge.txt"}, wantSub: []string{"(Output cut at 256.0 KB after line 130 of 200. To read further, call read_file with offset=131 and a limit.)"}},
		"rune at sniff boundary": {args: map[string]any{"path": "utf8_cut.txt"}, wantSub: []string{"é tail"}},
		"one bad byte is text":   {args: map[string]any{"path": "mostly_ok.txt"}, wantSub: []string{"one bad byte \uFFFD here"}},
		"past the end":           {args: map[string]any{"path": "small.txt", "offset": 9}, wantSub: []string{"offset 9 is past the end of the file, which has 3 lines"}, isErr: true},
		"negative offset":        {args: map[string]any{"path": "small.txt", "offset": -2}, wantSub: []string{"offset must be a 1-based line number"}, isErr: true},
		"zero limit":             {args: map[string]any{"path": "small.txt", "limit": 0}, wantSub: []string{"limit must be at least 1"}, isErr: true},
		"bad offset type":        {args: map[string]any{"path": "small.txt", "offset": "two"}, wantSub: []string{"invalid arguments"}, isErr: true},
		"binary":                 {args: map[string]any{"path": "bin.dat"}, wantSub: []string{"binary file"}, isErr: true},
		"invalid utf-8 heavy":    {args: map[string]any{"path": "latin1.txt"}, wantSub: []string{"binary file"}, isErr: true},
		"directory":              {args: map[string]any{"path": "dir"}, wantSub: []string{"dir is a directory", "use list_dir"}, isErr: true},
		"missing with hint":      {args: map[string]any{"path": "config.yml"}, wantSub: []string{"file not found: config.yml", "Did you mean: config.yaml"}, isErr: true},
		"missing case hint":      {args: map[string]any{"path": "readme.md"}, wantSub: []string{"Did you mean: README.md"}, isErr: true},
		"missing dir":            {args: map[string]any{"path": "nodir/x.txt"}, wantSub: []string{"file not found", "its directory does not exist either"}, isErr: true},
		"no path":                {args: map[string]any{}, wantSub: []string{"path is required"}, isErr: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, NewReadFile(&Env{WS: ws}), tt.args)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v, want %v: %.300s", res.IsError, tt.isErr, res.Content)
			}
			if tt.wantSub == nil && res.Content != tt.want {
				t.Errorf("content:\n%q\nwant:\n%q", res.Content, tt.want)
			}
			for _, sub := range tt.wantSub {
				if !strings.Contains(res.Content, sub) {
					t.Errorf("content lacks %q:\n%.400s", sub, res.Content)
				}
			}
			if tt.summary != "" && res.Summary != tt.summary {
				t.Errorf("summary = %q, want %q", res.Summary, tt.summary)
			}
			if len(res.Content) > readMaxOutput+1024 {
				t.Errorf("output %d bytes exceeds the cap", len(res.Content))
			}
		})
	}
}

// TestReadFileRecordsRead checks that a successful read is recorded for the
// stale-edit check, and a refused one is not.
func TestReadFileRecordsRead(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{"f.txt": "content\n", "b.bin": "\x00"})
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	reads := workspace.NewReadTracker()
	tool := NewReadFile(&Env{WS: ws, Reads: reads})
	abs := filepath.Join(root, "f.txt")
	if err := reads.Check(abs, []byte("content\n")); err == nil {
		t.Fatal("Check passed before any read: the test cannot tell a recorded read")
	}
	if res := callTool(t, tool, map[string]any{"path": "f.txt", "limit": 1}); res.IsError {
		t.Fatal(res.Content)
	}
	if err := reads.Check(abs, []byte("content\n")); err != nil {
		t.Errorf("after read_file, Check = %v; want the read recorded", err)
	}
	callTool(t, tool, map[string]any{"path": "b.bin"})
	if err := reads.Check(filepath.Join(root, "b.bin"), []byte("\x00")); err == nil {
		t.Error("a refused binary read was recorded")
	}
}

func TestEditDistanceAtMost(t *testing.T) {
	tests := []struct {
		a, b string
		k    int
		want bool
	}{
		{"config.yml", "config.yaml", 1, true},
		{"main.go", "mian.go", 2, true},
		{"main.go", "mian.go", 1, false},
		{"a", "abcd", 2, false},
		{"", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := editDistanceAtMost(tt.a, tt.b, tt.k); got != tt.want {
				t.Errorf("editDistanceAtMost(%q, %q, %d) = %v", tt.a, tt.b, tt.k, got)
			}
		})
	}
}
