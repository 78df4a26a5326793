package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// writeHome writes files (path → content) under the sandbox's home.
func writeHome(t *testing.T, box sandbox, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(box.home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// userText joins the user messages of a request.
func userText(e scripted.Entry) string {
	var parts []string
	for _, m := range e.Messages {
		if m.Role == "user" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// toolResults joins the tool results of a request.
func toolResults(e scripted.Entry) string {
	var parts []string
	for _, m := range e.Messages {
		if m.Role == "tool" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// TestSlashCommandHeadless runs the user's slash commands with -p: the
// server gets the expanded body (arguments, an @file, a !`command`'s
// output), on the command's model; a subfolder namespaces a user-level
// command; a !`command` the gate would ask about is refused headless and
// nothing is sent; allowed-tools keeps other tools out of the turn.
func TestSlashCommandHeadless(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files[".claude/commands/fix.md"] = "---\ndescription: Fix an issue\nargument-hint: [issue] [how]\nmodel: haiku\n---\n" +
		"Fix issue $0 ($1), all of it: $ARGUMENTS.\nThe code: @greet.go\nBranch: !`echo BANG-OUTPUT`\nQuiet: !`true` (nothing)\nFailing: !`false`\n"
	files[".claude/commands/danger.md"] = "Clean up: !`rm -rf build`\n"
	files[".claude/commands/readonly.md"] = "---\nallowed-tools: Read, Grep\n---\nLook only.\n"
	files[".covey/config.yaml"] = "model_aliases:\n  haiku: e2e-small\npermissions:\n  allow: [\"bash(echo:*)\", \"bash(true)\", \"bash(false)\"]\n"

	t.Run("expands", func(t *testing.T) {
		t.Parallel()
		h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
		writeHome(t, h.box, map[string]string{".claude/commands/frontend/component.md": "---\ndescription: a component\n---\nMake the $ARGUMENTS component.\n"})
		h.srv.Add(scripted.Conversation{Name: "fix", Match: scripted.Match{FirstUser: "Fix issue", Model: "e2e-small"}, Turns: []scripted.Turn{{Text: "fixed"}}})
		h.srv.Add(scripted.Conversation{Name: "component", Match: scripted.Match{FirstUser: "Make the Button component."}, Turns: []scripted.Turn{{Text: "made"}}})
		fixRun := h.run(t, "", "-p", `/fix 42 "right now"`, "--trust-project") // the allow rule needs trust
		if fixRun.code != 0 || strings.TrimSpace(fixRun.stdout) != "fixed" {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", fixRun.code, fixRun.stdout, fixRun.stderr)
		}
		r := h.run(t, "", "-p", "/frontend:component Button")
		if r.code != 0 || strings.TrimSpace(r.stdout) != "made" {
			t.Fatalf("namespaced: exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		var fix scripted.Entry
		for _, e := range h.srv.Journal() {
			if e.Conversation == "fix" {
				fix = e
			}
		}
		got := userText(fix)
		for _, want := range []string{"Fix issue 42 (right now), all of it: 42 \"right now\".", "The code: @greet.go", "Branch: BANG-OUTPUT\nQuiet:  (nothing)\nFailing: [exit code 1]",
			"<file path=\"greet.go\">\npackage main", "func greeting() string"} {
			if !strings.Contains(got, want) {
				t.Errorf("the request's user message lacks %q:\n%s", want, got)
			}
		}
		if strings.Contains(got, "$ARGUMENTS") || strings.Contains(got, "!`") {
			t.Errorf("the body was not expanded:\n%s", got)
		}
		if !strings.Contains(fixRun.stderr, "echo BANG-OUTPUT") {
			t.Errorf("the !`command` is not shown on stderr:\n%s", fixRun.stderr)
		}
	})

	t.Run("refused command sends nothing", func(t *testing.T) {
		t.Parallel()
		h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
		h.srv.AllowUnmatched()
		r := h.run(t, "", "-p", "/danger")
		if r.code == 0 || !strings.Contains(r.stderr, "/danger was not sent") || !strings.Contains(r.stderr, "rm -rf build") {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		if n := len(h.srv.Journal()); n != 0 {
			t.Errorf("%d requests reached the server", n)
		}
	})

	t.Run("allowed-tools", func(t *testing.T) {
		t.Parallel()
		h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
		h.srv.Add(scripted.Conversation{Name: "ro", Match: scripted.Match{FirstUser: "Look only."}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "echo hi"}), call("read_file", map[string]any{"path": "greet.go"})}},
			{Text: "looked"},
		}})
		r := h.run(t, "", "--permission-mode", "bypassPermissions", "-p", "/readonly")
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		j := h.srv.Journal()
		res := toolResults(j[len(j)-1])
		if !strings.Contains(res, "bash is not among the allowed-tools of /readonly") || !strings.Contains(res, "func greeting") {
			t.Errorf("tool results:\n%s", res)
		}
	})
}

// TestSkillHeadless checks that the model sees a skill's name and
// description but not its body, that the skill tool returns the body,
// and that read_file reads the skill's other files though its folder is
// outside the workspace.
func TestSkillHeadless(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	writeHome(t, h.box, map[string]string{
		".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms for the user.\n---\nSKILL-BODY-MARKER: read forms.md first.\n",
		".claude/skills/pdf/forms.md": "FORMS-FILE-MARKER\n",
	})
	forms := filepath.Join(h.box.home, ".claude/skills/pdf/forms.md")
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("skill", map[string]any{"name": "pdf"})}},
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": forms})}},
		{Text: "done"},
	}})
	r := h.run(t, "", "-p", "fill the form")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	j := h.srv.Journal()
	if len(j) != 3 {
		t.Fatalf("%d requests, want 3", len(j))
	}
	first := string(j[0].Body)
	if !strings.Contains(first, "pdf: Fill PDF forms for the user.") {
		t.Errorf("the first request does not list the skill:\n%s", first)
	}
	if strings.Contains(first, "SKILL-BODY-MARKER") {
		t.Error("the skill's body is in the first request")
	}
	if res := toolResults(j[1]); !strings.Contains(res, "SKILL-BODY-MARKER") {
		t.Errorf("the skill call returned:\n%s", res)
	}
	if res := toolResults(j[2]); !strings.Contains(res, "FORMS-FILE-MARKER") {
		t.Errorf("reading the skill's file returned:\n%s", res)
	}
}

// TestMemoryHeadless checks that user-level memory, the repository's and
// their @imports reach the first request, and that a subfolder's
// AGENTS.md joins with the first read of a file there.
func TestMemoryHeadless(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files["AGENTS.md"] = "PROJECT-MEMORY; see @docs/rules.md\n"
	files["docs/rules.md"] = "IMPORTED-RULES\n"
	files["internal/x/AGENTS.md"] = "NESTED-MEMORY\n"
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
	writeHome(t, h.box, map[string]string{
		".claude/CLAUDE.md":       "USER-MEMORY @~/notes/style.md\n",
		"notes/style.md":          "IMPORTED-STYLE\n",
		".config/covey/AGENTS.md": "COVEY-USER-MEMORY\n",
	})
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "internal/x/x.go"})}},
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "internal/x/x.go"})}},
		{Text: "done"},
	}})
	r := h.run(t, "", "-p", "what is the answer?")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	j := h.srv.Journal()
	if len(j) != 3 {
		t.Fatalf("%d requests, want 3", len(j))
	}
	sys := j[0].System
	for _, want := range []string{"USER-MEMORY", "IMPORTED-STYLE", "COVEY-USER-MEMORY", "PROJECT-MEMORY", "IMPORTED-RULES"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the first request's system prompt lacks %s:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "NESTED-MEMORY") {
		t.Error("a subfolder's memory is in the first request")
	}
	if res := toolResults(j[1]); !strings.Contains(res, "NESTED-MEMORY") || !strings.Contains(res, "Answer = 42") {
		t.Errorf("the first read of internal/x returned:\n%s", res)
	}
	if res := toolResults(j[2]); strings.Count(res, "NESTED-MEMORY") != 1 {
		t.Errorf("the subfolder's memory joined more than once:\n%s", res)
	}
}

// TestExtensionsTUI checks in a real terminal that / completion offers a
// custom command with its description, that the command runs as a turn,
// and that /skills and /memory list what loaded.
func TestExtensionsTUI(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	srv := scriptedtest.New(t)
	files := sampleFiles()
	files[".claude/commands/review.md"] = "---\ndescription: Review the staged diff carefully\nargument-hint: [focus]\n---\nREVIEW-BODY focusing on $ARGUMENTS\nState: !`echo TUI-BANG-OUT`\n"
	files[".covey/config.yaml"] = "permissions:\n  allow: [\"bash(echo:*)\"]\n"
	files["AGENTS.md"] = "Project notes for agents.\n"
	ws := workspace(t, files)
	box := newSandbox(t)
	writeHome(t, box, map[string]string{
		".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms.\n---\nbody\n",
		".claude/CLAUDE.md":           "User notes.\n",
	})
	srv.Add(scripted.Conversation{Name: "review", Match: scripted.Match{FirstUser: "REVIEW-BODY focusing on errors"}, Turns: []scripted.Turn{{Text: "E2E-REVIEWED"}}})
	// The allow rule needs the user's trust.
	tm := startTUI(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model", "--trust-project")
	tm.waitText(helpLine)

	tm.typeText("/rev")
	tm.waitText("/review [focus]", "Review the staged diff carefully")
	tm.typeText("iew errors")
	tm.press("Enter")
	// The command's !`command` shows as a bash call of the turn.
	tm.waitText("E2E-REVIEWED", "echo TUI-BANG-OUT")

	tm.submit("/skills")
	tm.waitText("Skills (1;", "pdf (~/.claude/skills/pdf)", "Fill PDF forms.")
	tm.submit("/memory")
	tm.waitText("Memory (2 files", "~/.claude/CLAUDE.md · user · 3 tokens")
	// The workspace's file is shown relative to it.
	tm.waitMatch(regexp.MustCompile(`(?m)\s AGENTS\.md · project · 7 tokens`))
}

// TestInitHeadless runs /init: the main agent gets the prompt to survey
// the repository with Explore children, and its AGENTS.md goes through
// write_file (here in acceptEdits mode, so no one is asked).
func TestInitHeadless(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "Write (or improve) AGENTS.md"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_init1", Name: "task", Args: map[string]any{
			"description": "how to build", "subagent_type": "Explore", "prompt": "[e2e:init] How is this built and tested?"}}}},
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "AGENTS.md", "content": "# Notes\n\nTest with go test ./...\n"})}},
		{Text: "Wrote AGENTS.md."},
	}})
	h.srv.Add(scripted.Conversation{Name: "explore", Match: scripted.Match{FirstUser: "[e2e:init]"}, Turns: []scripted.Turn{{Text: "go build; go test ./..."}}})
	r := h.run(t, "", "--permission-mode", "acceptEdits", "-p", "/init")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Wrote AGENTS.md." {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(h.ws, "AGENTS.md"))
	if err != nil || !strings.Contains(string(data), "go test ./...") {
		t.Fatalf("AGENTS.md = %q, %v", data, err)
	}
	first := userText(h.srv.Journal()[0])
	if !strings.Contains(first, "Explore subagents in ONE message") {
		t.Errorf("the /init prompt:\n%s", first)
	}
}

// TestAgentSkillsHeadless checks that an agent file's skills: gives its
// child the skill tool with those skills only, and that a child without
// skills: has none.
func TestAgentSkillsHeadless(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files[".claude/agents/filler.md"] = "---\nname: filler\ndescription: Fills forms.\ntools: Read\nskills: [pdf]\n---\nYou fill forms.\n"
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
	writeHome(t, h.box, map[string]string{
		".claude/skills/pdf/SKILL.md":     "---\nname: pdf\ndescription: Fill PDF forms.\n---\nPDF-SKILL-BODY\n",
		".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release.\n---\nrelease body\n",
	})
	task := func(id, typ, marker string) scripted.Call {
		return scripted.Call{ID: id, Name: "task", Args: map[string]any{"description": typ, "subagent_type": typ, "prompt": marker}}
	}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{task("t1", "filler", "[e2e:filler]"), task("t2", "Explore", "[e2e:explore]")}},
		{Text: "both done"},
	}})
	h.srv.Add(scripted.Conversation{Name: "filler", Match: scripted.Match{FirstUser: "[e2e:filler]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("skill", map[string]any{"name": "pdf"})}},
		{Text: "filled"},
	}})
	h.srv.Add(scripted.Conversation{Name: "explore", Match: scripted.Match{FirstUser: "[e2e:explore]"}, Turns: []scripted.Turn{{Text: "explored"}}})
	r := h.run(t, "", "-p", "fill and explore")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var sawSkill bool
	for _, e := range h.srv.Journal() {
		switch e.Conversation {
		case "filler":
			body := string(e.Body)
			if !strings.Contains(body, "pdf: Fill PDF forms.") || strings.Contains(body, "release: Cut a release.") {
				t.Errorf("the filler's tools do not offer pdf alone:\n%s", body)
			}
			if strings.Contains(toolResults(e), "PDF-SKILL-BODY") {
				sawSkill = true
			}
		case "explore":
			if strings.Contains(strings.Join(e.Tools, ","), "skill") {
				t.Errorf("Explore, without skills:, has the skill tool: %v", e.Tools)
			}
		}
	}
	if !sawSkill {
		t.Error("the filler's skill call did not return the body")
	}
}

// TestSlashCommandUserPromptSubmitHook: a UserPromptSubmit hook sees the
// command as typed, and what it adds follows the expanded body.
func TestSlashCommandUserPromptSubmitHook(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	box := newSandbox(t)
	files := sampleFiles()
	files[".claude/commands/due.md"] = "DUE-BODY for $ARGUMENTS\n"
	ws := workspace(t, files)
	hookHome(t, box, map[string][]map[string]any{
		"UserPromptSubmit": {group("", "cat > \"$HOME/prompt.json\"; echo 'HOOK-CONTEXT'")},
	})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "DUE-BODY for the sprint"}, Turns: []scripted.Turn{{Text: "Friday."}}})
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "/due the sprint")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	user := userText(srv.Journal()[0])
	if !strings.HasPrefix(user, "DUE-BODY for the sprint") || !strings.Contains(user, "HOOK-CONTEXT") {
		t.Errorf("first user message = %q", user)
	}
	data, _ := os.ReadFile(filepath.Join(box.home, "prompt.json"))
	if !strings.Contains(string(data), `"prompt":"/due the sprint"`) {
		t.Errorf("hook stdin = %s", data)
	}
}
