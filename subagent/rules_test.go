package subagent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/toolname"

	"covey/agentdefs"
	"covey/internal/scripted"
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
		return call{toolname.Bash, map[string]string{"command": cmd}, refused, has}
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
				{toolname.WriteFile, map[string]string{"path": "docs/a.md", "content": "a"}, false, ""},
				{toolname.WriteFile, map[string]string{"path": "main.go", "content": "x"}, true, "limits"},
			},
		},
		"Read(docs/**) limits reads": {
			file: "---\nname: reader\ndescription: d\ntools: Read(docs/**)\n---\np\n", mode: permission.ModeBypass,
			calls: []call{
				{toolname.ReadFile, map[string]string{"path": "docs/readme.md"}, false, "hello docs"},
				{toolname.ReadFile, map[string]string{"path": "auth.go"}, true, ""},
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

// askYes is a user who allows everything asked, noting the labels.
type askYes struct {
	asked  *int
	labels *[]string
}

func (a askYes) Ask(_ context.Context, req permission.Request) permission.Verdict {
	*a.asked++
	if a.labels != nil {
		*a.labels = append(*a.labels, req.Agent)
	}
	return permission.Verdict{Allowed: true}
}

// TestAskedBecauseOfTheAgentFileSaysSo checks that the user asked about a
// call only the agent file's rules hold back is told so.
func TestAskedBecauseOfTheAgentFileSaysSo(t *testing.T) {
	def, _, err := agentdefs.Parse("agent.md", []byte("---\nname: greeter\ndescription: d\ntools: Bash(echo hello:*)\n---\np\n"))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	var labels []string
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{def}, gate: func(root string) permission.Gate {
		p := permission.NewPolicy(permission.ModeBypass, nil, askYes{&asked, &labels})
		p.SetWorkspace(root)
		return p
	}})
	h.mainScript("go", task("greet", "greeter", "label-child"))
	h.child("label-child", scripted.Turn{ToolCalls: []scripted.Call{
		{ID: "c1", Name: toolname.Bash, Args: map[string]string{"command": "echo hello"}},
		{ID: "c2", Name: toolname.Bash, Args: map[string]string{"command": "ls"}},
	}}, scripted.Turn{Text: "done"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if asked != 1 || len(labels) != 1 || labels[0] != "greet [greeter] (outside its agent file's Bash(echo hello:*))" {
		t.Errorf("asked %d times, labels %q; want once, about ls, naming the rule", asked, labels)
	}
}

// TestPermissionModeOfTheChild checks an agent file's permissionMode: a
// stricter mode than the session's holds for its child, a looser one is
// capped unless config raises it, and dontAsk refuses what would be asked.
func TestPermissionModeOfTheChild(t *testing.T) {
	tests := map[string]struct {
		mode     string
		session  permission.Mode
		raise    bool
		asker    bool
		call     scripted.Call
		want     string // in the call's result
		asks     int
		wroteAny bool
	}{
		"default under bypass: a command is asked": {
			mode: "default", session: permission.ModeBypass, asker: true,
			call: scripted.Call{ID: "c1", Name: toolname.Bash, Args: map[string]string{"command": "echo hi"}}, want: "hi", asks: 1,
		},
		"default under bypass, headless: refused": {
			mode: "default", session: permission.ModeBypass,
			call: scripted.Call{ID: "c1", Name: toolname.Bash, Args: map[string]string{"command": "echo hi"}}, want: "needs permission",
		},
		"dontAsk: refused without asking": {
			mode: "dontAsk", session: permission.ModeDefault, asker: true,
			call: scripted.Call{ID: "c1", Name: toolname.Bash, Args: map[string]string{"command": "echo hi"}}, want: "dontAsk",
		},
		"plan under bypass: writing tools are not offered": {
			mode: "plan", session: permission.ModeBypass,
			call: scripted.Call{ID: "c1", Name: toolname.WriteFile, Args: map[string]string{"path": "x.txt", "content": "x"}}, want: "unknown tool",
		},
		"bypass under default is capped": {
			mode: "bypassPermissions", session: permission.ModeDefault,
			call: scripted.Call{ID: "c1", Name: toolname.Bash, Args: map[string]string{"command": "echo hi"}}, want: "needs permission",
		},
		"bypass under default, raised by config": {
			mode: "bypassPermissions", session: permission.ModeDefault, raise: true,
			call: scripted.Call{ID: "c1", Name: toolname.WriteFile, Args: map[string]string{"path": "x.txt", "content": "x"}}, want: "Created x.txt", wroteAny: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			def := agentdefs.Definition{Name: "moody", Description: "d", PermissionMode: tc.mode, Prompt: "p", Scope: agentdefs.Project}
			asked := 0
			h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{def}, raise: tc.raise, gate: func(root string) permission.Gate {
				var a permission.Asker
				if tc.asker {
					a = askYes{asked: &asked}
				}
				p := permission.NewPolicy(tc.session, nil, a)
				p.SetWorkspace(root)
				return p
			}})
			h.mainScript("go", task("moody", "moody", "moody-child"))
			h.child("moody-child", scripted.Turn{ToolCalls: []scripted.Call{tc.call}}, scripted.Turn{Text: "done"})
			if _, err := h.main.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, e := range h.srv.Journal() {
				for _, m := range e.Messages {
					if e.FirstUser == "moody-child" && m.Role == "tool" && m.ToolCallID == "c1" {
						got = m.Content
					}
				}
			}
			if !strings.Contains(got, tc.want) || asked != tc.asks {
				t.Errorf("result %q (asked %d times); want it to contain %q, asked %d times", got, asked, tc.want, tc.asks)
			}
			_, err := os.Stat(filepath.Join(h.manager.Workspace().Root, "x.txt"))
			if wrote := err == nil; wrote != tc.wroteAny {
				t.Errorf("x.txt written = %v, want %v", wrote, tc.wroteAny)
			}
		})
	}
}
