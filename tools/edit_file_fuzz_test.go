package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/workspace"
)

// FuzzEditFile applies random edits to random content. Invariants: no panic;
// on success the file is exactly the specified replacement; on error the
// file is byte-identical to what it was.
func FuzzEditFile(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", false)
	f.Add("x x x", "x", "y", true)
	f.Add("one\r\ntwo\r\n", "one\ntwo", "1\n2", false)
	f.Add("aaa", "aa", "b", false)
	f.Add("", "", "new", false)
	f.Add("no newline", "newline", "", false)
	f.Add("a\r\nb\nc", "b\n", "B\r\n", true)
	f.Add("\xff\xfe", "\xff", "z", false)
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		ws, err := workspace.NewWorkspace(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		abs := filepath.Join(ws.Root, "f")
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		reads := workspace.NewReadTracker()
		reads.Record(abs, []byte(content))
		args, err := json.Marshal(map[string]any{"path": "f", "old_string": old, "new_string": new, "replace_all": all})
		if err != nil {
			t.Fatal(err)
		}
		// JSON carries text: invalid UTF-8 arrives as U+FFFD, so the
		// expectation uses the strings the tool will actually see.
		var seen struct{ Old, New string }
		var raw map[string]any
		_ = json.Unmarshal(args, &raw)
		seen.Old, seen.New = raw["old_string"].(string), raw["new_string"].(string)

		res := NewEditFile(&Env{WS: ws, Reads: reads, Locks: workspace.NewFileLocks()}).Run(context.Background(), args)
		got, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := specReplace(content, seen.Old, seen.New, all)
		switch {
		case res.IsError && ok:
			t.Fatalf("edit failed, want %q: %s", want, res.Content)
		case res.IsError && string(got) != content:
			t.Fatalf("a failed edit changed the file: %q → %q", content, got)
		case !res.IsError && !ok:
			t.Fatalf("edit succeeded, want a failure; file %q → %q", content, got)
		case !res.IsError && string(got) != want:
			t.Fatalf("file = %q, want %q", got, want)
		}
	})
}

// specReplace is edit_file's contract, written plainly: a file whose line
// breaks are all CRLF is edited in LF form and converted back; otherwise the
// bytes are matched as given. old must occur exactly once (overlaps count)
// unless all; an empty old only fills an empty file; the edit must change
// something.
func specReplace(content, old, new string, all bool) (string, bool) {
	crlf := strings.Count(content, "\n") > 0 && strings.Count(content, "\n") == strings.Count(content, "\r\n")
	c := content
	if crlf {
		c = strings.ReplaceAll(c, "\r\n", "\n")
		old = strings.ReplaceAll(old, "\r\n", "\n")
		new = strings.ReplaceAll(new, "\r\n", "\n")
	}
	if old == new {
		return "", false
	}
	var out string
	switch {
	case old == "":
		if c != "" {
			return "", false
		}
		out = new
	case all:
		if !strings.Contains(c, old) {
			return "", false
		}
		out = strings.ReplaceAll(c, old, new)
	default:
		i := strings.Index(c, old)
		if i < 0 || strings.Contains(c[i+1:], old) {
			return "", false
		}
		out = c[:i] + new + c[i+len(old):]
	}
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if out == content {
		return "", false
	}
	return out, true
}
