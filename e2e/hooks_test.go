package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// hookHome writes the user's Claude Code settings with hooks (event →
// command) into the sandbox's home: user-level hooks are trusted.
func hookHome(t *testing.T, box sandbox, hooks map[string][]map[string]any) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"hooks": hooks})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(box.home, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookScript writes an executable shell script into dir and returns its path.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func group(matcher, command string) map[string]any {
	return map[string]any{"matcher": matcher, "hooks": []map[string]any{{"type": "command", "command": command}}}
}

// lastToolResult is the content of the tool message answering callID in
// the requests the server received.
func lastToolResult(srv *scripted.Server, callID string) (string, bool) {
	for _, e := range srv.Journal() {
		for _, m := range e.Messages {
			if m.Role == "tool" && m.ToolCallID == callID {
				return m.Content, true
			}
		}
	}
	return "", false
}

// TestHookPreToolUseBlocksBash: a PreToolUse hook on Bash that exits 2
// keeps the command from running, and its stderr reaches the model as the
// call's result (read back from the next request the server received). The
// hook reads Claude Code's input: tool_name Bash, tool_input.command.
func TestHookPreToolUseBlocksBash(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	box := newSandbox(t)
	ws := workspace(t, sampleFiles())
	guard := hookScript(t, box.home, "guard.sh", "cat > \"$HOME/pre.json\"\necho 'rm is not allowed here; use git clean' >&2\nexit 2\n")
	hookHome(t, box, map[string][]map[string]any{"PreToolUse": {group("Bash", guard)}})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "clean up"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_rm", Name: "bash", Args: map[string]any{"command": "touch bashran"}}}},
		{Text: "I will not remove it."},
	}})
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "--permission-mode", "bypassPermissions", "-p", "clean up")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "bashran")); err == nil {
		t.Error("the blocked command ran")
	}
	got, ok := lastToolResult(srv, "call_rm")
	if !ok || !strings.Contains(got, "rm is not allowed here; use git clean") || !strings.Contains(got, "PreToolUse hook") {
		t.Errorf("the model read %q (found %v), want the hook's reason", got, ok)
	}
	var in struct {
		Event     string `json:"hook_event_name"`
		Tool      string `json:"tool_name"`
		Cwd       string `json:"cwd"`
		SessionID string `json:"session_id"`
		Input     struct {
			Command string `json:"command"`
		} `json:"tool_input"`
	}
	data, err := os.ReadFile(filepath.Join(box.home, "pre.json"))
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("hook stdin is not JSON: %v\n%s", err, data)
	}
	if in.Event != "PreToolUse" || in.Tool != "Bash" || in.Input.Command != "touch bashran" || in.Cwd == "" || in.SessionID == "" {
		t.Errorf("hook stdin = %s", data)
	}
	if !strings.Contains(r.stderr, "PreToolUse hook blocked bash") {
		t.Errorf("stderr does not tell the user:\n%s", r.stderr)
	}
}

// TestHookPostToolUseSeesWrite: PostToolUse hooks see Claude Code's names:
// tool_name Write with an absolute file_path, and the tool's response.
func TestHookPostToolUseSeesWrite(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	box := newSandbox(t)
	ws := workspace(t, sampleFiles())
	hookHome(t, box, map[string][]map[string]any{"PostToolUse": {group("Write|Edit", "cat > \"$HOME/post.json\"")}})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "write notes"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_w", Name: "write_file", Args: map[string]any{"path": "notes.txt", "content": "hi\n"}}}},
		{Text: "written"},
	}})
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "--permission-mode", "acceptEdits", "-p", "write notes")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(box.home, "post.json"))
	if err != nil {
		t.Fatalf("the hook did not run: %v\nstderr:\n%s", err, r.stderr)
	}
	var in struct {
		Event string `json:"hook_event_name"`
		Tool  string `json:"tool_name"`
		Input struct {
			FilePath string `json:"file_path"`
			Content  string `json:"content"`
		} `json:"tool_input"`
		Response map[string]any `json:"tool_response"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("hook stdin is not JSON: %v\n%s", err, data)
	}
	if in.Event != "PostToolUse" || in.Tool != "Write" || in.Input.FilePath != filepath.Join(ws, "notes.txt") || in.Input.Content != "hi\n" {
		t.Errorf("hook stdin = %s", data)
	}
	if in.Response["success"] != true || in.Response["filePath"] != filepath.Join(ws, "notes.txt") {
		t.Errorf("tool_response = %v", in.Response)
	}
}

// TestHookUserPromptSubmitAddsContext: what a UserPromptSubmit hook prints
// reaches the model with the prompt, and the hook reads the prompt; so does
// what a SessionStart hook prints, with the first prompt.
func TestHookUserPromptSubmitAddsContext(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	box := newSandbox(t)
	ws := workspace(t, sampleFiles())
	hookHome(t, box, map[string][]map[string]any{
		"UserPromptSubmit": {group("", "cat > \"$HOME/prompt.json\"; echo 'Sprint ends Friday (from the hook).'")},
		"SessionStart":     {group("startup", "echo 'On branch main (session start).'")},
	})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "what is due"}, Turns: []scripted.Turn{{Text: "Friday."}}})
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "what is due")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	j := srv.Journal()
	if len(j) == 0 {
		t.Fatal("no request")
	}
	var user string
	for _, m := range j[0].Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	if !strings.HasPrefix(user, "what is due") || !strings.Contains(user, "Sprint ends Friday (from the hook).") || !strings.Contains(user, "On branch main (session start).") {
		t.Errorf("first user message = %q", user)
	}
	data, _ := os.ReadFile(filepath.Join(box.home, "prompt.json"))
	if !strings.Contains(string(data), `"prompt":"what is due"`) {
		t.Errorf("hook stdin = %s", data)
	}
}

// TestHookUserPromptSubmitBlocks: exit 2 drops the prompt: no request is
// sent and the user reads why.
func TestHookUserPromptSubmitBlocks(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	box := newSandbox(t)
	ws := workspace(t, sampleFiles())
	hookHome(t, box, map[string][]map[string]any{"UserPromptSubmit": {group("", "echo 'no secrets in prompts' >&2; exit 2")}})
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "my password is hunter2")
	if r.code == 0 || !strings.Contains(r.stderr, "no secrets in prompts") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := len(srv.Journal()); n != 0 {
		t.Errorf("%d requests sent for a blocked prompt", n)
	}
}

// TestHookStopAndSubagentEventsRunOnce: in a run where the main agent
// delegates to one child, SubagentStart, SubagentStop and Stop each run
// once, and the subagent hooks know the child's type.
func TestHookStopAndSubagentEventsRunOnce(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	box := newSandbox(t)
	ws := workspace(t, sampleFiles())
	logEvent := func(name string) string {
		return "(sed -n 's/.*\"agent_type\":\"\\([^\"]*\\)\".*/" + name + " \\1/p; t; s/.*/" + name + "/p'; echo) >> \"$HOME/events.log\""
	}
	hookHome(t, box, map[string][]map[string]any{
		"SubagentStart": {group("", logEvent("SubagentStart"))},
		"SubagentStop":  {group("", logEvent("SubagentStop"))},
		"Stop":          {group("", logEvent("Stop"))},
	})
	scriptDelegation(srv)
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "where is greeting defined?")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(box.home, "events.log"))
	if err != nil {
		t.Fatalf("no hook ran: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	want := map[string]int{"SubagentStart Explore": 1, "SubagentStop Explore": 1, "Stop": 1}
	got := map[string]int{}
	for _, l := range lines {
		got[l]++
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%q ran %d times, want %d; log:\n%s", k, got[k], n, data)
		}
	}
	if len(lines) != 3 {
		t.Errorf("log has %d lines, want 3:\n%s", len(lines), data)
	}
}

// TestHookUntrustedProjectSkippedHeadless: a repository's own hooks do not
// run in a headless run until the user trusts them, and the run says so.
func TestHookUntrustedProjectSkippedHeadless(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "hi", Match: scripted.Match{FirstUser: "hello"}, Turns: []scripted.Turn{{Text: "hi"}}})
	ws := workspace(t, map[string]string{
		".claude/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hookran"}]}]}}`,
	})
	r := runCovey(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "hello")
	if r.code != 0 || !strings.Contains(r.stderr, "skipped the project's hooks and status lines, not trusted yet") || !strings.Contains(r.stderr, "touch hookran") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "hookran")); err == nil {
		t.Error("the untrusted project hook ran")
	}
}

// TestTUIBellWhenChildApprovalWaits: a child's bash call waits for the
// user's approval, and covey rings the terminal's bell (read from the raw
// output tmux pipes out of the pane). A UserPromptSubmit hook in the
// project is asked about at start; trusted, /hooks lists it as running.
func TestTUIBellWhenChildApprovalWaits(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "worker", Match: scripted.Match{FirstUser: "[e2e:bell]"}, Turns: []scripted.Turn{
		{Text: "Listing.", ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "ls"})}},
		{Text: "worker: listed."},
	}})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Text: "A helper.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{
			"description": "list files", "subagent_type": "general-purpose", "prompt": "[e2e:bell] List the files."}}}},
		{Text: "E2E bell answer.", ChunkSize: 100},
	}})
	files := sampleFiles()
	files[".claude/settings.json"] = `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hookran"}]}]}}`
	ws := workspace(t, files)
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText("brings 1 thing", "hook UserPromptSubmit: touch hookran", "Trust them?")
	tm.press("y")
	tm.waitText(readyLine) // "y/hooks" read at once would be text, no answer
	tm.typeText("/hooks")
	tm.press("Enter")
	s := tm.waitText("UserPromptSubmit", "touch hookran  (.claude/settings.json, 1m0s)")
	if strings.Contains(s, "not trusted") {
		t.Errorf("/hooks says the trusted hook does not run:\n%s", frame(s))
	}
	// The output is read from here on.
	raw := filepath.Join(t.TempDir(), "raw")
	tm.tmux("pipe-pane", "-o", "-t", sessionName, "cat >> "+shellQuote(raw))

	tm.submit("list the files")
	tm.waitText("? Allow bash", "[general-purpose] asks:")
	tm.poll("the bell", waitLong, func(string) error {
		data, _ := os.ReadFile(raw)
		if !strings.Contains(string(data), "\a") {
			return errBellMissing
		}
		return nil
	})
	tm.waitApprovalReady()
	tm.press("y")
	tm.waitText("E2E bell answer.")
	if _, err := os.Stat(filepath.Join(ws, "hookran")); err != nil {
		t.Error("the trusted project hook did not run")
	}
}

var errBellMissing = errors.New("no bell in the pane's output yet")

// TestHookAgentFileHooksApplyToItsChildOnly: the hooks of an agent file's
// frontmatter run for that agent's children, not for the main agent.
func TestHookAgentFileHooksApplyToItsChildOnly(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	box := newSandbox(t)
	ws := workspace(t, sampleFiles())
	agents := filepath.Join(box.home, ".claude", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	def := "---\nname: guarded\ndescription: A guarded helper.\ntools: Bash\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n" +
		"        - type: command\n          command: \"echo guarded by its agent file >&2; exit 2\"\n---\nYou help.\n"
	if err := os.WriteFile(filepath.Join(agents, "guarded.md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:guarded]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_child", Name: "bash", Args: map[string]any{"command": "echo from-child"}}}},
		{Text: "child: blocked."},
	}})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "guard test"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_main", Name: "bash", Args: map[string]any{"command": "echo from-main"}}}},
		{ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{
			"description": "guarded work", "subagent_type": "guarded", "prompt": "[e2e:guarded] Run it."}}}},
		{Text: "main: done."},
	}})
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "--permission-mode", "bypassPermissions", "-p", "guard test")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if got, _ := lastToolResult(srv, "call_main"); !strings.Contains(got, "from-main") || strings.Contains(got, "guarded") {
		t.Errorf("the main agent's call read %q: the agent file's hook ran for it", got)
	}
	if got, _ := lastToolResult(srv, "call_child"); !strings.Contains(got, "guarded by its agent file") || strings.Contains(got, "from-child") {
		t.Errorf("the child's call read %q, want it blocked by its agent file's hook", got)
	}
	if strings.Contains(r.stderr, "hooks is not supported") {
		t.Errorf("the agent file's hooks were warned about:\n%s", r.stderr)
	}
}

// TestHookTrustRememberedUntilChanged: the answer given in the TUI holds for
// later runs of the workspace (a headless run then runs the project's
// hooks), until the hooks change: then they are skipped again.
func TestHookTrustRememberedUntilChanged(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "hi", Match: scripted.Match{FirstUser: "hello"}, Turns: []scripted.Turn{{Text: "hi"}}})
	settings := func(marker string) string {
		return `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch ` + marker + `"}]}]}}`
	}
	ws := workspace(t, map[string]string{".claude/settings.json": settings("ran1")})
	box := newSandbox(t)
	env := box.env("OPENAI_BASE_URL=" + srv.URL())

	tm := startTUI(t, ws, env, "--model", "e2e-model")
	tm.waitText("brings 1 thing", "hook UserPromptSubmit: touch ran1", "Trust them?")
	tm.press("y")
	tm.waitText(readyLine)
	store := filepath.Join(box.home, ".local", "state", "covey", "config-trust.json")
	tm.poll("the trust answer on disk", waitLong, func(string) error {
		if data, err := os.ReadFile(store); err != nil || !strings.Contains(string(data), "trusted") {
			return errNotYet
		}
		return nil
	})

	r := runCovey(t, ws, env, "", "--model", "e2e-model", "-p", "hello")
	if r.code != 0 || strings.Contains(r.stderr, "skipped the project's hooks") {
		t.Errorf("trusted hooks: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran1")); err != nil {
		t.Error("the trusted project hook did not run headless")
	}

	if err := os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(settings("ran2")), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCovey(t, ws, env, "", "--model", "e2e-model", "-p", "hello")
	if r.code != 0 || !strings.Contains(r.stderr, "skipped the project's hooks and status lines, not trusted yet") || !strings.Contains(r.stderr, "touch ran2") {
		t.Errorf("changed hooks: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran2")); err == nil {
		t.Error("a changed project hook ran on the old trust")
	}
}

// TestTUIHookBlockShown: in the TUI, a call a PreToolUse hook blocked shows
// in its tool block and as a notice naming the hook and its message.
func TestTUIHookBlockShown(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	box := newSandbox(t)
	hookHome(t, box, map[string][]map[string]any{"PreToolUse": {group("Bash", "echo 'no rm here; use git clean' >&2; exit 2")}})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "clean up"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_rm", Name: "bash", Args: map[string]any{"command": "rm -rf build"}}}},
		{Text: "E2E: I will use git clean."},
	}})
	tm := startTUI(t, workspace(t, sampleFiles()), box.env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit("clean up")
	s := tm.waitText("E2E: I will use git clean.")
	for _, want := range []string{"Blocked by a PreToolUse hook: no rm here; use git clean", "PreToolUse hook blocked bash: no rm here; use git clean"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, frame(s))
		}
	}
	if strings.Contains(s, "? Allow bash") {
		t.Errorf("the blocked call was asked about:\n%s", frame(s))
	}
}
