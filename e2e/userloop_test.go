package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// userLoopSizes are the terminal sizes the user-in-the-loop tests run at.
var userLoopSizes = [][2]int{{80, 24}, {200, 50}}

// askArgs are ask_user's arguments: question and option labels.
func askArgs(question string, labels ...string) map[string]any {
	opts := make([]map[string]any, len(labels))
	for i, l := range labels {
		opts[i] = map[string]any{"label": l, "description": "option " + l}
	}
	return map[string]any{"question": question, "options": opts}
}

// TestTUIAskUserByNumber: the main agent asks; the question and its
// numbered options show under the call, the number answers, and the model
// reads the label picked.
func TestTUIAskUserByNumber(t *testing.T) {
	t.Parallel()
	for _, size := range userLoopSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			const prompt = "[e2e:ask-main] which database"
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
				{Text: "One question first.", ToolCalls: []scripted.Call{{ID: "call_ask", Name: "ask_user",
					Args: askArgs("Which database should the service use?", "Postgres", "SQLite", "MySQL")}}},
				{Text: "ASKED DONE."},
			}})
			tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
			tm.waitText(helpLine)
			tm.resize(size[0], size[1])
			tm.submit(prompt)
			s := tm.waitText("? Which database", "1. Postgres", "2. SQLite", "3. MySQL", "4. Type an answer")
			if !strings.Contains(s, "esc decline") {
				t.Errorf("the question does not say esc declines:\n%s", frame(s))
			}
			tm.waitApprovalReady()
			tm.press("2")
			s = tm.waitText("ASKED DONE.")
			if !strings.Contains(s, "✓ answered: SQLite") {
				t.Errorf("the answered question leaves no record of the answer:\n%s", frame(s))
			}
			if got := toolResult(t, srv, "call_ask"); got != "The user answered: SQLite" {
				t.Errorf("the model read %q, want the label picked", got)
			}
			tm.quitAndCheck(helpLine)
		})
	}
}

// TestTUIAskUserFreeTextAndDecline: the last row takes a typed answer, and
// esc declines a second question.
func TestTUIAskUserFreeTextAndDecline(t *testing.T) {
	t.Parallel()
	const prompt = "[e2e:ask-free] name it"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_name", Name: "ask_user", Args: askArgs("What should the tool be called?", "covey", "nest")}}},
		{ToolCalls: []scripted.Call{{ID: "call_colour", Name: "ask_user", Args: askArgs("Which colour?", "red", "blue")}}},
		{Text: "FREE DONE."},
	}})
	tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit(prompt)
	tm.waitText("? What should the tool be called?", "3. Type an answer")
	tm.waitApprovalReady()
	tm.press("Down", "Down", "Enter")
	tm.waitText("answer ›")
	tm.typeText("roost")
	tm.press("Enter")
	tm.waitText("? Which colour?")
	tm.waitApprovalReady()
	tm.press("Escape")
	s := tm.waitText("FREE DONE.")
	if got := toolResult(t, srv, "call_name"); got != "The user answered: roost" {
		t.Errorf("the typed answer reached the model as %q", got)
	}
	if got := toolResult(t, srv, "call_colour"); got != "the user declined to answer" {
		t.Errorf("esc reached the model as %q, want the user declined", got)
	}
	if !strings.Contains(s, "✗ declined to answer") {
		t.Errorf("the declined question leaves no record:\n%s", frame(s))
	}
}

// TestTUIChildAsksSiblingWorks: a child asks while its sibling keeps
// working and finishes; the pane says the child needs you; the answer
// reaches only the child that asked.
func TestTUIChildAsksSiblingWorks(t *testing.T) {
	t.Parallel()
	for _, size := range userLoopSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			const prompt = "[e2e:ask-kids] two helpers"
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
				{Text: "Starting helpers.", ToolCalls: []scripted.Call{
					{ID: "call_asker", Name: "task", Args: map[string]any{"description": "asker", "subagent_type": "general-purpose", "prompt": "[kid-asker] ask"}},
					{ID: "call_worker", Name: "task", Args: map[string]any{"description": "worker", "subagent_type": "general-purpose", "prompt": "[kid-worker] work"}},
				}},
				{Text: "KIDS DONE."},
			}})
			srv.Add(scripted.Conversation{Name: "asker", Match: scripted.Match{FirstUser: "[kid-asker]"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_kid_ask", Name: "ask_user", Args: askArgs("Keep the old API?", "keep it", "drop it")}}},
				{Text: "asker finished"},
			}})
			// The worker goes on only after the question is on the
			// screen, and finishes while it waits.
			g := newGate(t)
			srv.Add(scripted.Conversation{Name: "worker", Match: scripted.Match{FirstUser: "[kid-worker]"}, Turns: []scripted.Turn{
				g.hold(scripted.Turn{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "main.go"})}}),
				{ToolCalls: []scripted.Call{call("list_dir", map[string]any{"path": "."})}},
				{Text: "worker finished"},
			}})
			tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
			tm.waitText(helpLine)
			tm.resize(size[0], size[1])
			tm.submit(prompt)
			s := tm.waitText("? Keep the old API?", "1. keep it")
			if !lineHas(s, "asker [general-purpose]", "needs your answer") || !strings.Contains(s, "asks you:") {
				t.Errorf("nothing says the asking child needs you:\n%s", frame(s))
			}
			g.open()
			// The sibling finishes while the question waits.
			workerDone := regexp.MustCompile(`✓ worker \[general-purpose\]`)
			tm.waitFor("the worker to finish while the question waits", waitLong, func(s string) bool {
				return workerDone.MatchString(s) && strings.Contains(s, "? Keep the old API?")
			})
			// The keys go to the input (tab), then to the overview.
			tm.waitApprovalReady()
			tm.press("Tab")
			tm.waitText("tab answer the waiting request")
			tm.press("C-g")
			s = tm.waitText("Crew · 2 subagents")
			if !lineHas(s, "asker", "needs your answer") {
				t.Errorf("the overview does not say the child waits for your answer:\n%s", frame(s))
			}
			// The asking child's full-screen view shows the question
			// too, and takes the answer there.
			if !regexp.MustCompile(`› asker\b`).MatchString(s) {
				// The rows' order is the children's start order.
				move := "Up"
				if strings.Index(s, "› worker") < strings.Index(s, "  asker ") {
					move = "Down"
				}
				tm.press(move)
				tm.waitMatch(regexp.MustCompile(`› asker\b`))
			}
			tm.press("o")
			s = tm.waitText("? Keep the old API?", "1. keep it")
			if strings.Contains(s, "Crew · ") {
				t.Errorf("the overview is still shown:\n%s", frame(s))
			}
			tm.press("Tab")
			tm.waitApprovalReady()
			tm.press("2")
			tm.waitText("✓ drop it")
			// Back from the child's view, through the overview, to the
			// conversation.
			tm.press("Escape")
			tm.waitText("Crew · 2 subagents")
			tm.press("Escape")
			tm.waitText("KIDS DONE.")
			if got := toolResult(t, srv, "call_kid_ask"); got != "The user answered: drop it" {
				t.Errorf("the asking child read %q", got)
			}
			for _, e := range srv.Journal() {
				if e.Conversation == "asker" {
					continue
				}
				for _, m := range e.Messages {
					if strings.Contains(m.Content, "The user answered") {
						t.Errorf("conversation %s received the answer: %q", e.Conversation, m.Content)
					}
				}
			}
		})
	}
}

// TestTUIApprovalAndQuestionAtOnce: a child's write waits for approval
// while another child's question waits behind it (or before it); each is
// answered by its own keys, in order, and each answer reaches its child.
func TestTUIApprovalAndQuestionAtOnce(t *testing.T) {
	t.Parallel()
	for _, size := range userLoopSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			const prompt = "[e2e:ask-and-approve] two helpers"
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
				{Text: "Starting helpers.", ToolCalls: []scripted.Call{
					{ID: "call_writer", Name: "task", Args: map[string]any{"description": "writer", "subagent_type": "general-purpose", "prompt": "[kid-writer] write"}},
					{ID: "call_asker", Name: "task", Args: map[string]any{"description": "asker", "subagent_type": "general-purpose", "prompt": "[kid-asker2] ask"}},
				}},
				{Text: "BOTH DONE."},
			}})
			g := newGate(t)
			srv.Add(scripted.Conversation{Name: "writer", Match: scripted.Match{FirstUser: "[kid-writer]"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_kid_write", Name: "write_file", Args: map[string]any{"path": "notes.txt", "content": "hi\n"}}}},
				{Text: "writer finished"},
			}})
			srv.Add(scripted.Conversation{Name: "asker", Match: scripted.Match{FirstUser: "[kid-asker2]"}, Turns: []scripted.Turn{
				g.hold(scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_kid_q", Name: "ask_user", Args: askArgs("Tabs or spaces?", "tabs", "spaces")}}}),
				{Text: "asker finished"},
			}})
			tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
			tm.waitText(helpLine)
			tm.resize(size[0], size[1])
			tm.submit(prompt)
			tm.waitText("? Allow write_file notes.txt")
			g.open()
			s := tm.waitText("1 more waiting")
			if strings.Contains(s, "? Tabs or spaces?") {
				t.Errorf("the question shows before the approval ahead of it is answered:\n%s", frame(s))
			}
			tm.waitApprovalReady()
			// A number is no answer to a write: it does nothing there.
			tm.press("1")
			tm.waitApprovalReady() // a pause: "1y" read at once would be one paste
			tm.press("y")
			tm.waitText("? Tabs or spaces?")
			tm.waitApprovalReady()
			tm.press("1")
			tm.waitText("BOTH DONE.")
			if got := toolResult(t, srv, "call_kid_q"); got != "The user answered: tabs" {
				t.Errorf("the question's child read %q", got)
			}
			if got := toolResult(t, srv, "call_kid_write"); strings.HasPrefix(got, "Error:") {
				t.Errorf("the allowed write failed: %q", got)
			}
		})
	}
}

// planText is the plan the scripted model presents.
const planText = "# Rename the greeting\n\n1. Edit `main.go`: say **hello**.\n2. Run the tests."

// TestTUIPlanApproved: in plan mode the plan shows rendered; a approves
// it into acceptEdits, the status shows the mode, and the write the model
// then makes runs without asking.
func TestTUIPlanApproved(t *testing.T) {
	t.Parallel()
	for _, size := range userLoopSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			const prompt = "[e2e:plan-ok] rename"
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_plan", Name: "exit_plan_mode", Args: map[string]any{"plan": planText}}}},
				{ToolCalls: []scripted.Call{{ID: "call_write", Name: "write_file", Args: map[string]any{"path": "notes.txt", "content": "done\n"}}}},
				{Text: "PLAN CARRIED OUT."},
			}})
			ws := workspace(t, sampleFiles())
			tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model", "--permission-mode", "plan")
			tm.waitText(helpLine)
			tm.resize(size[0], size[1])
			tm.submit(prompt)
			s := tm.waitText("? Approve this plan?", "Rename the greeting", "a approve, accept edits")
			if strings.Contains(s, "**hello**") || strings.Contains(s, "`main.go`") {
				t.Errorf("the plan is not rendered (markdown marks show):\n%s", frame(s))
			}
			tm.waitApprovalReady()
			tm.press("a")
			s = tm.waitText("PLAN CARRIED OUT.")
			if !strings.Contains(s, "plan approved: acceptEdits") {
				t.Errorf("no record of the approval:\n%s", frame(s))
			}
			if strings.Contains(s, "? Allow write_file") {
				t.Errorf("acceptEdits asked about the write:\n%s", frame(s))
			}
			if got := toolResult(t, srv, "call_write"); strings.HasPrefix(got, "Error:") {
				t.Errorf("the write after the approval failed: %q", got)
			}
			if got := toolResult(t, srv, "call_plan"); !strings.Contains(got, "approved") || !strings.Contains(got, "acceptEdits") {
				t.Errorf("the model read %q for the approved plan", got)
			}
		})
	}
}

// TestTUIPlanRejectedWithFeedback: d opens the feedback, enter sends it as
// the tool's result, and the session stays in plan mode (the write the
// model then tries is refused).
func TestTUIPlanRejectedWithFeedback(t *testing.T) {
	t.Parallel()
	for _, size := range userLoopSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			const prompt = "[e2e:plan-no] rename"
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_plan", Name: "exit_plan_mode", Args: map[string]any{"plan": planText}}}},
				{ToolCalls: []scripted.Call{{ID: "call_write", Name: "write_file", Args: map[string]any{"path": "notes.txt", "content": "x\n"}}}},
				{Text: "REVISING."},
			}})
			tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model", "--permission-mode", "plan")
			tm.waitText(helpLine)
			tm.resize(size[0], size[1])
			tm.submit(prompt)
			tm.waitText("? Approve this plan?")
			tm.waitApprovalReady()
			tm.press("d")
			tm.waitText("what to change?")
			tm.typeText("also update the docs")
			tm.press("Enter")
			s := tm.waitText("REVISING.")
			if !strings.Contains(s, "kept planning: also update the docs") {
				t.Errorf("no record of the feedback:\n%s", frame(s))
			}
			if got := toolResult(t, srv, "call_plan"); !strings.Contains(got, "also update the docs") {
				t.Errorf("the feedback did not reach the model: %q", got)
			}
			if got := toolResult(t, srv, "call_write"); !strings.Contains(got, "unknown tool") && !strings.Contains(got, "plan") {
				t.Errorf("a write after the rejected plan was not refused: %q", got)
			}
		})
	}
}
