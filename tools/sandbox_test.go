package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"covey/sandbox"
	"covey/sandbox/sandboxtest"
	"covey/tools/tool"
	"covey/tools/workspace"
)

// TestMain lets the test binary serve as covey's sandbox helper, as
// covey's main does, so bash runs confined here as it does in covey.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		sandbox.RunHelper(os.Args[2:])
	}
	os.Exit(m.Run())
}

// TestSandboxedBashHonoursAllowedPaths: an agent limited to docs/** cannot
// write elsewhere in the workspace through any program, not only through
// redirections the gate sees; an agent without limits can.
func TestSandboxedBashHonoursAllowedPaths(t *testing.T) {
	box, err := sandbox.New(sandbox.Config{}, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if box.Backend() == "" {
		t.Skipf("no sandbox backend works here: %s", box.Warning())
	}
	// Outside the temp folders, which stay writable to every agent.
	root := sandboxtest.OutsideTemp(t, ".covey-ws-")
	if err := os.WriteFile(filepath.Join(root, "victim"), []byte("v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	run := func(env *Env, command string) tool.Result {
		args, _ := json.Marshal(map[string]any{"command": command})
		return NewBash(env).Run(context.Background(), args)
	}
	limited := &Env{WS: ws, Sandbox: box, AllowedPaths: []string{"docs/**"}}
	// touch writes by its argument, which the gate does not read (it reads
	// cp's destination, and would refuse the whole line).
	res := run(limited, "touch src-copy; cp victim docs/copy; echo done")
	if _, err := os.Stat(filepath.Join(root, "src-copy")); err == nil {
		t.Errorf("an agent limited to docs/** wrote src-copy: %s", res.Content)
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "copy")); err != nil {
		t.Errorf("an agent limited to docs/** could not write docs/copy: %v\n%s", err, res.Content)
	}
	free := &Env{WS: ws, Sandbox: box}
	res = run(free, "cp victim other-copy")
	if _, err := os.Stat(filepath.Join(root, "other-copy")); err != nil {
		t.Errorf("an agent without limits could not write in the workspace: %v\n%s", err, res.Content)
	}
}
