package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"

	"covey/permission"
)

// wtEnv returns an Env on a fresh temporary workspace with read tracking and
// locks, the way one agent gets it.
func wtEnv(t *testing.T) *Env {
	t.Helper()
	ws, err := workspace.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &Env{WS: ws, Reads: workspace.NewReadTracker(), Locks: workspace.NewFileLocks(), Todos: NewTodoList()}
}

// wtRun calls tool with args marshalled to JSON.
func wtRun(t *testing.T, tool tool.Tool, args map[string]any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Run(context.Background(), raw)
}

// wtPut writes a file into the workspace; read marks it read by the agent.
func wtPut(t *testing.T, env *Env, rel, content string, read bool) string {
	t.Helper()
	abs := filepath.Join(env.WS.Root, rel)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if read {
		env.Reads.Record(abs, []byte(content))
	}
	return abs
}

func wtGet(t *testing.T, abs string) string {
	t.Helper()
	b, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, env *Env)
		path    string
		content string
		wantErr string // substring of the error; "" for success
		want    string // file content afterwards, when no error
		created bool
	}{
		{
			name: "new file with new folders", path: "a/b/new.txt", content: "hello\n",
			want: "hello\n", created: true,
		},
		{
			name:  "overwrite after read",
			setup: func(t *testing.T, env *Env) { wtPut(t, env, "f.txt", "old\n", true) },
			path:  "f.txt", content: "new\n", want: "new\n",
		},
		{
			name:  "absolute path inside",
			setup: func(t *testing.T, env *Env) {},
			path:  "", content: "x\n", want: "x\n", created: true,
		},
		{
			name: "outside via dot-dot", path: "../escape.txt", content: "x",
			wantErr: "outside the workspace",
		},
		{
			name: "outside absolute", path: filepath.Join(os.TempDir(), "covey-escape.txt"), content: "x",
			wantErr: "outside the workspace",
		},
		{
			name: "outside via symlink",
			setup: func(t *testing.T, env *Env) {
				if err := os.Symlink(t.TempDir(), filepath.Join(env.WS.Root, "link")); err != nil {
					t.Fatal(err)
				}
			},
			path: "link/evil.txt", content: "x", wantErr: "outside the workspace",
		},
		{
			name:  "never read",
			setup: func(t *testing.T, env *Env) { wtPut(t, env, "f.txt", "old\n", false) },
			path:  "f.txt", content: "new\n", wantErr: "read it first with read_file",
		},
		{
			name: "changed on disk since read",
			setup: func(t *testing.T, env *Env) {
				wtPut(t, env, "f.txt", "old\n", true)
				wtPut(t, env, "f.txt", "someone else's\n", false)
			},
			path: "f.txt", content: "new\n", wantErr: "changed on disk since you read it",
		},
		{
			name: "allowed paths refuse",
			setup: func(t *testing.T, env *Env) {
				env.AllowedPaths = []string{"docs/**", "*.md"}
			},
			path: "src/main.go", content: "x", wantErr: "writes are limited to docs/**, *.md",
		},
		{
			name:  "allowed paths accept",
			setup: func(t *testing.T, env *Env) { env.AllowedPaths = []string{"docs"} },
			path:  "docs/guide/a.txt", content: "x", want: "x", created: true,
		},
		{
			name:  "a directory",
			setup: func(t *testing.T, env *Env) { _ = os.Mkdir(filepath.Join(env.WS.Root, "d"), 0o755) },
			path:  "d", content: "x", wantErr: "is a directory",
		},
		{
			name:  "unchanged content",
			setup: func(t *testing.T, env *Env) { wtPut(t, env, "f.txt", "same\n", true) },
			path:  "f.txt", content: "same\n", want: "same\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			if tt.setup != nil {
				tt.setup(t, env)
			}
			path := tt.path
			if path == "" {
				path = filepath.Join(env.WS.Root, "abs.txt")
			}
			res := wtRun(t, NewWriteFile(env), map[string]any{"path": path, "content": tt.content})
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("want error containing %q, got %+v", tt.wantErr, res)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected error: %s", res.Content)
			}
			if got := wtGet(t, env.WS.Resolve(path)); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if fc, ok := res.Display.(*tool.FileChange); ok && fc.Created != tt.created {
				t.Errorf("Created = %v, want %v", fc.Created, tt.created)
			}
		})
	}
}

func TestWriteFileResult(t *testing.T) {
	env := wtEnv(t)
	wtPut(t, env, "f.txt", "a\nb\nc\n", true)
	res := wtRun(t, NewWriteFile(env), map[string]any{"path": "f.txt", "content": "a\nB\nc\n"})
	fc, ok := res.Display.(*tool.FileChange)
	if res.IsError || !ok {
		t.Fatalf("result %+v", res)
	}
	wantDiff := "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	if fc.Path != "f.txt" || fc.Diff != wantDiff || fc.Added != 1 || fc.Removed != 1 || fc.Created {
		t.Errorf("FileChange = %+v", fc)
	}
	if !strings.Contains(res.Content, strings.TrimSuffix(wantDiff, "\n")) || res.Summary != "+1 -1" {
		t.Errorf("content %q summary %q", res.Content, res.Summary)
	}
}

func TestWriteThenEditAgain(t *testing.T) {
	// The agent's own write counts as a read: it may edit what it wrote.
	env := wtEnv(t)
	abs := wtPut(t, env, "f.txt", "one\n", true)
	if res := wtRun(t, NewWriteFile(env), map[string]any{"path": "f.txt", "content": "two\n"}); res.IsError {
		t.Fatal(res.Content)
	}
	res := wtRun(t, NewEditFile(env), map[string]any{"path": "f.txt", "old_string": "two", "new_string": "three"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := wtGet(t, abs); got != "three\n" {
		t.Fatalf("file = %q", got)
	}
}

func TestWriteFileGate(t *testing.T) {
	edited := "user's\nversion\n"
	tests := []struct {
		name    string
		verdict permission.Verdict
		wantErr string
		want    string
		note    string
	}{
		{name: "refused", verdict: permission.Verdict{Reason: "not now"}, wantErr: "not allowed: not now", want: "old\n"},
		{name: "allowed", verdict: permission.Verdict{Allowed: true}, want: "proposed\n"},
		{name: "user edited", verdict: permission.Verdict{Allowed: true, Content: &edited}, want: edited, note: "The user modified your proposed content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			abs := wtPut(t, env, "f.txt", "old\n", true)
			var got []permission.Request
			env.Gate = permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
				got = append(got, req)
				return tt.verdict
			})
			res := wtRun(t, NewWriteFile(env), map[string]any{"path": "f.txt", "content": "proposed\n"})
			if len(got) != 1 || got[0].Tool != toolname.WriteFile || got[0].Path != "f.txt" || got[0].Content != "proposed\n" ||
				got[0].Change == nil || got[0].Change.Added != 1 || got[0].Change.Removed != 1 {
				t.Fatalf("gate saw %+v", got)
			}
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("want error %q, got %+v", tt.wantErr, res)
				}
			} else if res.IsError {
				t.Fatal(res.Content)
			}
			if !strings.Contains(res.Content, tt.note) {
				t.Errorf("content %q lacks %q", res.Content, tt.note)
			}
			if tt.note != "" && !strings.Contains(res.Content, "+version") {
				t.Errorf("content lacks the proposal→final diff: %q", res.Content)
			}
			if s := wtGet(t, abs); s != tt.want {
				t.Errorf("file = %q, want %q", s, tt.want)
			}
			if fc, ok := res.Display.(*tool.FileChange); tt.wantErr == "" && (!ok || !strings.Contains(fc.Diff, "+"+strings.SplitN(tt.want, "\n", 2)[0])) {
				t.Errorf("Display does not describe what was written: %+v", res.Display)
			}
		})
	}
}

func TestWriteFileGateRace(t *testing.T) {
	// Someone changes the file while the user reviews: nothing is written.
	env := wtEnv(t)
	abs := wtPut(t, env, "f.txt", "old\n", true)
	env.Gate = permission.GateFunc(func(context.Context, permission.Request) permission.Verdict {
		if err := os.WriteFile(abs, []byte("theirs\n"), 0o644); err != nil {
			t.Error(err)
		}
		return permission.Verdict{Allowed: true}
	})
	res := wtRun(t, NewWriteFile(env), map[string]any{"path": "f.txt", "content": "mine\n"})
	if !res.IsError || !strings.Contains(res.Content, "changed on disk while waiting for approval") {
		t.Fatalf("result %+v", res)
	}
	if got := wtGet(t, abs); got != "theirs\n" {
		t.Fatalf("file = %q", got)
	}
}

func TestWriteFileConventions(t *testing.T) {
	tests := []struct {
		name, old, content, want string
	}{
		{"CRLF stays CRLF", "a\r\nb\r\n", "a\nc\n", "a\r\nc\r\n"},
		{"CRLF content kept as sent", "a\r\nb\r\n", "x\r\ny\r\n", "x\r\ny\r\n"},
		{"no trailing newline kept", "a\nb", "a\nc\n", "a\nc"},
		{"trailing newline kept", "a\nb\n", "a\nc", "a\nc\n"},
		{"CRLF without trailing newline", "a\r\nb", "a\nc\n", "a\r\nc"},
		{"LF untouched", "a\nb\n", "x\ny\n", "x\ny\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			abs := wtPut(t, env, "f.txt", tt.old, true)
			if res := wtRun(t, NewWriteFile(env), map[string]any{"path": "f.txt", "content": tt.content}); res.IsError {
				t.Fatal(res.Content)
			}
			if got := wtGet(t, abs); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWritePermissionsKept(t *testing.T) {
	for _, mode := range []os.FileMode{0o755, 0o600, 0o640} {
		t.Run(mode.String(), func(t *testing.T) {
			env := wtEnv(t)
			abs := wtPut(t, env, "f.sh", "old\n", true)
			if err := os.Chmod(abs, mode); err != nil {
				t.Fatal(err)
			}
			if res := wtRun(t, NewWriteFile(env), map[string]any{"path": "f.sh", "content": "new\n"}); res.IsError {
				t.Fatal(res.Content)
			}
			info, err := os.Stat(abs)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != mode {
				t.Errorf("mode = %v, want %v", info.Mode().Perm(), mode)
			}
		})
	}
}

func TestWriteFileBadArgs(t *testing.T) {
	env := wtEnv(t)
	tool := NewWriteFile(env)
	for name, args := range map[string]string{
		"not json":        `{`,
		"no path":         `{"content":"x"}`,
		"no content":      `{"path":"a"}`,
		"content not str": `{"path":"a","content":3}`,
	} {
		t.Run(name, func(t *testing.T) {
			if res := tool.Run(context.Background(), json.RawMessage(args)); !res.IsError {
				t.Fatalf("want error, got %+v", res)
			}
		})
	}
	if res := NewWriteFile(&Env{}).Run(context.Background(), json.RawMessage(`{"path":"a","content":""}`)); !res.IsError {
		t.Fatal("no workspace should be an error")
	}
}

func TestReadTracker(t *testing.T) {
	var nilTracker *workspace.ReadTracker
	nilTracker.Record("/x", []byte("a"))
	if err := nilTracker.Check("/x", []byte("b")); err != nil {
		t.Fatalf("nil tracker checks nothing, got %v", err)
	}
	r := workspace.NewReadTracker()
	if err := r.Check("/x", []byte("a")); !errors.Is(err, workspace.ErrNotRead) {
		t.Fatalf("unread: %v", err)
	}
	r.Record("/x", []byte("a"))
	if err := r.Check("/x", []byte("a")); err != nil {
		t.Fatalf("same content: %v", err)
	}
	if err := r.Check("/x", []byte("b")); !errors.Is(err, workspace.ErrStale) {
		t.Fatalf("changed content: %v", err)
	}
}

func TestEditThroughSymlink(t *testing.T) {
	// read_file records the path as the model gave it; the write resolves
	// links. Both must name one file, and the link must stay a link.
	env := wtEnv(t)
	real := wtPut(t, env, "real.txt", "v1\n", false)
	link := filepath.Join(env.WS.Root, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	env.Reads.Record(link, []byte("v1\n"))
	res := wtRun(t, NewEditFile(env), map[string]any{"path": "link.txt", "old_string": "v1", "new_string": "v2"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := wtGet(t, real); got != "v2\n" {
		t.Fatalf("target = %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced by a file: %v %v", fi.Mode(), err)
	}
	// The write recorded the target; reading back through the link is the
	// same file, so a second edit through either name passes the check.
	if err := env.Reads.Check(link, []byte("v2\n")); err != nil {
		t.Fatal(err)
	}
}
