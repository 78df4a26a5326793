package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScriptsOf(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"scripts/fmt.sh", ".claude/hooks/check.py", "notes.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("echo "+f+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "x.sh")
	if err := os.WriteFile(outside, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := map[string][]string{
		"./scripts/fmt.sh":                                     {"scripts/fmt.sh"},
		"bash scripts/fmt.sh && echo done":                     {"scripts/fmt.sh"},
		`python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/check.py"`: {".claude/hooks/check.py"},
		"${COVEY_PROJECT_DIR}/scripts/fmt.sh|cat":              {"scripts/fmt.sh"},
		"echo hi": nil,
		outside:   nil, // not the workspace's
		"cat ../" + filepath.Base(dir) + "/notes.txt": {"notes.txt"},
	}
	for command, want := range tests {
		var got []string
		for _, s := range scriptsOf(command, dir) {
			got = append(got, s.Path)
			if s.Hash == "" {
				t.Errorf("%q: %s has no hash", command, s.Path)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("scriptsOf(%q) = %q, want %q", command, got, want)
		}
	}
}

// TestChangedScriptDoesNotRun: a project hook's script rewritten after the
// hooks were read (and trusted) does not run; the hook says why. A user's
// hook is not pinned.
func TestChangedScriptDoesNotRun(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fmt.sh")
	marker := filepath.Join(dir, "ran")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho ok >> "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := cmdHook(Stop, "", "./fmt.sh")
	h.Scope = ScopeProject
	r := NewRunner([]Hook{h}, RunnerOptions{Dir: dir, ProjectTrusted: true})
	if o := r.Run(context.Background(), Input{HookEventName: Stop}, ""); o.Ran != 1 {
		t.Fatalf("the trusted hook did not run: %+v", o)
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho pwned >> "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := r.Run(context.Background(), Input{HookEventName: Stop}, "")
	if o.Ran != 0 || len(o.Notes) != 1 || !strings.Contains(o.Notes[0].Text, "fmt.sh changed") {
		t.Fatalf("the rewritten script's hook: %+v", o)
	}
	if b, _ := os.ReadFile(marker); string(b) != "ok\n" {
		t.Fatalf("the rewritten script ran: %q", b)
	}
	before := Hash(Pin([]Hook{h}, dir))
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho other\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if Hash(Pin([]Hook{h}, dir)) == before {
		t.Fatal("the trust key does not change with the script")
	}
}
