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

// claudeProject is a repository's .claude folder written the way real
// ones are: a namespaced command with a colon in its file name, $0 and a
// $8 nobody types, a description a template left as a YAML mapping,
// allowed-tools naming tools covey lacks, keys covey has no use for; a
// skill without a description; a command and a skill of one name; a
// settings file with Claude Code's newer hook events and a status line.
func claudeProject() map[string]string {
	files := sampleFiles()
	files[".claude/commands/git/commit:amend.md"] = "---\ndescription: {{DESCRIPTION}}\nargument-hint: [message] [scope]\n" +
		"allowed-tools: Bash(git commit:*), NotebookEdit, WebSearch, AskUserQuestion\narguments: [message]\ndisallowed-tools: Write\n" +
		"disable-model-invocation: true\n---\n" +
		"AMEND with $0 in $1, price $5M, missing $8, all: $ARGUMENTS\n" +
		"Quoted \"!`echo NOT-RUN`\" stays, usage [@FILE] stays.\n"
	files[".claude/commands/deploy.md"] = "COMMAND-DEPLOY-BODY\n"
	files[".claude/skills/deploy/SKILL.md"] = "---\nname: deploy\ndisable-model-invocation: true\nmodel: inherit\nargument-hint: [env]\neffort: high\n---\nSKILL-DEPLOY-BODY to $0\n"
	files[".claude/skills/tidy/SKILL.md"] = "---\nname: tidy\nallowed-tools: Read, NotebookEdit\nuser-invocable: true\ncontext: default\n---\n# Tidy\n\nTidy the imports of a Go file\nwith goimports.\n\nSteps follow.\n"
	files[".claude/agents/reviewer.md"] = "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep, TaskOutput\nmodel: sonnet\ncolor: blue\n---\nReview.\n"
	files[".claude/settings.json"] = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {"allow": ["Bash(ls*)", "WebFetch(*)", "WebSearch"], "deny": ["Read(./.env)"]},
  "hooks": {
    "Setup": [{"hooks": [{"type": "command", "command": "true"}]}],
    "ConfigChange": [{"hooks": [{"type": "command", "command": "true"}]}],
    "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work done?"}]}]
  },
  "enabledPlugins": {},
  "model": "sonnet"
}`
	files[".covey/config.yaml"] = "model_aliases:\n  sonnet: e2e-model\n"
	return files
}

// TestClaudeCodeProjectHeadless runs covey -p in a repository holding only
// valid Claude Code files: it prints no warning, and the commands and
// skills expand as Claude Code expands them.
func TestClaudeCodeProjectHeadless(t *testing.T) {
	t.Parallel()
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, claudeProject()), box: newSandbox(t)}
	h.srv.Add(scripted.Conversation{Name: "amend", Match: scripted.Match{FirstUser: "AMEND with"}, Turns: []scripted.Turn{{Text: "amended"}}})
	h.srv.Add(scripted.Conversation{Name: "deploy", Match: scripted.Match{FirstUser: "SKILL-DEPLOY-BODY"}, Turns: []scripted.Turn{{Text: "deployed"}}})
	h.srv.Add(scripted.Conversation{Name: "tidy", Match: scripted.Match{FirstUser: "Tidy the imports"}, Turns: []scripted.Turn{{Text: "tidied"}}})

	r := h.run(t, "", "--debug", "-p", `/git:commit:amend "fix the bug" core`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "amended" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// What was accepted silently is listed once by --debug.
	logs, _ := filepath.Glob(filepath.Join(h.box.home, ".local/state/covey/logs/*.log"))
	if len(logs) != 1 {
		t.Fatalf("debug logs: %v", logs)
	}
	debug, _ := os.ReadFile(logs[0])
	for _, want := range []string{`key \"disallowed-tools\" is accepted`, "hook event ConfigChange is accepted", "Stop hook of type prompt is accepted", "covey has no TaskOutput"} {
		if n := strings.Count(string(debug), want); n != 1 {
			t.Errorf("the debug log names %q %d times, want once", want, n)
		}
	}
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "covey:") && !strings.Contains(l, "saved; resume it with") && !strings.HasPrefix(l, "covey: debug log:") {
			t.Errorf("a warning about valid Claude Code files: %s", l)
		}
	}
	got := userText(lastOf(h.srv.Journal(), "amend"))
	for _, want := range []string{"AMEND with fix the bug in core, price $5M, missing $8, all: \"fix the bug\" core",
		"Quoted \"!`echo NOT-RUN`\" stays, usage [@FILE] stays."} {
		if !strings.Contains(got, want) {
			t.Errorf("the command's text lacks %q:\n%s", want, got)
		}
	}

	// The skill wins over the command of its name, typed as /deploy.
	r = h.run(t, "", "-p", "/deploy staging")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "deployed" {
		t.Fatalf("/deploy: exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	deploy := lastOf(h.srv.Journal(), "deploy")
	if got := userText(deploy); !strings.Contains(got, "SKILL-DEPLOY-BODY to staging") || !strings.Contains(got, "Base directory for this skill:") || strings.Contains(got, "COMMAND-DEPLOY-BODY") {
		t.Errorf("/deploy did not run the skill:\n%s", got)
	}
	// A skill without a description is offered by its first paragraph;
	// one with disable-model-invocation is not offered to the model.
	body := string(deploy.Body)
	if !strings.Contains(body, "tidy: Tidy the imports of a Go file with goimports.") || strings.Contains(body, "- deploy:") {
		t.Errorf("the skill tool's description is wrong:\n%s", body)
	}
	r = h.run(t, "", "-p", "/tidy")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "tidied" {
		t.Fatalf("/tidy: exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// lastOf is the last request of the named conversation.
func lastOf(j []scripted.Entry, name string) scripted.Entry {
	var out scripted.Entry
	for _, e := range j {
		if e.Conversation == name {
			out = e
		}
	}
	return out
}

// statusScript prints, on its first line, the fields of Claude Code's
// JSON it was given (and a second line covey must not show).
const statusScript = `#!/bin/sh
in=$(cat)
field() { printf '%s' "$in" | sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
printf 'SL event=%s model=%s proj=%s in=%s win=%s\n' "$(field hook_event_name)" "$(field id)" "$(basename "$(field project_dir)")" "$(field total_input_tokens)" "$(field context_window_size)"
echo SECOND-LINE-HIDDEN
`

// subStatusScript prints a pane's fields: the child's own.
const subStatusScript = `#!/bin/sh
in=$(cat)
field() { printf '%s' "$in" | sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
printf 'SUB type=%s state=%s\n' "$(field type)" "$(field state)"
`

// TestStatusLineTUI: the user's statusLine command runs with Claude
// Code's JSON on stdin, its first line shows under the status bar, and a
// turn (new token counts) runs it again; subagentStatusLine's line heads
// a child's pane, with the child's own fields.
func TestStatusLineTUI(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "hi", Match: scripted.Match{FirstUser: "say hi"}, Turns: []scripted.Turn{{Text: "E2E-HI"}}})
	srv.Add(scripted.Conversation{Name: "delegate", Match: scripted.Match{FirstUser: "delegate it"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"description": "look around", "subagent_type": "Explore", "prompt": "[e2e:sub] look"}}}},
		{Text: "E2E-DELEGATED"},
	}})
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:sub]"}, Turns: []scripted.Turn{{Text: "looked"}}})
	ws := workspace(t, sampleFiles())
	box := newSandbox(t)
	writeHome(t, box, map[string]string{
		".claude/statusline.sh":     statusScript,
		".claude/sub-statusline.sh": subStatusScript,
		".claude/settings.json": `{"statusLine": {"type": "command", "command": "sh ~/.claude/statusline.sh", "padding": 0},
 "subagentStatusLine": {"type": "command", "command": "sh ~/.claude/sub-statusline.sh"}}`,
	})
	tm := startTUI(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine, "SL event=Status model=e2e-model proj="+filepath.Base(ws)+" in=0")
	tm.submit("say hi")
	s := tm.waitMatch(regexp.MustCompile(`SL event=Status model=e2e-model proj=\S+ in=[1-9]`))
	if strings.Contains(s, "SECOND-LINE-HIDDEN") {
		t.Errorf("more than the first line is shown:\n%s", frame(s))
	}
	tm.submit("/clear")
	tm.waitText(helpLine)
	tm.submit("delegate it")
	tm.waitText("E2E-DELEGATED", "SUB type=Explore state=done")
}

// TestProjectStatusLineTrust: a repository's statusLine is a command
// covey would run by itself, so it runs only once the project is
// trusted; the start-up trust question names it.
func TestProjectStatusLineTrust(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	srv := scriptedtest.New(t)
	files := sampleFiles()
	files[".claude/statusline.sh"] = statusScript
	files[".claude/settings.json"] = `{"statusLine": {"type": "command", "command": "sh .claude/statusline.sh"}}`
	ws := workspace(t, files)
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	s := tm.waitText("brings 1 thing", "status line: sh .claude/statusline.sh", "Trust them?")
	if strings.Contains(s, "SL event=") {
		t.Fatalf("the untrusted status line ran:\n%s", frame(s))
	}
	tm.press("y")
	tm.waitText("SL event=Status model=e2e-model")
}

// TestHookToolFailureHeadless: a call that fails runs the
// PostToolUseFailure hooks (with the error), not PostToolUse's.
func TestHookToolFailureHeadless(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	marks := t.TempDir()
	hookHome(t, h.box, map[string][]map[string]any{
		"PostToolUseFailure": {group("Read", "cat > "+shellQuote(filepath.Join(marks, "failure.json")))},
		"PostToolUse":        {group("Read", "touch "+shellQuote(filepath.Join(marks, "post")))},
		"Setup":              {group("", "touch "+shellQuote(filepath.Join(marks, "setup")))},
	})
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "read the missing file"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "missing.go"})}},
		{Text: "it is missing"},
	}})
	r := h.run(t, "", "-p", "read the missing file")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(marks, "failure.json"))
	if err != nil {
		t.Fatalf("the PostToolUseFailure hook did not run: %v\nstderr:\n%s", err, r.stderr)
	}
	for _, want := range []string{`"hook_event_name":"PostToolUseFailure"`, `"tool_name":"Read"`, `"error":`, "missing.go"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the hook's input lacks %s:\n%s", want, data)
		}
	}
	for _, f := range []string{"post", "setup"} {
		if _, err := os.Stat(filepath.Join(marks, f)); err == nil {
			t.Errorf("the %s hook ran", f)
		}
	}
	if strings.Contains(r.stderr, "Setup") {
		t.Errorf("the Setup event is warned about:\n%s", r.stderr)
	}
}

// TestHookPermissionRequestTUI: when the gate is about to ask about a
// call, the PermissionRequest hooks run first; one that allows answers for
// the user, so nothing is asked.
func TestHookPermissionRequestTUI(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "make the marker"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "touch permreq-ran"})}},
		{Text: "E2E-MARKED"},
	}})
	ws := workspace(t, sampleFiles())
	box := newSandbox(t)
	input := filepath.Join(t.TempDir(), "permreq.json")
	allow := `cat > ` + shellQuote(input) + `; echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'`
	hookHome(t, box, map[string][]map[string]any{"PermissionRequest": {group("Bash", allow)}})
	tm := startTUI(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit("make the marker")
	s := tm.waitText("E2E-MARKED")
	if strings.Contains(s, "Allow bash") {
		t.Errorf("the user was asked though the hook allowed:\n%s", frame(s))
	}
	if _, err := os.Stat(filepath.Join(ws, "permreq-ran")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
	if data, _ := os.ReadFile(input); !strings.Contains(string(data), `"tool_input":{"command":"touch permreq-ran"}`) {
		t.Errorf("the hook's input: %s", data)
	}
}

// pluginHome installs plugins the way Claude Code lays them out: fmt
// (one of each kind, enabled by the user), old (disabled) and broken (its
// plugin.json is no JSON, enabled), and returns fmt's folder.
func pluginHome(t *testing.T, box sandbox, settings string) string {
	t.Helper()
	base := ".claude/plugins/cache/tools-market/"
	root := filepath.Join(box.home, filepath.FromSlash(base+"fmt/1.2.0"))
	writeHome(t, box, map[string]string{
		base + "fmt/1.2.0/.claude-plugin/plugin.json":    `{"name": "fmt", "version": "1.2.0", "description": "Formatting helpers", "author": {"name": "e2e"}, "keywords": ["go"]}`,
		base + "fmt/1.2.0/commands/fix.md":               "---\ndescription: Fix formatting\n---\nPLUGIN-FIX the file $0\n",
		base + "fmt/1.2.0/agents/checker.md":             "---\nname: checker\ndescription: Checks formatting.\ntools: Read, Grep\n---\nPLUGIN-CHECKER-PROMPT: check the formatting.\n",
		base + "fmt/1.2.0/skills/style/SKILL.md":         "---\nname: style\ndescription: The house style for Go files.\n---\nPLUGIN-STYLE-BODY\n",
		base + "fmt/1.2.0/hooks/hooks.json":              `{"description": "marks prompts", "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch \"${CLAUDE_PLUGIN_ROOT}/hook-ran\""}]}]}}`,
		base + "fmt/1.2.0/.mcp.json":                     `{"mcpServers": {"fmtdb": {"command": "sh", "args": ["-c", "touch ${CLAUDE_PLUGIN_ROOT}/mcp-started"]}}}`,
		base + "fmt/1.2.0/.lsp.json":                     `{"go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}}}`,
		base + "old/0.1.0/commands/legacy.md":            "LEGACY\n",
		base + "broken/2.0.0/.claude-plugin/plugin.json": `{"name": "broken",`,
		".claude/plugins/installed_plugins.json": `{"version": 2, "plugins": {
  "fmt@tools-market": [{"scope": "user", "installPath": "` + root + `", "version": "1.2.0", "installedAt": "2026-11-01T10:00:00.000Z"}],
  "old@tools-market": [{"scope": "user", "installPath": "` + filepath.Join(box.home, filepath.FromSlash(base+"old/0.1.0")) + `", "version": "0.1.0"}],
  "broken@tools-market": [{"scope": "user", "installPath": "` + filepath.Join(box.home, filepath.FromSlash(base+"broken/2.0.0")) + `", "version": "2.0.0"}]
}}`,
		".claude/settings.json": settings,
	})
	return root
}

// TestPluginsHeadless: an installed, enabled plugin's command
// (/fmt:fix), agent (fmt:checker), skill (fmt:style), hook (with
// ${CLAUDE_PLUGIN_ROOT}) and MCP server load; covey plugins lists each
// plugin with its state; a broken one is named with its error and costs
// nothing else.
func TestPluginsHeadless(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	root := pluginHome(t, h.box, `{"enabledPlugins": {"fmt@tools-market": true, "old@tools-market": false, "broken@tools-market": true}}`)

	r := runCovey(t, h.ws, h.box.env(), "", "plugins")
	for _, want := range []string{"fmt@tools-market 1.2.0  enabled (~/.claude/settings.json)", "Formatting helpers",
		"1 command folders, 1 agent folders, 1 skill folders, 1 hook events, 1 MCP servers, 1 language servers (kept, not run)",
		"MCP: plugin_fmt_fmtdb", "old@tools-market 0.1.0  disabled", "broken@tools-market 2.0.0  broken", "error: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("covey plugins lacks %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}

	h.srv.Add(scripted.Conversation{Name: "fix", Match: scripted.Match{FirstUser: "PLUGIN-FIX the file main.go"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"description": "check", "subagent_type": "fmt:checker", "prompt": "[e2e:plugin] check main.go"}}}},
		{Text: "fixed"},
	}})
	h.srv.Add(scripted.Conversation{Name: "checker", Match: scripted.Match{SystemContains: "PLUGIN-CHECKER-PROMPT"}, Turns: []scripted.Turn{{Text: "checked"}}})
	r = h.run(t, "", "-p", "/fmt:fix main.go")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "fixed" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "plugin broken@tools-market:") || !strings.Contains(r.stderr, "it is not loaded") {
		t.Errorf("the broken plugin is not named:\n%s", r.stderr)
	}
	if lastOf(h.srv.Journal(), "checker").Conversation == "" {
		t.Error("the plugin's agent fmt:checker did not run")
	}
	body := string(lastOf(h.srv.Journal(), "fix").Body)
	if !strings.Contains(body, "fmt:style: The house style for Go files.") {
		t.Errorf("the plugin's skill is not offered:\n%s", body)
	}
	for _, f := range []string{"hook-ran", "mcp-started"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the plugin's %s marker is missing: %v", f, err)
		}
	}
	h.srv.AllowUnmatched()
	_ = h.run(t, "", "-p", "/old:legacy")
	for _, e := range h.srv.Journal() {
		if strings.Contains(userText(e), "LEGACY") {
			t.Errorf("a disabled plugin's command ran:\n%s", userText(e))
		}
	}
}

// TestClaudeCodeProjectTUI: covey started in a repository holding only
// valid Claude Code files shows no warning, and a skill typed as /name
// runs it.
func TestClaudeCodeProjectTUI(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "deploy", Match: scripted.Match{FirstUser: "SKILL-DEPLOY-BODY to prod"}, Turns: []scripted.Turn{{Text: "E2E-DEPLOYED"}}})
	ws := workspace(t, claudeProject())
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	s := tm.waitText(helpLine)
	if strings.Contains(s, "⚠") || strings.Contains(s, "warning") {
		t.Fatalf("a warning at start:\n%s", frame(s))
	}
	tm.typeText("/depl")
	tm.waitText("/deploy [env]")
	tm.typeText("oy prod")
	tm.press("Enter")
	tm.waitText("E2E-DEPLOYED")
}

// TestProjectPluginTrustHeadless: a plugin only the project enables is the
// project's: its hooks do not run in a headless run until the project is
// trusted (the run says it skipped them), while its command loads.
func TestProjectPluginTrustHeadless(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files[".claude/settings.json"] = `{"enabledPlugins": {"fmt@tools-market": true}}`
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
	root := pluginHome(t, h.box, `{}`)
	h.srv.Add(scripted.Conversation{Name: "fix", Match: scripted.Match{FirstUser: "PLUGIN-FIX the file a.go"}, Turns: []scripted.Turn{{Text: "fixed"}}})
	r := h.run(t, "", "-p", "/fmt:fix a.go")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "fixed" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "hook-ran")); err == nil {
		t.Error("the project-enabled plugin's hook ran untrusted")
	}
	if _, err := os.Stat(filepath.Join(root, "mcp-started")); err == nil {
		t.Error("the project-enabled plugin's MCP server started untrusted")
	}
	if !strings.Contains(r.stderr, "not trusted") {
		t.Errorf("the run does not say it skipped the project's hooks:\n%s", r.stderr)
	}
}

// TestCommandHooksHeadless: a command's own hooks: run in its turn only.
func TestCommandHooksHeadless(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	writeHome(t, h.box, map[string]string{".claude/commands/guarded.md": "---\ndescription: no shell here\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"echo NO-SHELL-IN-GUARDED >&2; exit 2\"\n---\nGUARDED-BODY\n"})
	for _, first := range []string{"GUARDED-BODY", "plain prompt"} {
		h.srv.Add(scripted.Conversation{Name: first, Match: scripted.Match{FirstUser: first}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{{ID: "call_" + strings.Fields(first)[0], Name: "bash", Args: map[string]any{"command": "echo SHELL-RAN"}}}},
			{Text: "done"},
		}})
	}
	for _, prompt := range []string{"/guarded", "plain prompt"} {
		if r := h.run(t, "", "--permission-mode", "bypassPermissions", "-p", prompt); r.code != 0 {
			t.Fatalf("%s: exit %d\nstderr:\n%s", prompt, r.code, r.stderr)
		}
	}
	if res, _ := lastToolResult(h.srv, "call_GUARDED-BODY"); !strings.Contains(res, "NO-SHELL-IN-GUARDED") || strings.Contains(res, "SHELL-RAN") {
		t.Errorf("the command's hook did not block its turn's bash: %q", res)
	}
	if res, _ := lastToolResult(h.srv, "call_plain"); !strings.Contains(res, "SHELL-RAN") {
		t.Errorf("the command's hook ran outside its turn: %q", res)
	}
}
