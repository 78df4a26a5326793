package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/sandbox/sandboxtest"
)

// TestSandboxBypassPermissions: in bypassPermissions, where the gate lets
// every command through, a bash call still cannot write outside the
// workspace; the model is told why; --sandbox off restores the old
// behaviour.
func TestSandboxBypassPermissions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		flags   []string
		blocked bool
	}{
		{"sandboxed by default", nil, true},
		{"workspace-write", []string{"--sandbox", "workspace-write"}, true},
		{"off", []string{"--sandbox", "off"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHeadlessRun(t)
			outside := filepath.Join(sandboxtest.OutsideTemp(t, ".covey-e2e-outside-"), "pwned.txt")
			command := "echo inside > inside.txt; echo pwned > " + outside + "; echo child-$( (echo deep > " + outside + ".2) 2>&1 | head -c 0)done"
			h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": command})}},
				{Text: "SANDBOX DONE"},
			}})
			r := h.run(t, "", append([]string{"-p", "write a file", "--permission-mode", "bypassPermissions"}, tt.flags...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			if b, err := os.ReadFile(filepath.Join(h.ws, "inside.txt")); err != nil || string(b) != "inside\n" {
				t.Errorf("the write inside the workspace: %q %v", b, err)
			}
			for _, p := range []string{outside, outside + ".2"} {
				_, err := os.Stat(p)
				if tt.blocked && err == nil {
					t.Errorf("%s was written through the sandbox", p)
				}
				if !tt.blocked && err != nil {
					t.Errorf("--sandbox off: %s was not written: %v", p, err)
				}
			}
			var result string
			for _, e := range h.srv.Journal() {
				for _, m := range e.Messages {
					if m.Role == "tool" {
						result = m.Content
					}
				}
			}
			const note = "read-only file system: writes outside the workspace are blocked by covey's sandbox; see --sandbox"
			if tt.blocked != strings.Contains(result, note) {
				t.Errorf("tool result (blocked=%v) = %q", tt.blocked, result)
			}
		})
	}
}

// TestSandboxChildBypassPermissions: a child's bash calls run in the
// sandbox too.
func TestSandboxChildBypassPermissions(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	outside := filepath.Join(sandboxtest.OutsideTemp(t, ".covey-e2e-outside-"), "child-pwned.txt")
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_sbtask", Name: "task", Args: map[string]any{
			"description": "write files", "subagent_type": "general-purpose", "prompt": "[e2e:sandbox-child] write the files",
		}}}},
		{Text: "MAIN DONE"},
	}})
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:sandbox-child]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "echo child > child-inside.txt; echo pwned > " + outside})}},
		{Text: "CHILD DONE"},
	}})
	r := h.run(t, "", "-p", "delegate", "--permission-mode", "bypassPermissions")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "child-inside.txt")); err != nil {
		t.Errorf("the child's write inside the workspace: %v", err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the child wrote %s through the sandbox", outside)
	}
	blocked := false
	for _, e := range h.srv.Journal() {
		if e.Conversation != "child" {
			continue
		}
		for _, m := range e.Messages {
			if m.Role == "tool" && strings.Contains(m.Content, "blocked by covey's sandbox") {
				blocked = true
			}
		}
	}
	if !blocked {
		t.Error("the child's tool result does not say the sandbox blocked the write")
	}
}
