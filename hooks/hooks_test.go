package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/permission"
	"covey/tools/toolname"
)

func cmdHook(event, matcher, command string) Hook {
	return Config{event: {{Matcher: matcher, Hooks: []Command{{Command: command}}}}}.Hooks("test", ScopeUser)[0]
}

func TestMatching(t *testing.T) {
	tests := map[string]struct {
		matcher string
		covey   string
		want    bool
	}{
		"empty matches all":             {"", toolname.Grep, true},
		"star matches all":              {"*", toolname.Grep, true},
		"Claude name":                   {"Bash", toolname.Bash, true},
		"covey name":                    {"bash", toolname.Bash, true},
		"covey file tool":               {"write_file", toolname.WriteFile, true},
		"alternation":                   {"Write|Edit", toolname.EditFile, true},
		"alternation misses":            {"Write|Edit", toolname.Bash, false},
		"exact does not match a prefix": {"Edit", toolname.WriteFile, false},
		"mcp regex":                     {"mcp__github__.*", "mcp__github__search", true},
		"mcp regex other server":        {"mcp__github__.*", "mcp__gitlab__search", false},
		"mcp exact":                     {"mcp__db__query", "mcp__db__query", true},
		"LS for list_dir":               {"LS", toolname.ListDir, true},
		"Task":                          {"Task", toolname.Task, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := cmdHook(PreToolUse, tc.matcher, "true")
			args := json.RawMessage(`{}`)
			if got := h.matches(ClaudeName(tc.covey, args), tc.covey); got != tc.want {
				t.Errorf("matcher %q on %s = %v, want %v", tc.matcher, tc.covey, got, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	c := Config{
		"PreToolUse": {{Matcher: "(", Hooks: []Command{{Command: "x"}}}},
		"Whenever":   {{Hooks: []Command{{Command: "x"}}}},
		"Stop":       {{Hooks: []Command{{Type: "prompt", Command: "x"}, {Command: " "}, {Command: "y", Timeout: -1}}}},
	}
	err := c.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`PreToolUse[0].matcher "("`, `unknown hook event "Whenever"`, "command is empty", "timeout must not be negative"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "prompt") {
		t.Errorf("a prompt hook, valid in Claude Code, is an error: %v", err)
	}
	if hs := c.Hooks("f", ScopeUser); len(hs) != 0 {
		t.Errorf("invalid hooks were kept: %+v", hs)
	}
}

// TestClaudeCodeEvents: every event of Claude Code's current list is
// valid; those covey has no moment for are named quietly, never run.
func TestClaudeCodeEvents(t *testing.T) {
	c := Config{}
	for _, ev := range append(Events(), acceptedEvents...) {
		c[ev] = []Group{{Hooks: []Command{{Command: "true"}}}}
	}
	c["Stop"] = append(c["Stop"], Group{Hooks: []Command{{Type: "prompt"}}})
	if err := c.Validate(); err != nil {
		t.Fatalf("Claude Code's events refused: %v", err)
	}
	quiet := strings.Join(c.Quiet("s.json"), "\n")
	for _, want := range []string{"Setup is accepted", "ConfigChange is accepted", "Stop hook of type prompt is accepted"} {
		if !strings.Contains(quiet, want) {
			t.Errorf("quiet notes lack %q:\n%s", want, quiet)
		}
	}
	if strings.Contains(quiet, "PostToolUseFailure") || strings.Contains(quiet, "PermissionRequest") {
		t.Errorf("events covey runs are called never run:\n%s", quiet)
	}
	for _, h := range c.Hooks("s.json", ScopeUser) {
		if slices.Contains(acceptedEvents, h.Event) {
			t.Errorf("a hook of %s would run", h.Event)
		}
	}
}

func TestClaudeInput(t *testing.T) {
	tests := map[string]struct {
		tool, args string
		want       map[string]any
	}{
		"write":     {toolname.WriteFile, `{"path":"a/b.go","content":"x"}`, map[string]any{"file_path": "/ws/a/b.go", "content": "x"}},
		"edit":      {toolname.EditFile, `{"path":"/abs.go","old_string":"a","new_string":"b","replace_all":true}`, map[string]any{"file_path": "/abs.go", "old_string": "a", "new_string": "b", "replace_all": true}},
		"read":      {toolname.ReadFile, `{"path":"r.go","offset":3,"limit":5}`, map[string]any{"file_path": "/ws/r.go", "offset": 3.0, "limit": 5.0}},
		"bash":      {toolname.Bash, `{"command":"ls","timeout_s":2.5}`, map[string]any{"command": "ls", "timeout": 2500.0}},
		"grep":      {toolname.Grep, `{"pattern":"x","path":"src","glob":"*.go","ignore_case":true}`, map[string]any{"pattern": "x", "path": "/ws/src", "glob": "*.go", "-i": true}},
		"web_fetch": {toolname.WebFetch, `{"url":"https://x","prompt":"p"}`, map[string]any{"url": "https://x", "prompt": "p"}},
		"task":      {toolname.Task, `{"description":"d","prompt":"p","subagent_type":"Explore"}`, map[string]any{"description": "d", "prompt": "p", "subagent_type": "Explore"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got map[string]any
			if err := json.Unmarshal(ClaudeInput(tc.tool, json.RawMessage(tc.args), "/ws"), &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
	if n := ClaudeName(toolname.EditFile, json.RawMessage(`{"path":"a","edits":[]}`)); n != "MultiEdit" {
		t.Errorf("edit with edits = %s, want MultiEdit", n)
	}
}

func runOne(t *testing.T, event, command string, in Input) Outcome {
	t.Helper()
	r := NewRunner([]Hook{cmdHook(event, "", command)}, RunnerOptions{Dir: t.TempDir()})
	in.HookEventName = event
	return r.Run(context.Background(), in, "")
}

func TestExitCodesAndOutput(t *testing.T) {
	tests := map[string]struct {
		event, command string
		check          func(t *testing.T, o Outcome)
	}{
		"exit 0 quiet": {PreToolUse, "exit 0", func(t *testing.T, o Outcome) {
			if o.Block || o.Permission != "" || len(o.Notes) > 0 || o.Ran != 1 {
				t.Errorf("%+v", o)
			}
		}},
		"exit 2 blocks with stderr": {PreToolUse, "echo out; echo why >&2; exit 2", func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "why" {
				t.Errorf("%+v", o)
			}
		}},
		"other exit is a note": {PreToolUse, "echo oops >&2; exit 3", func(t *testing.T, o Outcome) {
			if o.Block || len(o.Notes) != 1 || !o.Notes[0].Error || !strings.Contains(o.Notes[0].Text, "exit 3: oops") {
				t.Errorf("%+v", o)
			}
		}},
		"prompt stdout is context": {UserPromptSubmit, "echo remember this", func(t *testing.T, o Outcome) {
			if o.Context != "remember this" {
				t.Errorf("%+v", o)
			}
		}},
		"tool stdout is not context": {PreToolUse, "echo chatter", func(t *testing.T, o Outcome) {
			if o.Context != "" {
				t.Errorf("%+v", o)
			}
		}},
		"json deny": {PreToolUse, `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on main"}}'`, func(t *testing.T, o Outcome) {
			if !o.Block || o.Permission != Deny || o.Reason != "not on main" {
				t.Errorf("%+v", o)
			}
		}},
		"json allow": {PreToolUse, `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, func(t *testing.T, o Outcome) {
			if o.Block || o.Permission != Allow {
				t.Errorf("%+v", o)
			}
		}},
		"json approve is allow": {PreToolUse, `echo '{"decision":"approve"}'`, func(t *testing.T, o Outcome) {
			if o.Permission != Allow {
				t.Errorf("%+v", o)
			}
		}},
		"json block": {Stop, `echo '{"decision":"block","reason":"tests fail"}'`, func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "tests fail" {
				t.Errorf("%+v", o)
			}
		}},
		"continue false": {PostToolUse, `echo '{"continue":false,"stopReason":"enough","systemMessage":"hi user"}'`, func(t *testing.T, o Outcome) {
			if !o.Halt || o.StopReason != "enough" || len(o.Notes) != 1 || o.Notes[0].Text != "hi user" {
				t.Errorf("%+v", o)
			}
		}},
		"additional context": {PostToolUse, `echo '{"hookSpecificOutput":{"additionalContext":"lint: 2 warnings"}}'`, func(t *testing.T, o Outcome) {
			if o.Context != "lint: 2 warnings" {
				t.Errorf("%+v", o)
			}
		}},
		"stdin is the input": {UserPromptSubmit, `grep -q '"hook_event_name":"UserPromptSubmit".*"prompt":"hello"' && exit 2; exit 0`, func(t *testing.T, o Outcome) {
			if !o.Block {
				t.Errorf("the hook did not read the prompt: %+v", o)
			}
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tc.check(t, runOne(t, tc.event, tc.command, Input{Prompt: "hello"}))
		})
	}
}

// TestParallelAndDeduplicated: the hooks of one event run at once, and a
// command configured twice runs once.
func TestParallelAndDeduplicated(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	// Each waits for the other's mark: run one after the other, they would
	// time out.
	a := "touch a; for i in $(seq 50); do [ -e b ] && break; sleep 0.1; done; [ -e b ] && echo a >> " + log
	b := "touch b; for i in $(seq 50); do [ -e a ] && break; sleep 0.1; done; [ -e a ] && echo b >> " + log
	c := Config{PreToolUse: {{Hooks: []Command{{Command: a}, {Command: b}}}, {Matcher: "Bash", Hooks: []Command{{Command: a}}}}}
	r := NewRunner(c.Hooks("t", ScopeUser), RunnerOptions{Dir: dir})
	o := r.Run(context.Background(), Input{HookEventName: PreToolUse, ToolName: "Bash"}, toolname.Bash)
	if o.Ran != 2 {
		t.Errorf("ran %d hooks, want 2 (the duplicate once)", o.Ran)
	}
	data, _ := os.ReadFile(log)
	if got := strings.Fields(string(data)); len(got) != 2 {
		t.Errorf("log %q: the hooks did not run side by side", data)
	}
}

// TestTimeoutKillsGroup: a hook past its timeout is killed with everything
// it started, and the run ends promptly with a note.
func TestTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	h := Config{PreToolUse: {{Hooks: []Command{{Command: "sleep 30 & echo $! > " + pidFile + "; wait", Timeout: 0.5}}}}}.Hooks("t", ScopeUser)
	r := NewRunner(h, RunnerOptions{Dir: dir})
	done := make(chan Outcome, 1)
	go func() { done <- r.Run(context.Background(), Input{HookEventName: PreToolUse}, "") }()
	var o Outcome
	select {
	case o = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the runner hung on a hook past its timeout")
	}
	if len(o.Notes) != 1 || !strings.Contains(o.Notes[0].Text, "timed out") || o.Block {
		t.Errorf("%+v", o)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(strings.TrimSpace(string(data)), &pid); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d outlived its timeout", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestOutputBounded: a hook printing far more than OutputCap is cut, and
// does not block.
func TestOutputBounded(t *testing.T) {
	o := runOne(t, PreToolUse, "head -c 1000000 /dev/zero | tr '\\0' x >&2; exit 2", Input{})
	if !o.Block || len(o.Reason) > OutputCap+100 || !strings.HasSuffix(o.Reason, "[output truncated]") {
		t.Errorf("reason of %d bytes, blocked %v", len(o.Reason), o.Block)
	}
}

// TestProjectTrust: project hooks run only once trusted, and runners made
// from one (an agent file's) follow.
func TestProjectTrust(t *testing.T) {
	dir := t.TempDir()
	proj := Config{Stop: {{Hooks: []Command{{Command: "touch " + filepath.Join(dir, "ran")}}}}}.Hooks(".claude/settings.json", ScopeProject)
	r := NewRunner(proj, RunnerOptions{Dir: dir})
	child := r.With(Config{PreToolUse: {{Hooks: []Command{{Command: "true"}}}}}.Hooks("agent x", ScopeUser), RunnerOptions{})
	if r.Has(Stop) || child.Has(Stop) || len(r.Skipped()) != 1 {
		t.Fatal("untrusted project hooks count as configured")
	}
	r.Run(context.Background(), Input{HookEventName: Stop}, "")
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	r.SetProjectTrusted(true)
	if !child.Has(Stop) {
		t.Error("trust did not reach the agent's runner")
	}
	child.Run(context.Background(), Input{HookEventName: Stop}, "")
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Error("the trusted project hook did not run")
	}
	if Hash(proj) == Hash(Config{Stop: {{Hooks: []Command{{Command: "touch elsewhere"}}}}}.Hooks(".claude/settings.json", ScopeProject)) {
		t.Error("a changed hook keeps the same trust key")
	}
}

func TestLoadSettings(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"u","timeout":5}]}]},"model":"x"}`)
	write(filepath.Join(ws, ".claude", "settings.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"p"}]}]}}`)
	write(filepath.Join(ws, ".claude", "settings.local.json"), `{not json`)
	s := Load(Sources{Home: home, Workspace: ws, User: Config{Notification: {{Hooks: []Command{{Command: "n"}}}}}, UserSource: "config.yaml"})
	if len(s.Hooks) != 3 || len(s.Problems) != 1 || !strings.Contains(s.Problems[0], "settings.local.json") {
		t.Fatalf("hooks %+v, problems %v", s.Hooks, s.Problems)
	}
	if h := s.Hooks[0]; h.Scope != ScopeUser || h.Timeout != 5*time.Second || h.Command != "u" {
		t.Errorf("user hook %+v", h)
	}
	if p := s.Project(); len(p) != 1 || p[0].Command != "p" || p[0].Timeout != DefaultTimeout {
		t.Errorf("project hooks %+v", p)
	}
}

// TestBindingAsk: a hook's ask asks the gate once (in headless, refused),
// and a hook's allow never beats a deny rule of the gate.
func TestBindingAsk(t *testing.T) {
	rules, err := permission.ParseRules(nil, []string{"Bash(rm:*)"})
	if err != nil {
		t.Fatal(err)
	}
	pol := permission.NewPolicy(permission.ModeBypass, rules, nil)
	for name, tc := range map[string]struct {
		decision, command string
		blocked           bool
		allowed           bool // the gate then allows the call
	}{
		"ask in headless is refused even in bypass": {"ask", "ls", true, false},
		"allow does not beat a deny rule":           {"allow", "rm -rf x", false, false},
		"allow lets a plain call through":           {"allow", "ls", false, true},
	} {
		t.Run(name, func(t *testing.T) {
			out := `echo '{"hookSpecificOutput":{"permissionDecision":"` + tc.decision + `"}}'`
			b := &Binding{Runner: NewRunner([]Hook{cmdHook(PreToolUse, "Bash", out)}, RunnerOptions{Dir: t.TempDir()}), Gate: pol}
			args, _ := json.Marshal(map[string]string{"command": tc.command})
			ctx, blocked, reason, _ := b.BeforeTool(context.Background(), "c1", toolname.Bash, args)
			if blocked != tc.blocked {
				t.Fatalf("blocked %v (%s), want %v", blocked, reason, tc.blocked)
			}
			if blocked {
				return
			}
			got := pol.Check(ctx, permission.Request{Tool: toolname.Bash, Command: tc.command})
			if got.Allowed != tc.allowed {
				t.Errorf("gate allowed %v (%s), want %v", got.Allowed, got.Reason, tc.allowed)
			}
		})
	}
}

// TestBindingAnswersQuestion: a PreToolUse hook that blocks ask_user with
// a reason answers the question: the model reads the reason as the
// answer, not as a block.
func TestBindingAnswersQuestion(t *testing.T) {
	out := `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"use Postgres"}}'`
	b := &Binding{Runner: NewRunner([]Hook{cmdHook(PreToolUse, "", out)}, RunnerOptions{Dir: t.TempDir()})}
	args := json.RawMessage(`{"question":"Which database?","options":[{"label":"Postgres"}]}`)
	_, blocked, reason, _ := b.BeforeTool(context.Background(), "c1", toolname.AskUser, args)
	if !blocked || reason != "The answer, given by a PreToolUse hook: use Postgres" {
		t.Errorf("blocked %v, reason %q; want the hook's answer", blocked, reason)
	}
}

// TestRunnerScrubsKeys: a hook does not get the variables its runner
// scrubs (covey's keys), the runners made With it neither, and gets the
// project folder.
func TestRunnerScrubsKeys(t *testing.T) {
	t.Setenv("COVEY_TEST_SECRET", "sk-hook-secret")
	dir := t.TempDir()
	command := `printf 'secret=%s dir=%s' "$COVEY_TEST_SECRET" "$COVEY_PROJECT_DIR"`
	base := NewRunner([]Hook{cmdHook(UserPromptSubmit, "", command)}, RunnerOptions{Dir: dir, Scrub: []string{"COVEY_TEST_SECRET"}})
	for name, r := range map[string]*Runner{
		"runner": base,
		"with":   base.With([]Hook{cmdHook(SessionStart, "", "true")}, RunnerOptions{}),
	} {
		t.Run(name, func(t *testing.T) {
			o := r.Run(context.Background(), Input{HookEventName: UserPromptSubmit}, "")
			if want := "secret= dir=" + dir; o.Context != want {
				t.Errorf("hook saw %q, want %q", o.Context, want)
			}
		})
	}
	plain := NewRunner([]Hook{cmdHook(UserPromptSubmit, "", command)}, RunnerOptions{Dir: dir})
	if o := plain.Run(context.Background(), Input{HookEventName: UserPromptSubmit}, ""); !strings.Contains(o.Context, "sk-hook-secret") {
		t.Errorf("without Scrub the hook lost the variable: %q", o.Context)
	}
}
