package tools

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"covey/lsp"
	"covey/permission"
	"covey/tools/toolname"
)

// goplsEnv is an Env over a small Go module with a language-server
// manager running only gopls; locally a missing gopls skips, in CI it
// fails (.ci/run installs it and sets COVEY_GOPLS).
func goplsEnv(t *testing.T) *Env {
	t.Helper()
	gopls := os.Getenv("COVEY_GOPLS")
	if gopls == "" {
		gopls, _ = exec.LookPath("gopls")
	}
	if gopls == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("gopls is missing, and CI must run the gopls tests")
		}
		t.Skip("gopls is not installed (set COVEY_GOPLS)")
	}
	env := wtEnv(t)
	m := lsp.NewManager(lsp.Config{Wait: time.Minute, Servers: map[string]lsp.ServerConfig{"gopls": {Command: gopls}}})
	m.SetLookPath(func(string) (string, error) { return "", errors.New("only the configured gopls") })
	t.Cleanup(m.Close)
	env.LSP = m
	wtPut(t, env, "go.mod", "module example.com/m\n\ngo 1.22\n", false)
	wtPut(t, env, "lib.go", "package main\n\nfunc helper() int { return 1 }\n", true)
	wtPut(t, env, "main.go", "package main\n\nfunc main() {\n\t_ = helper()\n}\n", true)
	return env
}

func TestEditsEndWithTheirDiagnostics(t *testing.T) {
	env := goplsEnv(t)
	r := wtRun(t, NewEditFile(env), map[string]any{"path": "main.go", "old_string": "\t_ = helper()\n", "new_string": "\t_ = helper()\n\t_ = missing\n"})
	if r.IsError || !strings.Contains(r.Content, "main.go:5:6: error: undefined: missing") {
		t.Fatalf("edit_file's result should end with gopls's diagnostic:\n%s", r.Content)
	}
	r = wtRun(t, NewWriteFile(env), map[string]any{"path": "main.go", "content": "package main\n\nfunc main() {\n\t_ = helper()\n}\n"})
	if r.IsError || !strings.Contains(r.Content, "gopls reports no problems in main.go") || strings.Contains(r.Content, "undefined") {
		t.Fatalf("the fixing write_file's result:\n%s", r.Content)
	}
}

func TestLSPToolRenameAsksPerFile(t *testing.T) {
	env := goplsEnv(t)
	var asked []permission.Request
	allow := true
	env.Gate = permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
		asked = append(asked, req)
		return permission.Verdict{Allowed: allow, Reason: "no"}
	})
	tool := NewLSP(env)
	if tool == nil || tool.Name() != toolname.LSP {
		t.Fatalf("NewLSP = %v", tool)
	}
	r := wtRun(t, tool, map[string]any{"operation": "definition", "path": "main.go", "line": 4, "character": 7})
	if r.IsError || !strings.Contains(r.Content, "lib.go:3:6: func helper() int { return 1 }") {
		t.Fatalf("definition:\n%s", r.Content)
	}
	if len(asked) != 0 {
		t.Errorf("a query asked the gate: %+v", asked)
	}
	r = wtRun(t, tool, map[string]any{"operation": "rename", "path": "lib.go", "line": 3, "character": 6, "new_name": "assist"})
	if r.IsError || !strings.Contains(r.Content, "Renamed to assist in 2 of 2 files: lib.go, main.go.") {
		t.Fatalf("rename:\n%s", r.Content)
	}
	if len(asked) != 2 || asked[0].Tool != toolname.EditFile || asked[0].Path != "lib.go" || asked[1].Path != "main.go" ||
		asked[1].Change == nil || !strings.Contains(asked[1].Change.Diff, "+\t_ = assist()") {
		t.Fatalf("the rename should ask once per file, as edits with diffs: %+v", asked)
	}
	if got := wtGet(t, env.WS.Root+"/main.go"); !strings.Contains(got, "assist()") {
		t.Errorf("main.go = %q", got)
	}
	// Refused: nothing changes.
	allow, asked = false, nil
	r = wtRun(t, tool, map[string]any{"operation": "rename", "path": "lib.go", "line": 3, "character": 6, "new_name": "other"})
	if !r.IsError || !strings.Contains(r.Content, "Renamed to other in 0 of 2 files") || strings.Contains(wtGet(t, env.WS.Root+"/lib.go"), "other") {
		t.Errorf("a refused rename:\n%s", r.Content)
	}
}

func TestLSPToolArguments(t *testing.T) {
	env := wtEnv(t)
	m := lsp.NewManager(lsp.Config{Servers: map[string]lsp.ServerConfig{"x": {Command: "true", Extensions: []string{".x"}}}})
	m.SetLookPath(func(string) (string, error) { return "", errors.New("none") })
	env.LSP = m
	tool := NewLSP(env)
	for args, want := range map[string]map[string]any{
		"path is required":         {"operation": "hover"},
		"operation must be one of": {"operation": "nope", "path": "a.x"},
		"needs line and character": {"operation": "definition", "path": "a.x"},
		"rename needs new_name":    {"operation": "rename", "path": "a.x", "line": 1, "character": 1},
	} {
		if r := wtRun(t, tool, want); !r.IsError || !strings.Contains(r.Content, args) {
			t.Errorf("%v: want %q, got %+v", want, args, r)
		}
	}
	if NewLSP(wtEnv(t)) != nil {
		t.Error("without a manager the tool must not be offered")
	}
}
