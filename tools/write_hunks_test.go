package tools

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"covey/permission"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// TestWriteByHunk takes part of a change: the file lands with the taken
// hunks only, the result names each dropped hunk and the user's note, and
// /undo restores the file.
func TestWriteByHunk(t *testing.T) {
	base := numberedEOL(30, "\n")
	crlf := numberedEOL(30, "\r\n")
	tests := []struct {
		name      string
		tool      string
		old       string // "" with exists false: a new file
		exists    bool
		args      map[string]any
		dropped   []int
		race      bool // the file changes while the user answers
		want      string
		wantErr   string
		wantInRes []string
	}{
		{name: "edit, second hunk dropped", tool: toolname.EditFile, old: base, exists: true,
			args:    map[string]any{"edits": []map[string]any{{"old_string": "l3\n", "new_string": "L3\n"}, {"old_string": "l25\n", "new_string": "L25\n"}}},
			dropped: []int{1}, want: strings.Replace(base, "l3\n", "L3\n", 1),
			wantInRes: []string{"took 1 of the 2 hunks", "@@ -22,7 +22,7 @@\n l22\n l23\n l24\n-l25\n+L25\n", "The user's note: keep l25", "1 of 2 hunks taken"}},
		{name: "write of a CRLF file, first hunk dropped", tool: toolname.WriteFile, old: crlf, exists: true,
			args:    map[string]any{"content": strings.Replace(strings.Replace(base, "l3\n", "L3\n", 1), "l25\n", "L25\n", 1)},
			dropped: []int{0}, want: strings.Replace(crlf, "l25\r\n", "L25\r\n", 1),
			wantInRes: []string{"@@ -1,6 +1,6 @@\n l1\n l2\n-l3\n+L3\n"}},
		{name: "a new file's only hunk dropped writes nothing", tool: toolname.WriteFile,
			args:    map[string]any{"content": "a\nb\n"},
			dropped: []int{0}, wantErr: "dropped every hunk"},
		{name: "changed underneath", tool: toolname.EditFile, old: base, exists: true, race: true,
			args:    map[string]any{"edits": []map[string]any{{"old_string": "l3\n", "new_string": "L3\n"}, {"old_string": "l25\n", "new_string": "L25\n"}}},
			dropped: []int{1}, want: "theirs\n", wantErr: "changed on disk while waiting for approval"},
		{name: "a hunk the change lacks", tool: toolname.EditFile, old: base, exists: true,
			args:    map[string]any{"old_string": "l3\n", "new_string": "L3\n"},
			dropped: []int{4}, want: base, wantErr: "no such hunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			undo, err := workspace.OpenUndoLog(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			env.Undo = undo
			undo.BeginTurn()
			abs := env.WS.Root + "/f.txt"
			if tt.exists {
				abs = wtPut(t, env, "f.txt", tt.old, true)
			}
			env.Gate = permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
				if tt.race {
					if err := os.WriteFile(abs, []byte("theirs\n"), 0o644); err != nil {
						t.Error(err)
					}
				}
				return permission.Verdict{Allowed: true, Dropped: map[string][]int{req.Path: tt.dropped}, Note: "keep l25"}
			})
			args := map[string]any{"path": "f.txt"}
			for k, v := range tt.args {
				args[k] = v
			}
			var res tool.Result
			if tt.tool == toolname.EditFile {
				res = wtRun(t, NewEditFile(env), args)
			} else {
				res = wtRun(t, NewWriteFile(env), args)
			}
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("want error %q, got %+v", tt.wantErr, res)
				}
			} else if res.IsError {
				t.Fatal(res.Content)
			}
			got, err := os.ReadFile(abs)
			if !tt.exists && tt.want == "" {
				if !os.IsNotExist(err) {
					t.Fatalf("a file was created: %q %v", got, err)
				}
				return
			}
			if string(got) != tt.want {
				t.Fatalf("file = %q\nwant   %q", got, tt.want)
			}
			for _, s := range tt.wantInRes {
				if !strings.Contains(res.Content+"\n"+res.Summary, s) {
					t.Errorf("result lacks %q:\n%s\n(summary %q)", s, res.Content, res.Summary)
				}
			}
			if strings.Contains(res.Content, "as proposed") {
				t.Errorf("a trimmed write is reported as proposed: %s", res.Content)
			}
			if tt.wantErr == "" {
				if _, err := undo.Undo(context.Background(), env.Locks); err != nil {
					t.Fatal(err)
				}
				if back := wtGet(t, abs); back != tt.old {
					t.Fatalf("after undo the file is %q, want %q", back, tt.old)
				}
			}
		})
	}
}

// numberedEOL makes a file of n numbered lines, "l1\n".."ln\n", with eol.
func numberedEOL(n int, eol string) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "l%d%s", i, eol)
	}
	return sb.String()
}
