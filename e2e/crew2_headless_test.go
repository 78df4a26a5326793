package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"covey/internal/scripted"
)

// markerGone fails the test when a process whose command line holds marker
// is still alive a few seconds after covey exited.
func markerGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-af", marker).Output()
		var left []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" && !strings.Contains(l, "pgrep") {
				left = append(left, l)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHeadlessBackgroundShells: bash run_in_background returns at once;
// bash_output reads what the shell printed and how it exited; kill_shell
// stops one with its whole group; a shell still running when the run ends
// does not hold it up and is stopped at exit, leaving no process behind.
func TestHeadlessBackgroundShells(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	marker := fmt.Sprintf("covey-e2e-shell-%d", time.Now().UnixNano())
	bg := func(id, command string) scripted.Turn {
		return scripted.Turn{ToolCalls: []scripted.Call{{ID: id, Name: "bash", Args: map[string]any{"command": command, "run_in_background": true}}}}
	}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		bg("call_1", "echo hello-bg; sleep 0.3; echo bye-bg; exit 4"),
		{ToolCalls: []scripted.Call{{ID: "call_2", Name: "bash_output", Args: map[string]any{"id": "shell-1", "wait_s": 20}}}},
		bg("call_3", "(exec -a "+marker+"-killed sleep 300) & echo started; wait"),
		{ToolCalls: []scripted.Call{{ID: "call_4", Name: "kill_shell", Args: map[string]any{"id": "shell-2"}}}},
		bg("call_5", "(exec -a "+marker+"-left sleep 300) & wait"),
		{Text: "SHELLS DONE"},
	}})

	// A run that waited for shell-3 (300 s) would not end within runCovey's
	// minute.
	r := h.run(t, "", "-p", "run the shells", "--output-format", "stream-json", "--permission-mode", "bypassPermissions")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	results := map[string]string{}
	var shellStarted, shellFinished []string
	for _, e := range parseStream(t, r.stdout) {
		switch {
		case e.Type == "tool_finished" && e.AgentID == "main":
			var ev struct {
				CallID string `json:"call_id"`
			}
			_ = json.Unmarshal([]byte(e.raw), &ev)
			results[ev.CallID] = e.Result.Content
		case e.Type == "child_started" && strings.HasPrefix(e.AgentID, "shell-"):
			shellStarted = append(shellStarted, e.AgentID)
			if e.ParentID != "main" || !strings.Contains(e.raw, `"agent_type":"shell"`) {
				t.Errorf("shell start %s", e.raw)
			}
		case e.Type == "child_finished" && strings.HasPrefix(e.AgentID, "shell-"):
			shellFinished = append(shellFinished, e.AgentID+" "+e.Reason)
		}
	}
	for id, want := range map[string][]string{
		"call_1": {"Started background shell shell-1", `bash_output {"id": "shell-1"}`},
		"call_2": {"hello-bg\nbye-bg\n", "[shell-1 exited with code 4]"},
		"call_3": {"Started background shell shell-2"},
		"call_4": {"shell-2 was killed."},
		"call_5": {"Started background shell shell-3"},
	} {
		for _, w := range want {
			if !strings.Contains(results[id], w) {
				t.Errorf("%s: result %q lacks %q", id, results[id], w)
			}
		}
	}
	if !slices.Equal(shellStarted, []string{"shell-1", "shell-2", "shell-3"}) {
		t.Errorf("shells started: %v", shellStarted)
	}
	slices.Sort(shellFinished)
	if !slices.Equal(shellFinished, []string{"shell-1 error", "shell-2 cancelled", "shell-3 cancelled"}) {
		t.Errorf("shells finished: %v", shellFinished)
	}
	markerGone(t, marker)

	// Text mode says on stderr when a shell starts and how it ended.
	h2 := newHeadlessRun(t)
	h2.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		bg("call_1", "echo hi"),
		{ToolCalls: []scripted.Call{{ID: "call_2", Name: "bash_output", Args: map[string]any{"id": "shell-1", "wait_s": 20}}}},
		{Text: "TEXT DONE"},
		bg("call_3", "echo again"),
		{Text: "AGAIN DONE"},
	}})
	r2 := h2.run(t, "", "-p", "run it", "--permission-mode", "bypassPermissions")
	if r2.code != 0 || strings.TrimSpace(r2.stdout) != "TEXT DONE" {
		t.Fatalf("text mode: exit %d, stdout %q\nstderr:\n%s", r2.code, r2.stdout, r2.stderr)
	}
	for _, want := range []string{"[shell] shell-1 … started: echo hi", "[shell] shell-1: exit 0 ("} {
		if !strings.Contains(r2.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r2.stderr)
		}
	}

	// A resumed session's new shell does not take an old one's id.
	r3 := h2.run(t, "", "-p", "once more", "--continue", "--permission-mode", "bypassPermissions")
	if r3.code != 0 || !strings.Contains(r3.stderr, "[shell] shell-2 … started: echo again") {
		t.Errorf("continued: exit %d\nstderr:\n%s", r3.code, r3.stderr)
	}
}

// TestHeadlessForkedChild: a task call with fork starts the child from the
// main agent's conversation: its first request begins with exactly the
// messages of the main agent's last request, byte for byte, then the
// message holding the call, that call's result, and the brief; its tools
// are still its read-only type's.
func TestHeadlessForkedChild(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	// The children's model is e2e-small, which tells their requests
	// apart: its system prompt is the main agent's.
	h.ws = workspace(t, map[string]string{".covey/config.yaml": "subagent_model: e2e-small\n", "greet.go": "package main\n\nfunc greeting() string { return \"hi\" }\n"})
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Text: "Reading first.", ToolCalls: []scripted.Call{{ID: "call_read", Name: "read_file", Args: map[string]any{"path": "greet.go"}}}},
		{ToolCalls: []scripted.Call{{ID: "call_fork", Name: "task", Args: map[string]any{
			"description": "find callers", "subagent_type": "Explore", "fork": true,
			"prompt": "Find who calls greeting.",
		}}}},
		{Text: "FORK DONE"},
	}})
	// The child's first request holds the main agent's two assistant
	// messages (three, when the wire form closes the tool results with
	// one before the brief): it is the conversation's third or fourth turn.
	report := scripted.Turn{Text: "FORK REPORT: nobody calls greeting."}
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{SystemContains: mainPrompt, Model: "e2e-small"}, Turns: []scripted.Turn{
		{}, {}, report, report,
	}})

	r := h.run(t, "", "-p", "[e2e:fork] who calls greeting?", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var parent, child *scripted.Entry
	var final scripted.Entry
	for _, e := range h.srv.Journal() {
		switch {
		case e.Conversation == "main" && e.Turn == 1:
			parent = &e
		case e.Conversation == "main" && e.Turn == 2:
			final = e
		case e.Conversation == "child" && child == nil:
			child = &e
		}
	}
	if parent == nil || child == nil {
		t.Fatalf("requests: parent %v, child %v", parent != nil, child != nil)
	}
	pm, cm := rawMessages(t, parent.Body), rawMessages(t, child.Body)
	if len(cm) < len(pm)+3 {
		t.Fatalf("child's first request has %d messages, the parent's last %d (want at least +3: the call, its result, the brief)", len(cm), len(pm))
	}
	for i := range pm {
		if !bytes.Equal(pm[i], cm[i]) {
			t.Fatalf("message %d differs:\nparent %s\nchild  %s", i, pm[i], cm[i])
		}
	}
	// Then the call, its result and (after whatever the wire form puts
	// between a tool result and a user message) the brief.
	rest := child.Messages[len(pm):]
	brief := rest[len(rest)-1]
	if rest[0].Role != "assistant" || len(rest[0].ToolCalls) != 1 || rest[0].ToolCalls[0].ID != "call_fork" ||
		rest[1].Role != "tool" || rest[1].ToolCallID != "call_fork" || !strings.Contains(rest[1].Content, "started you") ||
		brief.Role != "user" || !strings.Contains(brief.Content, "forked subagent of type Explore") || !strings.HasSuffix(brief.Content, "Find who calls greeting.") {
		t.Errorf("after the prefix: %+v", rest)
	}
	for _, tool := range child.Tools {
		if tool == "write_file" || tool == "edit_file" || tool == "bash" || tool == "task" {
			t.Errorf("the forked Explore child was offered %s: %v", tool, child.Tools)
		}
	}
	if !slices.Contains(child.Tools, "read_file") {
		t.Errorf("child tools %v", child.Tools)
	}
	if !strings.Contains(r.stdout, `"forked":true`) {
		t.Error("child_started does not say forked")
	}
	if last := final.Messages[len(final.Messages)-1]; last.Role != "tool" || !strings.Contains(last.Content, "FORK REPORT: nobody calls greeting.") {
		t.Errorf("the task result: %+v", last)
	}
}

// rawMessages returns a request body's messages as they were sent.
func rawMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return req.Messages
}
