package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestTUICrewStates drives one child through pause, background, pause in
// the background and a message, at 80x24 and 200x50, and checks that the
// overview's title counts what its rows say, that a paused background
// child says both, that paused time shows as such and the main agent's
// status says it waits on the paused child, that a message shows queued
// at once and read once the child's next request took it, and that the
// overview keeps the task before the tokens at 80 columns.
func TestTUICrewStates(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			crewStates(t, size.w, size.h)
		})
	}
}

func crewStates(t *testing.T, width, height int) {
	tm, srv, _ := startCrew(t)
	tm.resize(width, height)
	step2, step3 := newGate(t), newGate(t)
	const (
		steer  = "focus on greet.go"
		wentOn = "E2E states: main goes on."
		report = "E2E states: main read the report."
	)
	after := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		return scripted.Turn{Text: "states report: greet.go holds it.", ChunkSize: 100}
	}}
	runner := child{marker: "[e2e:states]", description: "run long", turns: []scripted.Turn{
		{Text: "Globbing.", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"})}},
		step2.hold(scripted.Turn{Text: "Searching.", ToolCalls: []scripted.Call{call("grep", map[string]any{"pattern": "func ", "output_mode": "count"})}}),
		step3.hold(after), after, after,
	}}
	mainTurn := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		last := r.LastMessage()
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "states report"):
			return scripted.Turn{Text: report, ChunkSize: 100}
		case last.Role == "tool":
			return scripted.Turn{Text: wentOn, ChunkSize: 100}
		}
		return spawn("One runner.", runner)
	}}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt},
		Turns: []scripted.Turn{mainTurn, mainTurn, mainTurn, mainTurn}})
	srv.Add(runner.conversation())

	tm.submit("start the runner")
	tm.waitMatch(toolsRe("run long", 1)) // its second request is held

	// The overview: at 80 columns the task shows and the tokens give way.
	tm.press("C-g")
	s := tm.waitText("Crew · 1 subagent · 1 running")
	header := lineWith(s, "NAME")
	for _, col := range []string{"NAME", "STATE", "ELAPSED", "TASK"} {
		if !strings.Contains(header, col) {
			t.Errorf("the overview at %d columns lacks %s: %q", width, col, header)
		}
	}
	if got := strings.Contains(header, "TOKENS"); got != (width >= 120) {
		t.Errorf("at %d columns the tokens column shows: %v\n%s", width, got, frame(s))
	}
	if row := lineWith(s, "run-long"); !strings.Contains(row, "run long") {
		t.Errorf("the row's task is cut to nothing: %q", row)
	}
	// The selected row keeps its state's colour: the state is drawn in
	// another colour than the selected name.
	if row := lineWith(tm.colorScreen(), "run-long"); sgrBefore(row, "run-long") == sgrBefore(row, "running") {
		t.Errorf("the selected row's state has the selection's colour: %q", row)
	}

	// p: paused is not running, and the title says so.
	tm.press("p")
	s = tm.waitText("0 running · 1 paused")
	if row := lineWith(s, "run-long"); !strings.Contains(row, "paused") {
		t.Errorf("the row %q does not say paused", row)
	}
	// Paused shares the selection's accent: on the selected row it is
	// still drawn apart.
	if row := lineWith(tm.colorScreen(), "run-long"); sgrBefore(row, "run-long") == sgrBefore(row, "paused") {
		t.Errorf("the selected paused row's state looks like the selection: %q", row)
	}
	// The time paused shows as such, in the overview and the pane; the
	// main agent's status says it waits on the paused child.
	tm.waitMatch(regexp.MustCompile(`run-long\s.*paused.*‖\d+s`))
	tm.press("Escape")
	tm.waitMatch(regexp.MustCompile(`paused · .*\+ \d+s paused`))
	tm.waitText("waiting on paused run-long")

	// Resume, then to the background: running in the background.
	tm.press("C-g")
	tm.waitText("Crew · 1 subagent")
	tm.press("p")
	tm.waitText("1 running")
	tm.press("C-b")
	tm.waitText("1 running · 1 in background")
	// Paused in the background: both states, in the title, the row, the
	// pane header and the full-screen view.
	tm.press("p")
	s = tm.waitText("0 running · 1 paused · 1 in background")
	if row := lineWith(s, "run-long"); !strings.Contains(row, "paused · background") && !strings.Contains(row, "paused · ba") {
		t.Errorf("the row %q does not say paused · background", row)
	}
	tm.press("Enter")
	s = tm.waitText("Changed files") // the child's full-screen view
	if !strings.Contains(lineWith(s, "run-long"), "paused · background") {
		t.Errorf("the full-screen view's header does not say both states:\n%s", frame(s))
	}
	tm.press("Escape")
	tm.waitText("Crew · 1 subagent")
	tm.press("Escape")
	tm.waitText(wentOn)
	tm.waitOK("the pane header says both states", func(s string) error {
		if h, _, _ := paneHeader(s, "run long"); !strings.Contains(h, "paused · background") {
			return fmt.Errorf("header %q", h)
		}
		return nil
	})
	// Resumed, it stays in the background.
	tm.press("C-g")
	tm.waitText("Crew · 1 subagent")
	tm.press("p")
	s = tm.waitText("1 running · 1 in background")
	if row := lineWith(s, "run-long"); !strings.Contains(row, "background") || strings.Contains(row, "paused") {
		t.Errorf("the resumed row %q is not background", row)
	}

	// m: the message shows queued at once, in the child's view and its
	// pane, while the child's request is still held.
	tm.press("m")
	tm.waitText("to run-long")
	tm.typeText(steer)
	tm.press("Enter")
	tm.press("Enter") // open the child full-screen
	tm.waitText("✉ queued: " + steer)
	tm.press("Escape")
	tm.waitText("Crew · 1 subagent")
	tm.press("Escape")
	tm.waitText("✉ queued: " + steer)
	// Its next request takes it: read (that request is held, so the
	// pane stands still).
	step2.open()
	s = tm.waitText("✉ read: " + steer)
	if strings.Contains(s, "queued") {
		t.Errorf("the message still shows queued after the child read it:\n%s", frame(s))
	}
	step3.open()
	tm.waitText(report)
	reqs := requestsOf(srv, runner.marker)
	if len(reqs) < 3 || !hasUser(reqs[2], steer) {
		t.Fatalf("the message is not in the child's next request (%d requests)", len(reqs))
	}
	tm.quitAndCheck(helpLine)
}

// lineWith is the first line of screen holding s, or "".
func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

var sgrRunRe = regexp.MustCompile(`(\x1b\[[0-9;]*m)+$`)

// sgrBefore is the escape sequences right before word in line: how the
// word is drawn.
func sgrBefore(line, word string) string {
	i := strings.Index(line, word)
	if i < 0 {
		return ""
	}
	return sgrRunRe.FindString(line[:i])
}
