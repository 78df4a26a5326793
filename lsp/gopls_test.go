package lsp

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goplsPath finds the gopls the tests use: COVEY_GOPLS (set by .ci/run),
// else gopls on PATH. Locally a missing gopls skips; in CI it fails.
func goplsPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("COVEY_GOPLS"); p != "" {
		return p
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("gopls is missing, and CI must run the gopls tests: .ci/run installs it and sets COVEY_GOPLS")
	}
	t.Skip("gopls is not installed (go install golang.org/x/tools/gopls@v0.23.0, or set COVEY_GOPLS)")
	return ""
}

// goplsManager is a manager running only gopls, with a generous wait (a
// cold gopls loads the module first).
func goplsManager(t testing.TB, gopls string) *Manager {
	m := NewManager(Config{Wait: 60 * time.Second, Servers: map[string]ServerConfig{"gopls": {Command: gopls}}})
	m.SetLookPath(func(string) (string, error) { return "", errors.New("only the configured gopls") })
	return m
}

func TestGoplsDiagnosticsDefinitionReferences(t *testing.T) {
	gopls := goplsPath(t)
	ws := t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	lib := "package main\n\nfunc helper() int { return 1 }\n"
	must(t, os.WriteFile(filepath.Join(ws, "lib.go"), []byte(lib), 0o644))
	m := goplsManager(t, gopls)
	defer m.Close()

	broken := "package main\n\nfunc main() {\n\t_ = helper()\n\t_ = undefinedThing\n}\n"
	got := write(t, m, ws, "main.go", broken)
	if !strings.Contains(got, "main.go:5:6: error: undefined: undefinedThing") {
		t.Fatalf("the breaking edit's result should carry gopls's diagnostic:\n%s", got)
	}
	fixed := "package main\n\nfunc main() {\n\t_ = helper()\n}\n"
	got = write(t, m, ws, "main.go", fixed)
	if !strings.Contains(got, "gopls reports no problems in main.go") || strings.Contains(got, "undefined") {
		t.Fatalf("the fixing edit's result should have no diagnostic:\n%s", got)
	}
	// An edit that leaves the diagnostics as they were (none) still gets
	// the server's word on its own version.
	got = write(t, m, ws, "main.go", "// Package main.\n"+fixed)
	if !strings.Contains(got, "gopls reports no problems in main.go") {
		t.Fatalf("a clean edit after a clean one:\n%s", got)
	}

	ctx := context.Background()
	main := filepath.Join(ws, "main.go")
	a, err := m.Query(ctx, ws, Query{Op: OpDefinition, Abs: main, Line: 5, Character: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Text, "lib.go:3:6: func helper() int { return 1 }") {
		t.Errorf("definition of helper:\n%s", a.Text)
	}
	a, err = m.Query(ctx, ws, Query{Op: OpReferences, Abs: filepath.Join(ws, "lib.go"), Line: 3, Character: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 references:", "lib.go:3:6", "main.go:5:6"} {
		if !strings.Contains(a.Text, want) {
			t.Errorf("references of helper: want %q in\n%s", want, a.Text)
		}
	}
	a, err = m.Query(ctx, ws, Query{Op: OpRename, Abs: filepath.Join(ws, "lib.go"), Line: 3, Character: 7, NewName: "assist"})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Renamed[main]; !strings.Contains(got, "_ = assist()") || len(a.Renamed) != 2 {
		t.Errorf("rename: %d files, main.go becomes:\n%s", len(a.Renamed), got)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
