package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// approvalRecordRe matches the one line an answered approval collapses to
// (ui's ApprovalBlock.record).
var approvalRecordRe = regexp.MustCompile(`(✓ allowed|✗ denied|✎ allowed with your edits)`)

// startApproval starts covey's TUI in a workspace of files against a fresh
// scripted server whose main agent follows turns once asked prompt, and
// returns the terminal, the server and the workspace.
func startApproval(t *testing.T, files map[string]string, prompt string, turns ...scripted.Turn) (*term, *scripted.Server, string) {
	t.Helper()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{
		Name:  "main",
		Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt},
		Turns: turns,
	})
	ws := workspace(t, files)
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit(prompt)
	return tm, srv, ws
}

// toolResult is the tool message answering the call with this id, from the
// first journaled request that carries it.
func toolResult(t *testing.T, srv *scripted.Server, id string) string {
	t.Helper()
	for _, e := range srv.Journal() {
		for _, m := range e.Messages {
			if m.Role == "tool" && m.ToolCallID == id {
				return m.Content
			}
		}
	}
	t.Fatalf("no request in the journal answers tool call %s", id)
	return ""
}

// approvalRecords are the screen's lines recording an answered approval.
func approvalRecords(screen string) []string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		if approvalRecordRe.MatchString(l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// TestTUIApprovalAllow writes a new file through write_file: covey asks
// first, nothing is on disk until y, and after y the file holds exactly the
// proposed content and the model receives a successful result.
func TestTUIApprovalAllow(t *testing.T) {
	t.Parallel()
	const (
		prompt  = "[e2e:approve-allow] write the notes"
		content = "hello from covey\n"
		answer  = "E2E allow answer: notes.txt is written."
	)
	tm, srv, ws := startApproval(t, sampleFiles(), prompt,
		scripted.Turn{Text: "Writing the notes.", ToolCalls: []scripted.Call{{ID: "call_write_notes", Name: "write_file",
			Args: map[string]any{"path": "notes.txt", "content": content}}}},
		scripted.Turn{Text: answer, ChunkSize: 100},
	)
	notes := filepath.Join(ws, "notes.txt")

	s := tm.waitText("? Allow write_file notes.txt", "y allow", "a allow for this session", "d deny with feedback")
	if !lineHas(s, "? Allow write_file notes.txt", "(new file)", "+1 -0") {
		t.Errorf("the approval header does not name the new file and its +1 -0 stats:\n%s", frame(s))
	}
	if !strings.Contains(s, "hello from covey") {
		t.Errorf("the approval does not show the proposed content:\n%s", frame(s))
	}
	if _, err := os.Stat(notes); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("notes.txt exists (stat error %v) before the write was allowed:\n%s", err, frame(s))
	}

	tm.waitApprovalReady()
	tm.press("y")
	s = tm.waitText(answer)
	if recs := approvalRecords(s); len(recs) != 1 || !strings.Contains(recs[0], "✓ allowed") || !strings.Contains(recs[0], "write_file notes.txt") {
		t.Errorf("approval records %q, want one \"✓ allowed  write_file notes.txt\":\n%s", recs, frame(s))
	}
	if strings.Contains(s, "? Allow") {
		t.Errorf("the answered approval is still asking:\n%s", frame(s))
	}
	if data, err := os.ReadFile(notes); err != nil || string(data) != content {
		t.Errorf("after y, notes.txt = %q, %v; want %q", data, err, content)
	}
	if res := toolResult(t, srv, "call_write_notes"); strings.HasPrefix(res, "Error:") {
		t.Errorf("the model received an error for the allowed write: %q", res)
	}
	tm.quitAndCheck(helpLine)
}

// TestTUIApprovalDenyWithFeedback denies an edit with a reason: the file
// stays byte for byte as it was and the model reads the reason in the
// tool's result.
func TestTUIApprovalDenyWithFeedback(t *testing.T) {
	t.Parallel()
	const (
		prompt   = "[e2e:approve-deny] localise the greeting"
		feedback = "use tabs instead"
		answer   = "E2E deny answer: I will use tabs."
	)
	files := sampleFiles()
	before := files["greet.go"]
	tm, srv, ws := startApproval(t, files, prompt,
		// edit_file refuses files the agent has not read: read it first.
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_read_greet", Name: "read_file", Args: map[string]any{"path": "greet.go"}}}},
		scripted.Turn{Text: "Editing the greeting.", ToolCalls: []scripted.Call{{ID: "call_edit_greet", Name: "edit_file",
			Args: map[string]any{"path": "greet.go", "old_string": `"hello"`, "new_string": `"bonjour"`}}}},
		scripted.Turn{Text: answer, ChunkSize: 100},
	)

	s := tm.waitText("? Allow edit_file greet.go", "d deny with feedback")
	if !lineHas(s, "? Allow edit_file greet.go", "+1 -1") {
		t.Errorf("the approval header lacks the edit's +1 -1 stats:\n%s", frame(s))
	}
	if !strings.Contains(s, "bonjour") {
		t.Errorf("the approval does not show the proposed change:\n%s", frame(s))
	}
	tm.waitApprovalReady()
	tm.press("d")
	tm.waitText("why? ›", "enter deny with this reason")
	tm.typeText(feedback)
	tm.waitText("why? › " + feedback)
	tm.press("Enter")
	s = tm.waitText(answer)
	if recs := approvalRecords(s); len(recs) != 1 || !strings.Contains(recs[0], "✗ denied: "+feedback) || !strings.Contains(recs[0], "edit_file greet.go") {
		t.Errorf("approval records %q, want one \"✗ denied: %s  edit_file greet.go\":\n%s", recs, feedback, frame(s))
	}
	if data, err := os.ReadFile(filepath.Join(ws, "greet.go")); err != nil || string(data) != before {
		t.Errorf("after the denial, greet.go = %q, %v; want it unchanged: %q", data, err, before)
	}
	if res := toolResult(t, srv, "call_read_greet"); strings.HasPrefix(res, "Error:") {
		t.Errorf("read_file failed, so the edit was not what was denied: %q", res)
	}
	res := toolResult(t, srv, "call_edit_greet")
	if !strings.HasPrefix(res, "Error:") || !strings.Contains(res, "the user denied this: "+feedback) {
		t.Errorf("the model's edit_file result = %q; want an error carrying %q", res, "the user denied this: "+feedback)
	}
	tm.quitAndCheck(helpLine)
}

// TestTUIApprovalAllowForSession answers a write with "allow for this
// session": a second write of the same file in a later turn runs without
// asking again.
func TestTUIApprovalAllowForSession(t *testing.T) {
	t.Parallel()
	const (
		prompt = "[e2e:approve-session] keep a log"
		first  = "one\n"
		second = "one\ntwo\n"
		answer = "E2E session answer: log.txt has two lines."
	)
	tm, srv, ws := startApproval(t, sampleFiles(), prompt,
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_log_1", Name: "write_file", Args: map[string]any{"path": "log.txt", "content": first}}}},
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_log_2", Name: "write_file", Args: map[string]any{"path": "log.txt", "content": second}}}},
		scripted.Turn{Text: answer, ChunkSize: 100},
	)
	logFile := filepath.Join(ws, "log.txt")

	s := tm.waitText("? Allow write_file log.txt", "a allow for this session (write_file(log.txt))")
	if _, err := os.Stat(logFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("log.txt exists (stat error %v) before the write was allowed:\n%s", err, frame(s))
	}
	tm.waitApprovalReady()
	tm.press("a")
	// Had the second write asked, the turn would wait for the answer and
	// the final text would never come.
	s = tm.waitText(answer)
	recs := approvalRecords(s)
	if len(recs) != 1 || !strings.Contains(recs[0], "✓ allowed for this session: write_file(log.txt)") {
		t.Errorf("approval records %q, want only one \"✓ allowed for this session: write_file(log.txt)\":\n%s", recs, frame(s))
	}
	if strings.Contains(s, "? Allow") {
		t.Errorf("an approval is still asking:\n%s", frame(s))
	}
	if data, err := os.ReadFile(logFile); err != nil || string(data) != second {
		t.Errorf("log.txt = %q, %v; want both writes, %q", data, err, second)
	}
	for _, id := range []string{"call_log_1", "call_log_2"} {
		if res := toolResult(t, srv, id); strings.HasPrefix(res, "Error:") {
			t.Errorf("the model received an error for %s: %q", id, res)
		}
	}
	tm.quitAndCheck(helpLine)
}
