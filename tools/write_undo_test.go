package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

func TestUndoAcrossTurnsAndRestart(t *testing.T) {
	root := t.TempDir()
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	undoDir := filepath.Join(t.TempDir(), "session.undo")
	undo, err := workspace.OpenUndoLog(undoDir)
	if err != nil {
		t.Fatal(err)
	}
	file := func(name string) string { return filepath.Join(ws.Root, name) }
	if err := os.WriteFile(file("a.txt"), []byte("one\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	env := &Env{WS: ws, Locks: workspace.NewFileLocks(), Undo: undo}
	write := NewWriteFile(env)
	run := func(path, content string) {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"path": path, "content": content})
		if r := write.Run(context.Background(), args); r.IsError {
			t.Fatal(r.Content)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(file(name))
		if errors.Is(err, os.ErrNotExist) {
			return "<absent>"
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	undo.BeginTurnAs("“first”") // turn 1: change a.txt twice, create b.txt
	run("a.txt", "two\n")
	run("a.txt", "three\n")
	run("b.txt", "new\n")
	undo.BeginTurn() // turn 2: change a.txt again
	run("a.txt", "four\n")
	undo.BeginTurn() // turn 3: reads only, changes nothing

	// A restart: a fresh log on the same folder still knows both turns.
	undo, err = workspace.OpenUndoLog(undoDir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := undo.Undo(context.Background(), env.Locks)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Restored, []string{"a.txt"}) || len(res.Removed) != 0 || read("a.txt") != "three\n" {
		t.Fatalf("first undo: %+v, a.txt = %q", res, read("a.txt"))
	}
	res, err = undo.Undo(context.Background(), env.Locks)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Restored, []string{"a.txt"}) || !slices.Equal(res.Removed, []string{"b.txt"}) || res.Label != "“first”" {
		t.Fatalf("second undo: %+v", res)
	}
	if read("a.txt") != "one\n" || read("b.txt") != "<absent>" {
		t.Fatalf("after two undos: a=%q b=%q", read("a.txt"), read("b.txt"))
	}
	if info, _ := os.Stat(file("a.txt")); info.Mode().Perm() != 0o640 {
		t.Fatalf("mode after undo = %v", info.Mode().Perm())
	}
	if _, err := undo.Undo(context.Background(), env.Locks); !errors.Is(err, workspace.ErrNothingToUndo) {
		t.Fatalf("third undo: %v, want workspace.ErrNothingToUndo", err)
	}
}

func TestUndoSaveFailureBlocksTheWrite(t *testing.T) {
	root := t.TempDir()
	ws, _ := workspace.NewWorkspace(root)
	undoDir := filepath.Join(t.TempDir(), "u")
	undo, err := workspace.OpenUndoLog(undoDir)
	if err != nil {
		t.Fatal(err)
	}
	// A file where the turn folder should go makes saving impossible.
	if err := os.WriteFile(filepath.Join(undoDir, "turn-000001"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	undo.BeginTurn()
	env := &Env{WS: ws, Locks: workspace.NewFileLocks(), Undo: undo}
	args, _ := json.Marshal(map[string]string{"path": "x.txt", "content": "x"})
	r := NewWriteFile(env).Run(context.Background(), args)
	if !r.IsError {
		t.Fatalf("write went ahead without an undo copy: %s", r.Content)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "x.txt")); err == nil {
		t.Fatal("the file was written although it could not be undone")
	}
}

func TestReadsOutsideTheWorkspaceNeedARule(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	ws, _ := workspace.NewWorkspace(root)
	secret := filepath.Join(outside, "notes.txt")
	if err := os.WriteFile(secret, []byte("private\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	// Like Policy.AllowRead: the workspace, and outside what a rule allows.
	env := &Env{WS: ws, AllowRead: func(abs string) bool { return ws.Contains(abs) || allowed[abs] }}
	call := func(tool tool.Tool, args map[string]any) tool.Result {
		b, _ := json.Marshal(args)
		return tool.Run(context.Background(), b)
	}
	tests := map[string]struct {
		tool tool.Tool
		args map[string]any
	}{
		toolname.ReadFile: {NewReadFile(env), map[string]any{"path": secret}},
		toolname.Grep:     {NewGrep(env), map[string]any{"pattern": "private", "path": outside}},
		toolname.Glob:     {NewGlob(env), map[string]any{"pattern": "*", "path": outside}},
		toolname.ListDir:  {NewListDir(env), map[string]any{"path": outside}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if r := call(tc.tool, tc.args); !r.IsError || !strings.Contains(r.Content, "read_file(") {
				t.Fatalf("outside read not refused: %s", r.Content)
			}
		})
	}
	if r := call(NewReadFile(env), map[string]any{"path": "in.txt"}); r.IsError {
		t.Fatalf("inside read refused: %s", r.Content)
	}
	allowed[secret] = true
	if r := call(NewReadFile(env), map[string]any{"path": secret}); r.IsError || !strings.Contains(r.Content, "private") {
		t.Fatalf("allowed outside read refused: %s", r.Content)
	}
}
