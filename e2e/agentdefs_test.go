package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// gitReader is a Claude Code agent file whose bash is limited to git
// status; its name has a blank, and the main agent asks for it as
// "git-reader", which covey's lookup finds.
const gitReader = "---\nname: Git Reader\ndescription: Reports the state of the working tree.\ntools: Read, Bash(git status:*)\n---\nYou report what git says.\n"

// TestHeadlessRestrictedAgent runs a child whose agent file allows only
// Bash(git status:*): git status runs, anything else is refused without
// anybody asked, even when the session's mode would allow everything.
func TestHeadlessRestrictedAgent(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args   []string
		config string
	}{
		"bypassPermissions session": {args: []string{"--permission-mode", "bypassPermissions"}},
		"default session with an allow rule": {
			config: "permissions:\n  allow: [\"bash(git status:*)\", \"bash(ls:*)\"]\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			files := sampleFiles()
			files[".claude/agents/git-reader.md"] = gitReader
			if tc.config != "" {
				files[".covey/config.yaml"] = tc.config
			}
			h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
			h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{
					"description": "check the tree", "subagent_type": "git-reader", "prompt": "[e2e:restricted] What is the state?",
				}}}},
				{Text: "The tree was checked."},
			}})
			h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:restricted]"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{
					{ID: "call_status", Name: "bash", Args: map[string]any{"command": "git status"}},
					{ID: "call_ls", Name: "bash", Args: map[string]any{"command": "ls"}},
					{ID: "call_rm", Name: "bash", Args: map[string]any{"command": "git status && rm greet.go"}},
				}},
				{Text: "git status ran; the rest was refused."},
			}})
			r := h.run(t, "", append([]string{"-p", "check the tree"}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			results := map[string]string{}
			for _, e := range h.srv.Journal() {
				if e.Conversation != "child" {
					continue
				}
				for _, m := range e.Messages {
					if m.Role == "tool" {
						results[m.ToolCallID] = m.Content
					}
				}
			}
			if got := results["call_status"]; !strings.Contains(got, "On branch") {
				t.Errorf("git status: %q, want its output", got)
			}
			// ls: the session allows it (bypass, or its allow rule), the
			// agent's rule does not.
			if got := results["call_ls"]; !strings.Contains(got, "limits bash") || !strings.Contains(got, "git status:*") {
				t.Errorf("ls: %q, want a refusal naming the agent's rule", got)
			}
			if got := results["call_rm"]; !strings.Contains(got, "not allowed") {
				t.Errorf("git status && rm: %q, want it refused", got)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "greet.go")); err != nil {
				t.Errorf("greet.go is gone: %v", err)
			}
			if strings.Contains(r.stderr, "agent file") {
				t.Errorf("a valid agent file was reported on stderr:\n%s", r.stderr)
			}
		})
	}
}
