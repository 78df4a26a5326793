package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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
			args:   []string{"--trust-project"}, // allow rules need the user's trust
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

// TestHeadlessModelAlias runs a child whose agent file says model: sonnet,
// and one with a full Claude id of the haiku family, under config's
// model_aliases: each reaches the scripted server under its mapped name. A
// third says opus, which nothing maps: it runs the parent's model, and the
// run says so once on stderr.
func TestHeadlessModelAlias(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	// The poet's description is long and holds an example block that strict
	// YAML rejects: the task tool must carry all of it to the model.
	poetDesc := "Writes verse about the code base when asked for a poem, a limerick or a haiku. " + strings.Repeat("It rhymes carefully. ", 12) +
		"Examples:\n  <example>\n  user: \"Write a limerick about greet.go\"\n  assistant: \"I'll ask the poet agent for it.\"\n  </example>"
	files[".claude/agents/poet.md"] = "---\nname: poet\ndescription: " + poetDesc + "\ntools: Read\nmodel: sonnet\n---\nYou write verse.\n"
	files[".claude/agents/quick.md"] = "---\nname: quick\ndescription: Answers fast.\ntools: Read\nmodel: claude-haiku-4-5-20251001\n---\nYou answer fast.\n"
	files[".claude/agents/big.md"] = "---\nname: big\ndescription: Thinks hard.\ntools: Read\nmodel: opus\n---\nYou think hard.\n"
	files[".covey/config.yaml"] = "model_aliases:\n  sonnet: e2e-coder\n  haiku: e2e-small\n"
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
	task := func(id, typ, marker string) scripted.Call {
		return scripted.Call{ID: id, Name: "task", Args: map[string]any{"description": typ, "subagent_type": typ, "prompt": marker}}
	}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{task("t1", "poet", "[e2e:poet]"), task("t2", "quick", "[e2e:quick]"), task("t3", "big", "[e2e:big]")}},
		{Text: "All three answered."},
	}})
	for marker, model := range map[string]string{"[e2e:poet]": "e2e-coder", "[e2e:quick]": "e2e-small", "[e2e:big]": "e2e-model"} {
		h.srv.Add(scripted.Conversation{Name: marker, Match: scripted.Match{FirstUser: marker, Model: model},
			Turns: []scripted.Turn{{Text: "answered by " + model}}})
	}
	r := h.run(t, "", "-p", "ask all three")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	seen := map[string]string{}
	for _, e := range h.srv.Journal() {
		seen[e.Conversation] = e.Model
	}
	for marker, model := range map[string]string{"[e2e:poet]": "e2e-coder", "[e2e:quick]": "e2e-small", "[e2e:big]": "e2e-model"} {
		if seen[marker] != model {
			t.Errorf("%s reached the server as %q, want %q (journal: %v)", marker, seen[marker], model, seen)
		}
	}
	// The task tool's description, as the server got it, has the poet's
	// whole description, example included.
	var body struct {
		Tools []struct {
			Function struct{ Name, Description string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(lastRequest(t, h.srv, "main").Body, &body); err != nil {
		t.Fatal(err)
	}
	taskDesc := ""
	for _, tl := range body.Tools {
		if tl.Function.Name == "task" {
			taskDesc = tl.Function.Description
		}
	}
	for _, want := range []string{strings.Repeat("It rhymes carefully. ", 12), `user: "Write a limerick about greet.go"`, `assistant: "I'll ask the poet agent for it."`} {
		if !strings.Contains(taskDesc, want) {
			t.Errorf("the task tool's description lacks %q:\n%s", want, taskDesc)
		}
	}
	if n := strings.Count(r.stderr, `model "opus" has no mapping`); n != 1 {
		t.Errorf("stderr names the unmapped alias %d times, want once:\n%s", n, r.stderr)
	}
	t.Run("covey agents shows the resolved models", func(t *testing.T) {
		r := runCovey(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "", "--model", "e2e-model", "agents", "--json")
		if r.code != 0 {
			t.Fatalf("exit %d (warnings alone must give 0)\nstderr:\n%s", r.code, r.stderr)
		}
		var out struct {
			Agents []struct {
				Name, Model   string
				ResolvedModel string `json:"resolved_model"`
			} `json:"agents"`
			Problems []struct {
				Field   string `json:"field"`
				Warning bool   `json:"warning"`
			} `json:"problems"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, r.stdout)
		}
		got := map[string]string{}
		for _, a := range out.Agents {
			got[a.Name] = a.ResolvedModel
		}
		want := map[string]string{"poet": "e2e-coder", "quick": "e2e-small", "big": "e2e-model"}
		for n, m := range want {
			if got[n] != m {
				t.Errorf("%s resolves to %q, want %q", n, got[n], m)
			}
		}
		// Warnings only: the poet's frontmatter read line by line, and opus.
		if len(out.Problems) != 2 || out.Problems[0].Field != "description" || out.Problems[1].Field != "model" ||
			!out.Problems[0].Warning || !out.Problems[1].Warning {
			t.Errorf("problems = %+v, want a description and a model warning", out.Problems)
		}
	})
}

// TestAgentFileProblems checks how problems are told: covey agents lists
// them once per file and exits 1 for an error, --json carries them, and a
// headless run prints them once on stderr.
func TestAgentFileProblems(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files[".claude/agents/strangers.md"] = "---\nname: strangers\ndescription: Lists only tools covey lacks.\ntools: NotebookEdit, ExitPlanMode\n---\np\n"
	files[".claude/agents/chatty.md"] = "---\nname: chatty\ndescription: Use it when: the user asks. Note: it warns.\ntools: Read, KillShell\nmaxTurns: many\n---\np\n"
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
	env := h.box.env("OPENAI_BASE_URL=" + h.srv.URL())

	r := runCovey(t, h.ws, env, "", "--model", "e2e-model", "agents")
	if r.code != 1 {
		t.Errorf("covey agents exit %d, want 1 for a file with an error\nstdout:\n%s", r.code, r.stdout)
	}
	for _, file := range []string{"strangers.md", "chatty.md"} {
		heading := regexp.MustCompile(`(?m)^  \S+/` + regexp.QuoteMeta(file) + `$`)
		if n := len(heading.FindAllString(r.stdout, -1)); n != 1 {
			t.Errorf("%s is named %d times as a heading, want once:\n%s", file, n, r.stdout)
		}
	}
	for _, want := range []string{"error   line 4 (tools)", "warning line 5 (maxTurns)", "KillShell", "1 error and 3 warnings in agent files"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("covey agents lacks %q:\n%s", want, r.stdout)
		}
	}

	r = runCovey(t, h.ws, env, "", "--model", "e2e-model", "agents", "--json")
	var out struct {
		Problems []struct {
			Path, Field, Message string
			Line                 int
			Warning              bool
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 1 || len(out.Problems) != 4 {
		t.Errorf("--json: exit %d, %v, problems %+v; want exit 1 and 4 problems", r.code, err, out.Problems)
	}

	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{Text: "hello"}}})
	r = h.run(t, "", "-p", "hi")
	if r.code != 0 || r.stdout != "hello\n" {
		t.Errorf("headless: exit %d, stdout %q", r.code, r.stdout)
	}
	if n := strings.Count(r.stderr, "strangers.md"); n != 1 {
		t.Errorf("headless stderr names strangers.md %d times, want once:\n%s", n, r.stderr)
	}
	if n := strings.Count(r.stderr, `got "many"`); n != 1 {
		t.Errorf("headless stderr tells of maxTurns: many %d times, want once:\n%s", n, r.stderr)
	}
}

// TestTUIAgentFiles checks the TUI's side: a one-line notice at start
// counts the agent files' problems, /agents lists the agents with their
// rules and the problems by file, and an agent file's color paints its
// pane's [type] (red: the theme's error colour, 256-colour 204 in the dark
// theme, not the accent 176 other types get).
func TestTUIAgentFiles(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files[".claude/agents/reviewer.md"] = "---\nname: Code Reviewer\ndescription: Reviews the diff.\ntools: Read, Bash(git diff:*)\ncolor: red\n---\nYou review.\n"
	files[".claude/agents/strangers.md"] = "---\nname: strangers\ndescription: Lists only tools covey lacks.\ntools: NotebookEdit\n---\np\n"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_rev", Name: "task", Args: map[string]any{
			"description": "look at the diff", "subagent_type": "code reviewer", "prompt": "[e2e:tui-rev] review",
		}}}},
		{Text: "Reviewed."},
	}})
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:tui-rev]"}, Turns: []scripted.Turn{
		{Text: "Nothing to review.", Delay: 1500 * time.Millisecond},
	}})
	ws := workspace(t, files)
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText("1 problem (1 kept a file from loading) in 1 agent file: /agents lists them", helpLine)

	tm.submit("/agents")
	tm.waitText("Code Reviewer (", "tools: read_file, Bash(git diff:*)", "colour: red", "Problems in agent files:", "strangers.md",
		"error   line 4 (tools): covey has none of NotebookEdit")

	tm.submit("review please")
	tm.waitMatch(typedPaneRe("Code Reviewer", "look at the diff"))
	colour := tm.colorScreen()
	i := strings.Index(colour, "[Code Reviewer]")
	if i < 0 || !strings.Contains(colour[max(0, i-40):i], "38;5;204") {
		t.Errorf("the pane's [Code Reviewer] is not in the theme's red:\n%q", colour[max(0, i-80):min(len(colour), i+40)])
	}
	tm.waitText("Reviewed.")
}
