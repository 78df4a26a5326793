package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"

	"covey/permission"
)

func TestEditFile(t *testing.T) {
	src := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		initial *string // nil: the file does not exist
		args    map[string]any
		wantErr []string // substrings of the error
		want    string
	}{
		{
			name: "single", initial: &src,
			args: map[string]any{"old_string": "func a() {\n\treturn 1", "new_string": "func a() {\n\treturn 2"},
			want: strings.Replace(src, "return 1", "return 2", 1),
		},
		{
			name: "replace all", initial: &src,
			args: map[string]any{"old_string": "return 1", "new_string": "return 0", "replace_all": true},
			want: strings.ReplaceAll(src, "return 1", "return 0"),
		},
		{
			name: "several matches", initial: &src,
			args:    map[string]any{"old_string": "return 1", "new_string": "return 0"},
			wantErr: []string{"matches 2 times", "lines 2, 6", "replace_all"},
		},
		{
			name: "overlapping matches are ambiguous", initial: ptr("aaa\n"),
			args:    map[string]any{"old_string": "aa", "new_string": "b"},
			wantErr: []string{"matches 2 times", "lines 1, 1"},
		},
		{
			name: "not found, indentation differs", initial: &src,
			args:    map[string]any{"old_string": "func b() {\n    return 1\n}", "new_string": "x"},
			wantErr: []string{"not found", "whitespace or indentation", "line 5"},
		},
		{
			name: "not found, closest line", initial: &src,
			args:    map[string]any{"old_string": "func bb() {", "new_string": "x"},
			wantErr: []string{"not found", "closest line is line 5"},
		},
		{
			name: "not found, line numbers copied", initial: &src,
			args:    map[string]any{"old_string": "     5\tfunc b() {\n     6\t\treturn 1", "new_string": "x"},
			wantErr: []string{"line-number prefixes"},
		},
		{
			name: "not found, nothing alike", initial: &src,
			args:    map[string]any{"old_string": "zzzz qqqq", "new_string": "x"},
			wantErr: []string{"not found", "Read the file again"},
		},
		{
			name: "replace all, not found", initial: &src,
			args:    map[string]any{"old_string": "nope", "new_string": "x", "replace_all": true},
			wantErr: []string{"not found"},
		},
		{
			name: "no-op", initial: &src,
			args:    map[string]any{"old_string": "return 1", "new_string": "return 1"},
			wantErr: []string{"identical"},
		},
		{
			name: "empty old string on a non-empty file", initial: &src,
			args:    map[string]any{"old_string": "", "new_string": "x"},
			wantErr: []string{"old_string is empty"},
		},
		{
			name: "empty old string fills an empty file", initial: ptr(""),
			args: map[string]any{"old_string": "", "new_string": "x\n"},
			want: "x\n",
		},
		{
			name: "empty old string creates a missing file",
			args: map[string]any{"old_string": "", "new_string": "new\n"},
			want: "new\n",
		},
		{
			name:    "missing file",
			args:    map[string]any{"old_string": "a", "new_string": "b"},
			wantErr: []string{"file not found"},
		},
		{
			name: "both forms", initial: &src,
			args:    map[string]any{"old_string": "a", "new_string": "b", "edits": []map[string]any{{"old_string": "a", "new_string": "b"}}},
			wantErr: []string{"not both"},
		},
		{
			name: "no edit given", initial: &src,
			args:    map[string]any{"old_string": "a"},
			wantErr: []string{"required"},
		},
		{
			name: "multi, in order", initial: &src,
			args: map[string]any{"edits": []map[string]any{
				{"old_string": "func a()", "new_string": "func first()"},
				{"old_string": "func first() {\n\treturn 1", "new_string": "func first() {\n\treturn 10"},
				{"old_string": "func b", "new_string": "func second"},
			}},
			want: "func first() {\n\treturn 10\n}\n\nfunc second() {\n\treturn 1\n}\n",
		},
		{
			name: "multi, second fails, nothing applied", initial: &src,
			args: map[string]any{"edits": []map[string]any{
				{"old_string": "func a()", "new_string": "func first()"},
				{"old_string": "return 1", "new_string": "return 2"},
				{"old_string": "func b", "new_string": "func second"},
			}},
			wantErr: []string{"edit 2 of 3", "matches 2 times", "No edits were applied"},
		},
		{
			name: "multi, edits cancel out", initial: &src,
			args: map[string]any{"edits": []map[string]any{
				{"old_string": "func a()", "new_string": "func z()"},
				{"old_string": "func z()", "new_string": "func a()"},
			}},
			wantErr: []string{"unchanged"},
		},
		{
			name: "CRLF file edited with LF strings stays CRLF", initial: ptr("one\r\ntwo\r\nthree\r\n"),
			args: map[string]any{"old_string": "one\ntwo\n", "new_string": "one\n2\nextra\n"},
			want: "one\r\n2\r\nextra\r\nthree\r\n",
		},
		{
			name: "CRLF file edited with CRLF strings", initial: ptr("one\r\ntwo\r\n"),
			args: map[string]any{"old_string": "two\r\n", "new_string": "deux\r\n"},
			want: "one\r\ndeux\r\n",
		},
		{
			name: "no trailing newline kept", initial: ptr("a\nb"),
			args: map[string]any{"old_string": "b", "new_string": "c"},
			want: "a\nc",
		},
		{
			name: "mixed line endings edited exactly", initial: ptr("a\r\nb\nc\n"),
			args: map[string]any{"old_string": "b\n", "new_string": "B\n"},
			want: "a\r\nB\nc\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			abs := filepath.Join(env.WS.Root, "f.go")
			if tt.initial != nil {
				wtPut(t, env, "f.go", *tt.initial, true)
			}
			args := map[string]any{"path": "f.go"}
			for k, v := range tt.args {
				args[k] = v
			}
			res := wtRun(t, NewEditFile(env), args)
			if tt.wantErr != nil {
				if !res.IsError {
					t.Fatalf("want error, got %+v", res)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(res.Content, w) {
						t.Errorf("error %q lacks %q", res.Content, w)
					}
				}
				if tt.initial == nil {
					if _, err := os.Stat(abs); !os.IsNotExist(err) {
						t.Errorf("a failed edit created the file")
					}
				} else if got := wtGet(t, abs); got != *tt.initial {
					t.Errorf("a failed edit changed the file to %q", got)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected error: %s", res.Content)
			}
			if got := wtGet(t, abs); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			fc, ok := res.Display.(*tool.FileChange)
			if !ok || fc.Diff == "" || fc.Created != (tt.initial == nil) {
				t.Fatalf("Display = %+v", res.Display)
			}
			if tt.initial != nil && !strings.Contains(res.Content, strings.TrimSuffix(fc.Diff, "\n")) {
				t.Errorf("content lacks the diff: %q", res.Content)
			}
		})
	}
}

func TestEditFileStale(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, env *Env, abs string)
		wantErr string
	}{
		{
			name:    "never read",
			setup:   func(t *testing.T, env *Env, abs string) {},
			wantErr: "read it first with read_file",
		},
		{
			name: "changed since read",
			setup: func(t *testing.T, env *Env, abs string) {
				env.Reads.Record(abs, []byte("x = 1\n"))
				if err := os.WriteFile(abs, []byte("x = 1\ny = 2\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "changed on disk since you read it",
		},
		{
			name: "touched but same content is fine",
			setup: func(t *testing.T, env *Env, abs string) {
				env.Reads.Record(abs, []byte("x = 1\n"))
				if err := os.WriteFile(abs, []byte("x = 1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "no tracker, no check",
			setup: func(t *testing.T, env *Env, abs string) {
				env.Reads = nil
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			abs := wtPut(t, env, "f.py", "x = 1\n", false)
			tt.setup(t, env, abs)
			before := wtGet(t, abs)
			res := wtRun(t, NewEditFile(env), map[string]any{"path": "f.py", "old_string": "x = 1", "new_string": "x = 3"})
			if tt.wantErr == "" {
				if res.IsError {
					t.Fatal(res.Content)
				}
				return
			}
			if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
				t.Fatalf("want %q, got %+v", tt.wantErr, res)
			}
			if got := wtGet(t, abs); got != before {
				t.Fatalf("file changed to %q", got)
			}
		})
	}
}

func TestEditFileGateAndRules(t *testing.T) {
	env := wtEnv(t)
	abs := wtPut(t, env, "src/f.txt", "a\n", true)
	env.Gate = permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
		if req.Tool != toolname.EditFile || req.Path != "src/f.txt" || req.Content != "b\n" || req.Change == nil {
			t.Errorf("gate saw %+v", req)
		}
		return permission.Verdict{Reason: "use b2 instead"}
	})
	res := wtRun(t, NewEditFile(env), map[string]any{"path": "src/f.txt", "old_string": "a", "new_string": "b"})
	if !res.IsError || !strings.Contains(res.Content, "use b2 instead") || wtGet(t, abs) != "a\n" {
		t.Fatalf("gate refusal: %+v", res)
	}
	env.Gate = nil
	env.AllowedPaths = []string{"docs/**"}
	res = wtRun(t, NewEditFile(env), map[string]any{"path": "src/f.txt", "old_string": "a", "new_string": "b"})
	if !res.IsError || !strings.Contains(res.Content, "writes are limited to docs/**") || wtGet(t, abs) != "a\n" {
		t.Fatalf("allowed paths: %+v", res)
	}
}

func TestEditFileConcurrent(t *testing.T) {
	// Many agents share the locks; each edits its own line of one file. With
	// the read-check-compute-write under the lock every edit lands; without
	// it, edits computed from the same old content overwrite each other.
	const n = 24
	ws, err := workspace.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	locks := workspace.NewFileLocks()
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "slot %d: empty\n", i)
	}
	abs := filepath.Join(ws.Root, "shared.txt")
	if err := os.WriteFile(abs, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// One tracker for all: a single agent firing concurrent calls. Each
	// write records its result, so the next caller's check passes.
	reads := workspace.NewReadTracker()
	reads.Record(abs, []byte(sb.String()))
	var wg sync.WaitGroup
	results := make([]tool.Result, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool := NewEditFile(&Env{WS: ws, Reads: reads, Locks: locks})
			args, _ := json.Marshal(map[string]any{
				"path": "shared.txt", "old_string": fmt.Sprintf("slot %d: empty", i), "new_string": fmt.Sprintf("slot %d: done", i),
			})
			results[i] = tool.Run(context.Background(), args)
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.IsError {
			t.Errorf("edit %d: %s", i, r.Content)
		}
	}
	got := wtGet(t, abs)
	if want := strings.ReplaceAll(sb.String(), "empty", "done"); got != want {
		t.Fatalf("lost edits:\n%s", got)
	}
	// Every edit let go of the file's lock (that the map keeps no entry is
	// workspace's TestFileLocks).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unlock, err := locks.Lock(ctx, abs)
	if err != nil {
		t.Fatalf("the file's lock is still held after every edit: %v", err)
	}
	unlock()
}

func TestTodoListCopies(t *testing.T) {
	l := NewTodoList()
	in := []tool.Todo{{Content: "a", Status: TodoPending}}
	l.Set(in)
	in[0].Content = "changed"
	got := l.Get()
	got[0].Status = TodoCompleted
	if again := l.Get(); again[0].Content != "a" || again[0].Status != TodoPending {
		t.Fatalf("list shares memory with callers: %+v", again)
	}
}

func ptr(s string) *string { return &s }

func BenchmarkApplyEdits(b *testing.B) {
	// The in-memory part of an edit on a 10,000-line file: three edits,
	// each a unique match, as a multi-edit call makes.
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&sb, "\tline %d of the file = compute(%d)\n", i, i)
	}
	content := sb.String()
	edits := []fileEdit{
		{OldString: "line 10 of the file", NewString: "line ten"},
		{OldString: "line 5000 of the file", NewString: "line five thousand"},
		{OldString: "line 9999 of the file", NewString: "last line"},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := applyEdits(content, true, edits); err != nil {
			b.Fatal(err)
		}
	}
}
