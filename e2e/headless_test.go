package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// The scripted headless run: the main agent sends one Explore child, which
// makes two real tool calls, then answers.
const (
	headlessAnswer = "HEADLESS ANSWER: greeting is defined in greet.go."
	headlessTaskID = "call_e2etask1"
	headlessChild  = "find the greeting"
)

// scriptDelegation adds the main agent's and the child's conversations.
func scriptDelegation(srv *scripted.Server) {
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Text: "Delegating the search.", ToolCalls: []scripted.Call{{ID: headlessTaskID, Name: "task", Args: map[string]any{
			"description": headlessChild, "subagent_type": "Explore",
			"prompt": "[e2e:headless] Find where greeting is defined.",
		}}}},
		{Text: headlessAnswer},
	}})
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:headless]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("grep", map[string]any{"pattern": "func greeting", "output_mode": "files_with_matches"})}},
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "greet.go"})}},
		{Text: "greet.go line 4 defines greeting."},
	}})
}

// headlessRun is a sample workspace, a sandbox and a scripted server for
// one headless test.
type headlessRun struct {
	srv *scripted.Server
	ws  string
	box sandbox
}

func newHeadlessRun(t *testing.T) headlessRun {
	t.Helper()
	return headlessRun{srv: scriptedtest.New(t), ws: workspace(t, sampleFiles()), box: newSandbox(t)}
}

// run runs covey against the scripted server.
func (h headlessRun) run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runCovey(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), stdin, append([]string{"--model", "e2e-model"}, args...)...)
}

// TestHeadlessOutput checks the three output formats of one delegating run.
func TestHeadlessOutput(t *testing.T) {
	t.Parallel()
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		h := newHeadlessRun(t)
		scriptDelegation(h.srv)
		r := h.run(t, "", "-p", "where is greeting defined?")
		if r.code != 0 {
			t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
		}
		if got := strings.TrimSpace(r.stdout); got != headlessAnswer {
			t.Errorf("stdout = %q, want the answer alone: %q", got, headlessAnswer)
		}
		for _, re := range []*regexp.Regexp{
			regexp.MustCompile(`(?m)^\[Explore\] ` + headlessChild + ` … started \(`),
			regexp.MustCompile(`(?m)^\[Explore\] ` + headlessChild + `: done \(2 tools, [0-9.]+m?s, [0-9.k]+ tokens\)$`),
			regexp.MustCompile(`(?m)^✓ task `),
		} {
			if !re.MatchString(r.stderr) {
				t.Errorf("stderr lacks a line matching %s:\n%s", re, r.stderr)
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		h := newHeadlessRun(t)
		scriptDelegation(h.srv)
		r := h.run(t, "", "-p", "where is greeting defined?", "--output-format", "json")
		if r.code != 0 {
			t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
		}
		var out struct {
			Answer string `json:"answer"`
			Reason string `json:"reason"`
			Turns  int    `json:"turns"`
			Usage  struct {
				In  int `json:"input_tokens"`
				Out int `json:"output_tokens"`
			} `json:"usage"`
			ToolCalls []struct {
				ID      string `json:"id"`
				Name    string `json:"name"`
				IsError bool   `json:"is_error"`
			} `json:"tool_calls"`
			Children []struct {
				AgentID     string `json:"agent_id"`
				Type        string `json:"type"`
				Description string `json:"description"`
				Reason      string `json:"reason"`
				ToolCalls   int    `json:"tool_calls"`
			} `json:"children"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
		}
		if out.Answer != headlessAnswer || out.Reason != "ok" || out.Turns != 2 {
			t.Errorf("answer %q, reason %q, turns %d; want %q, ok, 2", out.Answer, out.Reason, out.Turns, headlessAnswer)
		}
		if out.Usage.In <= 0 || out.Usage.Out <= 0 {
			t.Errorf("usage %+v, want input and output tokens", out.Usage)
		}
		if len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != "task" || out.ToolCalls[0].ID != headlessTaskID || out.ToolCalls[0].IsError {
			t.Errorf("tool_calls %+v, want the one successful task call %s", out.ToolCalls, headlessTaskID)
		}
		if len(out.Children) != 1 {
			t.Fatalf("children %+v, want one", out.Children)
		}
		if c := out.Children[0]; c.Type != "Explore" || c.Description != headlessChild || c.Reason != "ok" || c.ToolCalls != 2 || c.AgentID == "" {
			t.Errorf("child %+v, want an Explore %q that ended ok after 2 tool calls", c, headlessChild)
		}
		if strings.Contains(r.stderr, "[Explore]") {
			t.Errorf("json mode wrote progress lines on stderr:\n%s", r.stderr)
		}
	})
	t.Run("stream-json", func(t *testing.T) {
		t.Parallel()
		h := newHeadlessRun(t)
		scriptDelegation(h.srv)
		r := h.run(t, "", "-p", "where is greeting defined?", "--output-format", "stream-json")
		if r.code != 0 {
			t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
		}
		seen := map[string]bool{} // "type" and "child:type"
		sc := bufio.NewScanner(strings.NewReader(r.stdout))
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			n++
			var ev struct {
				Type         string `json:"type"`
				AgentID      string `json:"agent_id"`
				ParentCallID string `json:"parent_call_id"`
				AgentType    string `json:"agent_type"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("line %d is not JSON: %v\n%s", n, err, sc.Text())
			}
			if ev.Type == "" {
				t.Errorf("line %d has no type: %s", n, sc.Text())
			}
			if ev.AgentID == "" {
				t.Errorf("line %d has no agent_id: %s", n, sc.Text())
			}
			if ev.AgentID != "main" {
				if ev.ParentCallID != headlessTaskID || ev.AgentType != "Explore" {
					t.Errorf("child event on line %d has parent_call_id %q, agent_type %q; want %q, Explore: %s",
						n, ev.ParentCallID, ev.AgentType, headlessTaskID, sc.Text())
				}
				seen["child:"+ev.Type] = true
			} else {
				seen[ev.Type] = true
			}
		}
		for _, want := range []string{"text", "tool_started", "tool_finished", "done",
			"child:child_started", "child:tool_started", "child:tool_finished", "child:child_finished"} {
			if !seen[want] {
				t.Errorf("no %s event in the stream; saw %v", want, seen)
			}
		}
	})
}

// TestHeadlessExitCodes checks covey's exit codes and their messages.
func TestHeadlessExitCodes(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		turn     *scripted.Turn // the main agent's only turn; nil: no server
		args     []string
		code     int
		inStderr string
	}{
		"ok": {
			turn: &scripted.Turn{Text: "fine"},
			args: []string{"-p", "hello"},
			code: 0,
		},
		"401 from the server": {
			turn:     &scripted.Turn{Status: 401, Body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`},
			args:     []string{"-p", "hello"},
			code:     1,
			inStderr: "Incorrect API key",
		},
		"bad flag": {
			args:     []string{"--no-such-flag"},
			code:     2,
			inStderr: "no-such-flag",
		},
		"bad output format": {
			args:     []string{"-p", "hello", "--output-format", "xml"},
			code:     2,
			inStderr: "--output-format",
		},
		"bad permission mode": {
			args:     []string{"-p", "hello", "--permission-mode", "yolo"},
			code:     2,
			inStderr: "yolo",
		},
		"empty prompt": {
			args:     []string{"-p", "  "},
			code:     2,
			inStderr: "-p needs a prompt",
		},
		"no endpoint": {
			args:     []string{"-p", "hello"},
			code:     2,
			inStderr: "--demo",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			box := newSandbox(t)
			env := box.env()
			if tc.turn != nil {
				srv := scriptedtest.New(t)
				srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{*tc.turn}})
				env = box.env("OPENAI_BASE_URL=" + srv.URL())
			}
			r := runCovey(t, t.TempDir(), env, "", append([]string{"--model", "e2e-model"}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.inStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.inStderr, r.stderr)
			}
		})
	}
}

// TestHeadlessStdinPrompt reads the prompt from stdin with -p -.
func TestHeadlessStdinPrompt(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: "prompt from stdin"},
		Turns: []scripted.Turn{{Text: "read it from stdin"}}})
	r := h.run(t, "a prompt from stdin\nwith two lines\n", "-p", "-")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "read it from stdin" {
		t.Fatalf("exit %d, stdout %q; want 0 and the scripted answer\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := h.srv.Journal()[0].FirstUser; !strings.Contains(got, "with two lines") {
		t.Errorf("the model got %q as the prompt, want all of stdin", got)
	}
}

// TestHeadlessPermissions checks that a write is refused in the default
// mode with a tool error saying how to allow it, and done with acceptEdits.
func TestHeadlessPermissions(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mode    []string
		written bool
	}{
		"default refuses":     {mode: nil, written: false},
		"acceptEdits permits": {mode: []string{"--permission-mode", "acceptEdits"}, written: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHeadlessRun(t)
			h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_write1", Name: "write_file", Args: map[string]any{"path": "NOTES.md", "content": "written by e2e\n"}}}},
				{Text: "done"},
			}})
			r := h.run(t, "", append([]string{"-p", "write the notes"}, tc.mode...)...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
			}
			data, err := os.ReadFile(filepath.Join(h.ws, "NOTES.md"))
			switch {
			case tc.written && (err != nil || string(data) != "written by e2e\n"):
				t.Errorf("NOTES.md = %q, %v; want the scripted content", data, err)
			case !tc.written && err == nil:
				t.Errorf("NOTES.md was written in the default mode: %q", data)
			}
			last := lastRequest(t, h.srv, "main")
			res := last.Messages[len(last.Messages)-1]
			if res.Role != "tool" || res.ToolCallID != "call_write1" {
				t.Fatalf("the last message is %+v, want the write_file result", res)
			}
			refused := strings.Contains(res.Content, "--permission-mode")
			if refused == tc.written {
				t.Errorf("tool result %q: mentions --permission-mode = %v, want %v", res.Content, refused, !tc.written)
			}
		})
	}
}

// TestSubcommands checks `covey tool`, `covey agents --json` and --version.
func TestSubcommands(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files[".covey/agents/reviewer.md"] = "---\nname: reviewer\ndescription: Reviews a diff and lists problems.\ntools: [read_file, grep]\n---\nYou review code.\n"
	ws := workspace(t, files)
	env := newSandbox(t).env()

	t.Run("tool grep", func(t *testing.T) {
		r := runCovey(t, ws, env, "", "tool", "grep", `{"pattern":"func main","output_mode":"files_with_matches"}`)
		if r.code != 0 || !strings.Contains(r.stdout, "main.go") || strings.Contains(r.stdout, "greet.go") {
			t.Errorf("exit %d, stdout %q; want 0 and main.go only\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("tool with bad JSON", func(t *testing.T) {
		r := runCovey(t, ws, env, "", "tool", "grep", `{"pattern":`)
		if r.code != 2 || !strings.Contains(r.stderr, "not valid JSON") {
			t.Errorf("exit %d, stderr %q; want 2 and a message about the JSON", r.code, r.stderr)
		}
	})
	t.Run("agents --json", func(t *testing.T) {
		r := runCovey(t, ws, env, "", "agents", "--json")
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		var out struct {
			Agents []struct {
				Name, Scope string
				Tools       []string
				ReadOnly    bool `json:"read_only"`
			} `json:"agents"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
		}
		got := map[string]string{}
		for _, a := range out.Agents {
			got[a.Name] = a.Scope
		}
		want := map[string]string{"Explore": "built-in", "Plan": "built-in", "general-purpose": "built-in", "reviewer": "project"}
		for name, scope := range want {
			if got[name] != scope {
				t.Errorf("agent %s has scope %q, want %q; all: %v", name, got[name], scope, got)
			}
		}
	})
	t.Run("version", func(t *testing.T) {
		r := runCovey(t, ws, env, "", "--version")
		if r.code != 0 || !regexp.MustCompile(`^covey \S+\n$`).MatchString(r.stdout) {
			t.Errorf("exit %d, stdout %q; want 0 and \"covey VERSION\"", r.code, r.stdout)
		}
	})
}
