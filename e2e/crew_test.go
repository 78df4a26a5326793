package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// startCrew starts the TUI like startScripted with extra flags.
func startCrew(t *testing.T, args ...string) (*term, *scripted.Server, string) {
	t.Helper()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, append([]string{"--model", "e2e-model"}, args...)...)
	tm.waitText(helpLine)
	return tm, srv, ws
}

// writerTask is a general-purpose child's entry for the task tool.
func writerTask(marker, description string) map[string]string {
	return map[string]string{"description": description, "subagent_type": "general-purpose",
		"prompt": marker + " Write the notes file."}
}

// overviewName reads the name of the child whose row shows task in the
// crew overview (the first word of its row).
func overviewName(t *testing.T, screen, task string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, task) {
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "›"))
			if len(f) > 0 {
				return f[0]
			}
		}
	}
	t.Fatalf("no overview row for %q:\n%s", task, frame(screen))
	return ""
}

// TestTUICrewOverviewOpenAndDiff drives the crew views in a real terminal:
// a writing child's pane counts the file it wrote; ctrl+g lists both
// children with their states; enter opens the writer full-screen with its
// tool calls and the diff of its file; esc goes back to the overview, and
// again to the conversation; /diff NAME shows the same diff there.
func TestTUICrewOverviewOpenAndDiff(t *testing.T) {
	t.Parallel()
	tm, srv, ws := startCrew(t, "--permission-mode", "acceptEdits")
	release := newGate(t)
	writer := scripted.Conversation{Name: "writer", Match: scripted.Match{FirstUser: "[e2e:writer]"}, Turns: []scripted.Turn{
		{Text: "Writing the notes.", ToolCalls: []scripted.Call{call("write_file", map[string]any{
			"path": "NOTES.md", "content": "crew notes\nline two\n"})}},
		release.hold(scripted.Turn{Text: "writer report: NOTES.md written."}),
	}}
	reader := child{marker: "[e2e:reader]", description: "scan docs", turns: []scripted.Turn{
		{Text: "Globbing the docs.", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.md"})}},
		release.hold(scripted.Turn{Text: "reader report: two docs."}),
	}}
	srv.Add(writer)
	srv.Add(reader.conversation())
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Text: "Two helpers.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": []map[string]string{
			writerTask("[e2e:writer]", "write notes"), reader.task("Look at the docs."),
		}}}}},
		{Text: "E2E crew answer: notes written.", ChunkSize: 100},
	}})

	tm.submit("write the notes")
	tm.waitMatch(regexp.MustCompile(typedPaneRe("general-purpose", "write notes").String() + `.*1 tool · 1 file \+2 −0 · `))
	tm.waitMatch(toolsRe("scan docs", 1))

	tm.press("C-g")
	s := tm.waitText("Crew · 2 subagents · 2 running")
	// At 120 columns every column shows, the model's too.
	for _, want := range []string{"write notes", "scan docs", "general-purpose", "Explore", "MODEL", "e2e-model", "TOOLS", "ELAPSED"} {
		if !strings.Contains(s, want) {
			t.Errorf("the overview lacks %q:\n%s", want, frame(s))
		}
	}
	if strings.Contains(s, "I'll") || strings.Contains(s, "❯ write the notes") {
		t.Errorf("the overview still shows the conversation:\n%s", frame(s))
	}
	name := overviewName(t, s, "write notes")

	// The writer is the first row and selected; enter opens it.
	tm.press("Enter")
	s = tm.waitText("Changed files · 1 file +2 −0", "+crew notes")
	for _, want := range []string{"Writing the notes.", "write_file", "NOTES.md (added, +2 −0)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the writer's full-screen view lacks %q:\n%s", want, frame(s))
		}
	}
	if strings.Contains(s, "Globbing the docs.") {
		t.Errorf("the writer's view shows its sibling's activity:\n%s", frame(s))
	}
	tm.press("Escape")
	tm.waitText("Crew · 2 subagents")
	tm.press("Escape")
	tm.waitText("❯ write the notes")

	release.open()
	tm.waitText("E2E crew answer: notes written.")
	tm.submit("/diff " + name)
	tm.waitText("Files changed by "+name, "+line two")
	if b, err := os.ReadFile(filepath.Join(ws, "NOTES.md")); err != nil || string(b) != "crew notes\nline two\n" {
		t.Errorf("NOTES.md on disk: %q, %v", b, err)
	}
	tm.submit("/diff nobody-at-all")
	tm.waitText("no subagent named nobody-at-all")
	tm.quitAndCheck(helpLine)
}

// requestsOf lists the journal's requests of one conversation.
func requestsOf(srv *scripted.Server, conversation string) []scripted.Entry {
	var out []scripted.Entry
	for _, e := range srv.Journal() {
		if e.Conversation == conversation {
			out = append(out, e)
		}
	}
	return out
}

// hasUser reports whether a request carries a user message holding s.
func hasUser(e scripted.Entry, s string) bool {
	for _, m := range e.Messages {
		if m.Role == "user" && strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

// focusPane presses tab until the pane with this description has the focus.
// After each tab it waits for the focus to move: a frame from before the
// tab was read, on a slow machine, would make it press tab again and skip
// past the pane.
func focusPane(tm *term, description string) {
	tm.t.Helper()
	for range 8 {
		s := tm.screen()
		if h, _, ok := paneHeader(s, description); ok && strings.HasPrefix(h, "▌") {
			return
		}
		was := focusedBlock(s)
		tm.press("Tab")
		tm.waitFor("tab to move the focus", waitLong, func(s string) bool { return focusedBlock(s) != was })
	}
	tm.waitFor("the pane "+description+" to take the focus", waitLong, func(s string) bool {
		h, _, ok := paneHeader(s, description)
		return ok && strings.HasPrefix(h, "▌")
	})
}

// focusedBlock names the block that has the focus by the words of its
// first line (the focused block's lines carry the "▌" gutter), without
// the digits and spinners that change while it runs; "" when the input has
// the focus.
func focusedBlock(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "▌") {
			return strings.Join(strings.FieldsFunc(l, func(r rune) bool { return !unicode.IsLetter(r) }), " ")
		}
	}
	return ""
}

// TestTUICrewBackgroundSteerPauseResume drives one child through the crew
// controls in a real terminal: ctrl+b sends it to the background and the
// main agent answers a new prompt while it runs; m steers it (the message
// reaches its next request on the scripted server); p pauses it (no new
// request while paused) and resumes it; its result comes back to the main
// agent as a turn of its own; m on the finished child resumes it with its
// history, and that result comes back too.
func TestTUICrewBackgroundSteerPauseResume(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startCrew(t)
	step2 := newGate(t)
	// After its two steps the runner reports, or follows up when resumed
	// (the engine may add messages, so the turn is chosen by content).
	after := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		if strings.Contains(r.LastUser(), "one more thing") {
			return scripted.Turn{Text: "runner follow-up: main.go calls it.", ChunkSize: 100}
		}
		return scripted.Turn{Text: "runner report: greet.go holds the greeting.", ChunkSize: 100}
	}}
	runner := child{marker: "[e2e:runner]", description: "run long", turns: []scripted.Turn{
		{Text: "Globbing.", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"})}},
		step2.hold(scripted.Turn{Text: "Searching.", ToolCalls: []scripted.Call{call("grep", map[string]any{"pattern": "func ", "output_mode": "count"})}}),
		after, after, after, after,
	}}
	const (
		wentOn   = "E2E main goes on without waiting."
		second   = "E2E second answer while the child runs."
		gotBack  = "E2E main read the runner's report."
		followUp = "E2E main read the runner's follow-up."
		steer    = "focus on greet.go please"
		resume   = "one more thing: who calls it?"
	)
	mainTurn := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		last := r.LastMessage()
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "runner follow-up"):
			return scripted.Turn{Text: followUp, ChunkSize: 100}
		case last.Role == "user" && strings.Contains(last.Content, "runner report"):
			return scripted.Turn{Text: gotBack, ChunkSize: 100}
		case last.Role == "user" && strings.Contains(last.Content, "second prompt"):
			return scripted.Turn{Text: second, ChunkSize: 100}
		case last.Role == "tool":
			return scripted.Turn{Text: wentOn, ChunkSize: 100}
		}
		return spawn("One runner.", runner)
	}}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt},
		Turns: []scripted.Turn{mainTurn, mainTurn, mainTurn, mainTurn, mainTurn, mainTurn, mainTurn, mainTurn}})
	srv.Add(runner.conversation())

	tm.submit("first prompt: start the runner")
	tm.waitMatch(toolsRe("run long", 1)) // its second request is held
	focusPane(tm, "run long")

	// ctrl+b: the task call returns, the main agent goes on.
	tm.press("C-b")
	tm.waitText(wentOn)
	tm.waitOK("the pane in the background", func(s string) error {
		if h, _, _ := paneHeader(s, "run long"); !strings.Contains(h, "background") {
			return fmt.Errorf("header %q", h)
		}
		return nil
	})
	// A new prompt is answered while the child still runs.
	tm.press("Escape")
	tm.waitText("enter send") // the input has the keyboard (a key right after esc would read as alt+key)
	tm.submit("second prompt: still with me?")
	s := tm.waitText(second)
	if h, _, _ := paneHeader(s, "run long"); strings.Contains(h, "✓") {
		t.Fatalf("the child finished before the test released it: %q", h)
	}

	// The rest goes through the crew overview, where the only child is
	// selected. m: steer the running child.
	tm.press("C-g")
	tm.waitText("Crew · 1 subagent · 1 running")
	tm.press("m")
	tm.waitText("to run")
	tm.typeText(steer)
	tm.press("Enter")
	// The engine delivers it before the child's next request (the current
	// one is held), and its pane shows it then.
	tm.waitOK("the input back to the overview", func(s string) error {
		if strings.Contains(s, "to run") || strings.Contains(s, "message to") {
			return fmt.Errorf("still addressed, or the send failed")
		}
		return nil
	})

	// p: pause it, then let its held request finish: no new request while
	// paused.
	tm.press("p")
	tm.waitMatch(regexp.MustCompile(`run-long\s.*paused`))
	step2.open()
	tm.press("Escape")
	tm.waitText("│ Searching.") // the current request completes
	// Give a wrongly running child the time to ask again; a paused one
	// does not.
	time.Sleep(time.Second)
	if n := len(requestsOf(srv, runner.marker)); n != 2 {
		t.Fatalf("the paused child made %d requests, want 2 (none after the pause)", n)
	}
	if h, _, _ := paneHeader(tm.screen(), "run long"); !strings.Contains(h, "paused") {
		t.Errorf("the pane does not say paused: %q", h)
	}
	tm.press("C-g")
	tm.waitText("Crew · 1 subagent")
	tm.press("p")
	tm.press("Escape")
	tm.waitText(gotBack)            // its report started a main-agent turn
	tm.waitText("✉ read: " + steer) // the steering message shows read in its pane
	reqs := requestsOf(srv, runner.marker)
	if len(reqs) < 3 || !hasUser(reqs[2], steer) {
		t.Fatalf("the steering message is not in the child's next request (%d requests)", len(reqs))
	}
	s = tm.waitText("background child")
	if h, _, _ := paneHeader(s, "run long"); !strings.Contains(h, "✓") {
		t.Errorf("the child's pane is not done: %q", h)
	}

	// m on the finished child resumes it with its history.
	tm.press("C-g")
	tm.waitText("Crew · 1 subagent · 0 running")
	tm.press("m")
	tm.waitText("to run")
	tm.typeText(resume)
	tm.press("Enter")
	tm.press("Escape")
	tm.waitText(followUp)
	reqs = requestsOf(srv, runner.marker)
	last := reqs[len(reqs)-1]
	if !hasUser(last, resume) || !hasUser(last, steer) || !hasUser(last, "[e2e:runner]") {
		t.Errorf("the resumed child's request lacks its history or the message: %+v", last.Messages)
	}
	tm.quitAndCheck(helpLine)
}

// TestTUICrewBudget runs a child whose agent file sets a token budget: its
// pane shows its tokens against the budget, and at the limit it stops like
// at max turns, saying so.
func TestTUICrewBudget(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	files := sampleFiles()
	files[".covey/agents/capped.md"] = "---\nname: capped\ndescription: Counts with a tiny budget.\n" +
		"tools: [glob]\nmax_tokens: 1000\n---\nYou count files.\n"
	ws := workspace(t, files)
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, "--model", "e2e-model")
	tm.waitText(helpLine)
	glob := scripted.Turn{Text: "Counting.", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*"})}}
	srv.Add(scripted.Conversation{Name: "capped", Match: scripted.Match{FirstUser: "[e2e:capped]"},
		Turns: []scripted.Turn{glob, glob, glob, glob, glob, glob}})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Text: "One capped counter.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{
			"description": "count files", "subagent_type": "capped", "prompt": "[e2e:capped] Count the files."}}}},
		{Text: "E2E budget answer.", ChunkSize: 100},
	}})
	tm.submit("count with a budget")
	s := tm.waitText("E2E budget answer.")
	if !regexp.MustCompile(typedPaneRe("capped", "count files").String() + `.*/1k tok`).MatchString(s) {
		t.Errorf("the pane does not show its tokens against the budget:\n%s", frame(s))
	}
	if !strings.Contains(s, "stopped at its budget") {
		t.Errorf("the pane does not say the child stopped at its budget:\n%s", frame(s))
	}
	if n := len(requestsOf(srv, "capped")); n >= 6 {
		t.Errorf("the capped child made %d requests: the budget did not stop it", n)
	}
	tm.quitAndCheck(helpLine)
}
