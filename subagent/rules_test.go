package subagent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/agentdefs"
	"covey/e2e/scripted"
	"covey/permission"
)

// TestToolRulesScopeTheChild checks that an agent file's Bash(...),
// Edit(...) and Read(...) patterns and its disallowedTools patterns hold
// for its child: what they allow runs (as far as the session's mode
// allows), anything else is refused when nobody can be asked, in every
// mode, bypassPermissions included.
func TestToolRulesScopeTheChild(t *testing.T) {
	type call struct {
		tool    string
		args    map[string]string
		refused bool
		has     string // the result contains this
	}
	bash := func(cmd string, refused bool, has string) call {
		return call{"bash", map[string]string{"command": cmd}, refused, has}
	}
	tests := map[string]struct {
		file  string
		mode  permission.Mode
		calls []call
	}{
		"Bash(echo hello:*) in bypass: echo runs, ls does not": {
			file: "---\nname: greeter\ndescription: d\ntools: Bash(echo hello:*)\n---\np\n", mode: permission.ModeBypass,
			calls: []call{
				bash("echo hello world", false, "hello world"),
				bash("ls", true, "limits bash"),
				bash("echo hello && ls", true, "limits bash"),
			},
		},
		"Bash(echo hello:*) in default mode asks the session, which refuses headless": {
			file: "---\nname: greeter\ndescription: d\ntools: Bash(echo hello:*)\n---\np\n", mode: permission.ModeDefault,
			calls: []call{bash("echo hello", true, "nobody can be asked")},
		},
		"Edit(docs/**) in acceptEdits": {
			file: "---\nname: writer\ndescription: d\ntools: Read, Write, Edit(docs/**)\n---\np\n", mode: permission.ModeAcceptEdits,
			calls: []call{
				{"write_file", map[string]string{"path": "docs/a.md", "content": "a"}, false, ""},
				{"write_file", map[string]string{"path": "main.go", "content": "x"}, true, "limits"},
			},
		},
		"Read(docs/**) limits reads": {
			file: "---\nname: reader\ndescription: d\ntools: Read(docs/**)\n---\np\n", mode: permission.ModeBypass,
			calls: []call{
				{"read_file", map[string]string{"path": "docs/readme.md"}, false, "hello docs"},
				{"read_file", map[string]string{"path": "auth.go"}, true, ""},
			},
		},
		"disallowedTools Bash(rm:*) in bypass": {
			file: "---\nname: careful\ndescription: d\ntools: Bash\ndisallowedTools: Bash(rm:*)\n---\np\n", mode: permission.ModeBypass,
			calls: []call{
				bash("echo fine", false, "fine"),
				bash("rm auth.go", true, "Bash(rm:*)"),
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			def, _, err := agentdefs.Parse("agent.md", []byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{def}, gate: func(root string) permission.Gate {
				p := permission.NewPolicy(tc.mode, nil, nil)
				p.SetWorkspace(root)
				return p
			}})
			root := h.manager.Workspace().Root
			if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "docs", "readme.md"), []byte("hello docs\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var calls []scripted.Call
			for i, c := range tc.calls {
				calls = append(calls, scripted.Call{ID: "c" + string(rune('1'+i)), Name: c.tool, Args: c.args})
			}
			h.mainScript("go", task("scoped", def.Name, "scoped-child"))
			h.child("scoped-child", scripted.Turn{ToolCalls: calls}, scripted.Turn{Text: "done"})
			if _, err := h.main.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			results := map[string]string{}
			for _, e := range h.srv.Journal() {
				if e.FirstUser != "scoped-child" {
					continue
				}
				for _, m := range e.Messages {
					if m.Role == "tool" {
						results[m.ToolCallID] = m.Content
					}
				}
			}
			for i, c := range tc.calls {
				got, ok := results["c"+string(rune('1'+i))]
				if !ok {
					t.Fatalf("no result for call %d; task result: %s", i+1, h.taskResult("task_1"))
				}
				refused := strings.Contains(got, "refused") || strings.Contains(got, "denied") || strings.Contains(got, "needs permission") ||
					strings.Contains(got, "not allowed") || strings.Contains(got, "limits")
				if refused != c.refused || !strings.Contains(got, c.has) {
					t.Errorf("%s %v: result %q; want refused=%v containing %q", c.tool, c.args, got, c.refused, c.has)
				}
			}
			if _, err := os.Stat(filepath.Join(root, "auth.go")); err != nil {
				t.Errorf("auth.go is gone: %v", err)
			}
			if _, err := os.Stat(filepath.Join(root, "main.go")); err == nil {
				t.Error("main.go was written outside Edit(docs/**)")
			}
		})
	}
}

// TestToolRulesNeedAScopingGate checks that a child whose rules the gate
// cannot enforce never starts.
func TestToolRulesNeedAScopingGate(t *testing.T) {
	def, _, err := agentdefs.Parse("agent.md", []byte("---\nname: greeter\ndescription: d\ntools: Bash(echo:*)\n---\np\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{def}, gate: func(string) permission.Gate {
		return permission.GateFunc(func(context.Context, permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} })
	}})
	h.mainScript("go", task("scoped", "greeter", "never-runs"))
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.taskResult("task_1"); !strings.Contains(got, "cannot be enforced") {
		t.Errorf("task result %q, want the child refused to start", got)
	}
	for _, e := range h.srv.Journal() {
		if e.FirstUser == "never-runs" {
			t.Fatal("the child ran")
		}
	}
}
