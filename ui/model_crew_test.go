package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
	"covey/ui/keys"
	"covey/ui/screens"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/tools/tool"
)

// namedPanes starts a turn with three named children and focuses the
// newest pane (c3, "drafter").
func namedPanes(h *harness) []agent.Source {
	h.t.Helper()
	h.startTurn("go")
	kids := []agent.Source{
		childSrc("c1", "call_task", "Explore", "map the packages"),
		childSrc("c2", "call_task", "Explore", "find the flaky test"),
		childSrc("c3", "call_task", "general-purpose", "draft the fix"),
	}
	for i, n := range []string{"scout", "hunter", "drafter"} {
		kids[i].Name = n
	}
	evs := []agent.Event{agent.ToolStarted{Source: mainSrc(), CallID: "call_task", Name: toolname.Task, KeyArg: "3 tasks"}}
	for _, k := range kids {
		evs = append(evs, agent.ChildStarted{Source: k, Model: "small", Prompt: "Please " + k.Description + "."})
	}
	h.events(evs...)
	h.key(tea.KeyTab)
	return kids
}

// engineCalls waits until the fake engine's record holds want.
func engineCalls(h *harness, what string, get func(f *fakeEngine) []string, want string) {
	h.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		h.eng.mu.Lock()
		got := append([]string(nil), get(h.eng)...)
		h.eng.mu.Unlock()
		if slices.Contains(got, want) {
			return
		}
		select {
		case <-deadline:
			h.t.Fatalf("engine %s = %v, want %q among them", what, got, want)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func sentCalls(f *fakeEngine) []string         { return f.sent }
func pausedCalls(f *fakeEngine) []string       { return f.paused }
func backgroundedCalls(f *fakeEngine) []string { return f.backgrounded }
func cancelledCalls(f *fakeEngine) []string    { return f.cancelled }

func TestCrewKeysOnFocusedPane(t *testing.T) {
	tests := map[string]struct {
		key  tea.KeyMsg
		what string
		get  func(f *fakeEngine) []string
		want string
	}{
		"p pauses":              {runes("p"), "PauseChild", pausedCalls, "c3=true"},
		"ctrl+b backgrounds":    {tea.KeyMsg{Type: tea.KeyCtrlB}, "BackgroundChild", backgroundedCalls, "c3"},
		"x x cancels the child": {runes("x"), "CancelChild", cancelledCalls, "c3"},
		"m then enter steers":   {runes("m"), "SendToChild", sentCalls, "c3: use the v2 api"},
		"overview m addresses":  {runes("m"), "SendToChild", sentCalls, "c3: use the v2 api"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, 100, 30)
			namedPanes(h)
			if strings.HasPrefix(name, "overview") {
				h.send(tea.KeyMsg{Type: tea.KeyCtrlG})
				h.key(tea.KeyEnd)
			}
			h.send(tt.key)
			if tt.what == "CancelChild" {
				h.send(tt.key) // the second x confirms
			}
			if tt.what == "SendToChild" {
				if !h.screenContains("to drafter › ") {
					t.Fatalf("m did not address the input to the child:\n%s", ansi.Strip(h.m.View()))
				}
				h.typeText("use the v2 api")
				h.key(tea.KeyEnter)
				if h.m.addr != nil || h.screenContains("to drafter") {
					t.Error("the input is still addressed to the child after sending")
				}
			}
			engineCalls(h, tt.what, tt.get, tt.want)
			if _, _, cancelled := h.eng.snapshot(); tt.what != "CancelChild" && len(cancelled) > 0 {
				t.Errorf("the key also cancelled %v", cancelled)
			}
		})
	}
}

func TestCrewAddressEscGivesTheDraftBack(t *testing.T) {
	h := newHarness(t, 100, 30)
	namedPanes(h)
	h.typeText("half a thought") // typing on a pane goes to the input
	h.key(tea.KeyTab)            // back to the newest pane
	if h.m.chosenChild() == nil {
		t.Fatal("tab did not focus a pane")
	}
	h.send(runes("m"))
	if h.m.input.Value() != "" {
		t.Fatalf("the addressed input starts with %q, want it empty", h.m.input.Value())
	}
	h.typeText("never mind")
	h.key(tea.KeyEsc)
	if h.m.addr != nil || h.screenContains("to drafter") {
		t.Fatal("esc did not stop addressing the child")
	}
	if got := h.m.input.Value(); got != "half a thought" {
		t.Errorf("after esc the input holds %q, want the draft back", got)
	}
	h.eng.mu.Lock()
	sent := len(h.eng.sent)
	h.eng.mu.Unlock()
	if sent != 0 {
		t.Errorf("esc sent the message")
	}
	if len(h.m.turnCancelledNotices()) > 0 || h.m.turn == nil {
		t.Error("esc while addressing cancelled the turn")
	}
}

// turnCancelledNotices lists the "turn cancelled" notices shown.
func (m Model) turnCancelledNotices() []transcript.Block {
	var out []transcript.Block
	for _, b := range m.tr.Blocks() {
		if n, ok := b.(*transcript.NoticeBlock); ok && n.Text() == "turn cancelled" {
			out = append(out, n)
		}
	}
	return out
}

func TestCrewOverviewFromModel(t *testing.T) {
	h := newHarness(t, 120, 24)
	kids := namedPanes(h)
	h.events(
		agent.ChildState{Source: kids[0], State: agent.StatePaused, Paused: true},
		agent.ChildState{Source: kids[1], State: agent.StateRunning, Background: true},
	)
	h.send(tea.KeyMsg{Type: tea.KeyCtrlG})
	if h.m.scr != screens.Screen(h.m.ov) {
		t.Fatal("ctrl+g did not open the overview")
	}
	s := ansi.Strip(h.m.View())
	for _, want := range []string{"Crew · 3 subagents", "scout", "paused", "hunter", "background", "› drafter"} {
		if !strings.Contains(s, want) {
			t.Errorf("overview lacks %q:\n%s", want, s)
		}
	}
	// Up selects hunter; enter opens it full-screen; esc comes back to the
	// overview with hunter still selected; esc again goes back.
	h.key(tea.KeyUp)
	h.key(tea.KeyEnter)
	if h.m.shownChild() == nil || h.m.shownChild().Pane().Name() != "hunter" {
		t.Fatalf("enter did not open hunter full-screen (screen %T)", h.m.scr)
	}
	h.key(tea.KeyEsc)
	if h.m.scr != screens.Screen(h.m.ov) || h.m.ov.Selected().Name() != "hunter" {
		t.Fatalf("esc from the child view did not return to the overview on hunter")
	}
	h.key(tea.KeyEsc)
	if h.m.scr != nil {
		t.Fatal("esc did not leave the overview")
	}
	// /crew opens it too.
	h.typeText("/crew")
	h.key(tea.KeyEnter)
	if h.m.scr != screens.Screen(h.m.ov) {
		t.Fatal("/crew did not open the overview")
	}
}

func TestCrewChildView(t *testing.T) {
	h := newHarness(t, 100, 30)
	kids := namedPanes(h)
	d := kids[2]
	change := &tool.FileChange{Path: "fix.go", Diff: "--- a/fix.go\n+++ b/fix.go\n@@ -1,2 +1,2 @@\n-broken()\n+fixed()\n ok()\n", Added: 1, Removed: 1}
	h.events(
		agent.TextDelta{Source: d, Text: "I will **fix** it.\n"},
		agent.ToolStarted{Source: d, CallID: "e1", Name: toolname.EditFile, KeyArg: "fix.go"},
		agent.ToolFinished{Source: d, CallID: "e1", Name: toolname.EditFile, KeyArg: "fix.go", Result: tool.Result{Summary: "+1 -1", Display: change}},
		agent.ChildFiles{Source: d, Files: []agent.FileChange{{Path: "gen.go", Status: "added", Added: 40}}},
	)
	if !h.screenContains("2 files +41 −1") {
		t.Errorf("the pane header does not count the files:\n%s", ansi.Strip(h.m.View()))
	}
	h.send(runes("o"))
	if h.m.shownChild() == nil {
		t.Fatal("o did not open the child")
	}
	// Live events reach the open view; a message sent to it shows as a
	// user message.
	h.events(
		agent.ChildMessage{Source: d, Text: "also update the docs"},
		agent.TextDelta{Source: d, Text: "Updating the docs now."},
	)
	checkGolden(t, "100x30", ansi.Strip(h.m.View())+"\n")
	h.key(tea.KeyEsc)
	if h.m.scr != nil || h.m.tr.Focused() != transcript.Block(h.m.rt.children["c3"]) {
		t.Error("esc did not return to the focused pane")
	}
	// /diff shows the same files in the transcript.
	h.typeText("/diff drafter")
	h.key(tea.KeyEnter)
	s := ansi.Strip(h.m.View())
	for _, want := range []string{"Files changed by drafter", "fix.go", "fixed()", "gen.go (added, +40 −0)"} {
		if !strings.Contains(s, want) {
			t.Errorf("/diff lacks %q:\n%s", want, s)
		}
	}
	h.typeText("/diff nobody")
	h.key(tea.KeyEnter)
	if !h.screenContains("no subagent named nobody") {
		t.Error("/diff of an unknown name does not say so")
	}
}

func TestCrewPauseStopsTheClock(t *testing.T) {
	h := newHarness(t, 100, 30)
	kids := namedPanes(h)
	now := fixedNow
	h.m.clock = func() time.Time { return now }
	h.events(agent.ChildState{Source: kids[0], State: agent.StateRunning, Elapsed: 3 * time.Second})
	now = now.Add(2 * time.Second)
	h.events(agent.ChildState{Source: kids[0], State: agent.StatePaused, Paused: true})
	pane := h.m.rt.children["c1"]
	if got := pane.ElapsedAt(now.Add(time.Minute)); got != 5*time.Second {
		t.Errorf("paused elapsed %v a minute later, want 5s", got)
	}
	if pane.Working() {
		t.Error("a paused pane's spinner still turns")
	}
	if got, want := pane.ClockText(now.Add(time.Minute)), "5.0s + 1m00s paused"; got != want {
		t.Errorf("paused a minute, the clock says %q, want %q", got, want)
	}
	if !h.screenContains("paused · ") {
		t.Errorf("the pane does not say paused:\n%s", ansi.Strip(h.m.View()))
	}
	// Siblings go on ticking.
	if !h.m.rt.children["c2"].Live() {
		t.Error("a sibling stopped with the paused child")
	}
	now = now.Add(10 * time.Second)
	h.events(agent.ChildState{Source: kids[0], State: agent.StateRunning})
	now = now.Add(time.Second)
	if got := pane.ElapsedAt(now); got != 6*time.Second {
		t.Errorf("resumed elapsed %v, want 6s (the pause does not count)", got)
	}
	if got, want := pane.ClockText(now), "6.0s + 10s paused"; got != want {
		t.Errorf("after the pause the clock says %q, want %q (the pause is kept apart)", got, want)
	}
}

func TestCrewBudgetAndCost(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.m.cost, h.m.rt.cost = testPrice, testPrice
	h.startTurn("go")
	src := childSrc("c1", "call_task", "Explore", "count lines")
	src.Name = "counter"
	h.events(
		agent.ToolStarted{Source: mainSrc(), CallID: "call_task", Name: toolname.Task},
		agent.ChildStarted{Source: src, Model: "small", MaxTokens: 50_000, MaxCost: 1},
	)
	// Priced from the start: the budget reads as it will later.
	if !h.screenContains("0/50k tok · $0.00/$1.00") {
		t.Errorf("a new pane does not show its cost against its budget:\n%s", ansi.Strip(h.m.View()))
	}
	h.events(agent.UsageReported{Source: src, Usage: agent.Usage{InputTokens: 10_000, OutputTokens: 2_000}})
	if !h.screenContains("12k/50k tok · $0.02/$1.00") {
		t.Errorf("the pane does not show use against budget:\n%s", ansi.Strip(h.m.View()))
	}
	h.events(agent.ChildFinished{Source: src, Reason: agent.StopBudget, Usage: agent.Usage{InputTokens: 10_000, OutputTokens: 2_000}})
	if !h.screenContains("stopped at its budget") {
		t.Errorf("a child stopped at its budget does not say so:\n%s", ansi.Strip(h.m.View()))
	}
	h.typeText("/cost")
	h.key(tea.KeyEnter)
	if !h.screenMatches(`counter \[Explore\] count lines +10k +2k +\$0\.02`) {
		t.Errorf("/cost lacks the child's cost:\n%s", ansi.Strip(h.m.View()))
	}
	// A cost budget on a model without a price cannot hold: the pane says so.
	unpriced := childSrc("c2", "call_task", "Explore", "guess costs")
	unpriced.Name = "guesser"
	h.events(agent.ChildStarted{Source: unpriced, Model: "big", MaxCost: 0.5})
	if !h.screenContains("$0.50 budget: no price") {
		t.Errorf("an unpriced child's cost budget does not say it has no price:\n%s", ansi.Strip(h.m.View()))
	}
}

func TestCrewBackgroundResultTurn(t *testing.T) {
	h := newHarness(t, 100, 30)
	kids := namedPanes(h)
	h.eng.release <- nil
	await[turnDoneMsg](h)
	h.send(turnDoneMsg{id: h.m.turnSeq})
	if h.m.turn != nil {
		t.Fatal("the turn did not end")
	}
	h.events(agent.BackgroundResult{Source: mainSrc(), ChildID: "c1", Name: kids[0].Name, Status: agent.StateDone, Text: "Found it in router.go."})
	if !h.screenContains("background child scout finished") || !h.screenContains("Found it in router.go.") {
		t.Errorf("the background result is not shown:\n%s", ansi.Strip(h.m.View()))
	}
	if !h.m.status.Running() {
		t.Error("the turn the result started does not show as running")
	}
	// Esc (from the input) cancels that turn through the engine.
	h.key(tea.KeyEsc) // the pane had the focus: back to the input
	h.key(tea.KeyEsc)
	deadline := time.After(5 * time.Second)
	for {
		h.eng.mu.Lock()
		n := h.eng.turnCancels
		h.eng.mu.Unlock()
		if n > 0 {
			break
		}
		select {
		case <-deadline:
			t.Fatal("esc did not cancel the background-started turn")
		case <-time.After(5 * time.Millisecond):
		}
	}
	h.events(agent.Done{Source: mainSrc(), Reason: agent.StopCancelled})
	if h.m.status.Running() {
		t.Error("the turn still shows as running after its Done")
	}
}

func TestCrewResumeRevivesAFinishedPane(t *testing.T) {
	h := newHarness(t, 100, 30)
	kids := namedPanes(h)
	h.events(agent.ChildFinished{Source: kids[0], Reason: agent.StopOK, Summary: "done", Elapsed: 4 * time.Second})
	pane := h.m.rt.children["c1"]
	if pane.Running() {
		t.Fatal("the pane did not finish")
	}
	h.events(
		agent.ChildMessage{Source: kids[0], Text: "and the tests?"},
		agent.ChildState{Source: kids[0], State: agent.StateRunning, Background: true, Detail: "resumed by a message"},
	)
	if !pane.Running() || !pane.Background() || pane.StateName() != "background" {
		t.Errorf("the resumed pane is %q, want running in the background", pane.StateName())
	}
	if got := pane.ElapsedAt(fixedNow); got != 4*time.Second {
		t.Errorf("resumed elapsed %v, want it to go on from 4s", got)
	}
	s := ansi.Strip(h.m.View())
	if !strings.Contains(s, "✉ read: and the tests?") {
		t.Errorf("the message does not show in the pane:\n%s", s)
	}
}

func TestCrewKeysEnabledOnlyWhereTheyApply(t *testing.T) {
	h := newHarness(t, 100, 30)
	k := h.m.keys
	for name, b := range map[string]bool{
		"o": k.ChildOpen.Enabled(), "m": k.ChildMessage.Enabled(), "p": k.ChildPause.Enabled(),
		"ctrl+b": k.ChildBackground.Enabled(), "x": k.CancelChild.Enabled(),
	} {
		if b {
			t.Errorf("%s is enabled with no child", name)
		}
	}
	kids := namedPanes(h)
	k = h.m.keys
	if !k.ChildOpen.Enabled() || !k.ChildPause.Enabled() || !k.ChildBackground.Enabled() || !k.CancelChild.Enabled() {
		t.Error("the crew keys are not enabled on a focused running pane")
	}
	h.events(agent.ChildState{Source: kids[2], State: agent.StateRunning, Background: true})
	if h.m.keys.ChildBackground.Enabled() {
		t.Error("ctrl+b is enabled on a child already in the background")
	}
	h.events(agent.ChildFinished{Source: kids[2], Reason: agent.StopOK})
	k = h.m.keys
	if k.ChildPause.Enabled() || k.CancelChild.Enabled() || !k.ChildMessage.Enabled() || !k.ChildOpen.Enabled() {
		t.Error("on a finished child only o and m should apply")
	}
}

// TestEndedPaneOffersWhatItsKeysDo: after x x a pane offers o and m, and m
// says it resumes the child (as the engine does with a message to an ended
// child); a running pane's m is a plain message.
func TestEndedPaneOffersWhatItsKeysDo(t *testing.T) {
	h := newHarness(t, 80, 24)
	kids := namedPanes(h)
	h.key(tea.KeyTab)
	if !h.screenContains("m message •") {
		t.Fatalf("a running pane does not offer m message:\n%s", ansi.Strip(h.m.View()))
	}
	h.typeText("x")
	h.typeText("x")
	await[childCancelledMsg](h)
	h.events(agent.ChildFinished{Source: kids[0], Reason: agent.StopCancelled})
	s := ansi.Strip(h.m.View())
	hint := s[strings.LastIndex(strings.TrimRight(s, "\n"), "\n")+1:]
	if !strings.Contains(hint, "o open full-screen • m message to resume") {
		t.Errorf("the ended pane's hint %q does not say what m does", hint)
	}
	for _, gone := range []string{"p pause", "ctrl+b", "x cancel"} {
		if strings.Contains(hint, gone) {
			t.Errorf("the ended pane still offers %q: %q", gone, hint)
		}
	}
}

func TestCrewApprovalAnsweredInChildView(t *testing.T) {
	h := newApprovalHarness(t, 100, 40)
	kid := childSrc("c1", "call_task", "general-purpose", "write the fix")
	kid.Name = "writer"
	h.events <- agent.ToolStarted{Source: mainSrc(), CallID: "call_task", Name: toolname.Task}
	h.events <- agent.ChildStarted{Source: kid, Model: "small"}
	h.events <- toolStarted(kid, "w1", toolname.WriteFile, "fix.go")
	for h.m.rt.children["c1"] == nil || h.m.rt.children["c1"].ToolCalls() == 0 {
		h.send(await[eventsMsg](h.harness))
	}
	h.key(tea.KeyTab)
	h.send(runes("o"))
	if h.m.shownChild() == nil {
		t.Fatal("o did not open the child")
	}
	req := writeRequest("fix.go", "package fix\n")
	req.Agent, req.AgentID = "[general-purpose] write the fix", "c1"
	got := h.ask(context.Background(), req)
	h.deliver(1)
	if h.m.shownChild().Approval() == nil || h.m.shownChild().Transcript().IndexOf(h.m.shownChild().Approval()) < 0 {
		t.Fatalf("the child's request is not shown in its view:\n%s", ansi.Strip(h.m.View()))
	}
	if h.m.focus != keys.FocusApproval {
		t.Fatal("the request did not take the keyboard in the child's view")
	}
	h.send(runes("y"))
	if v := verdictOf(t, got); !v.Allowed {
		t.Errorf("y in the child's view gave %+v, want allowed", v)
	}
	if h.m.shownChild() == nil {
		t.Error("answering left the child's view")
	}
	if h.m.shownChild().Approval() != nil {
		t.Error("the answered request is still shown in the child's view")
	}
}

// TestCrewChildViewStreamsIntoOneAnswer checks that an answer streamed in
// several batches while the child is open full-screen stays one answer
// (the files list kept last used to start a new block for each batch).
func TestCrewChildViewStreamsIntoOneAnswer(t *testing.T) {
	tests := map[string][]string{
		"two batches":   {"gamma st", "ep 3"},
		"three batches": {"Reading ", "the con", "fig now."},
	}
	for name, chunks := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, 100, 30)
			d := namedPanes(h)[2]
			h.send(runes("o"))
			if h.m.shownChild() == nil {
				t.Fatal("o did not open the child")
			}
			for _, c := range chunks {
				h.events(agent.TextDelta{Source: d, Text: c})
			}
			want := strings.Join(chunks, "")
			if !h.screenContains(want) {
				t.Errorf("the streamed answer is not one line %q:\n%s", want, ansi.Strip(h.m.View()))
			}
			answers := 0
			for _, b := range h.m.shownChild().Transcript().Blocks() {
				if _, ok := b.(*transcript.AssistantBlock); ok {
					answers++
				}
			}
			if answers != 1 {
				t.Errorf("%d answer blocks, want 1", answers)
			}
		})
	}
}

// TestNestedPaneIsMarked checks that a child's own child, whose pane sits
// among its parent's siblings, is marked as nested, one step per level.
func TestNestedPaneIsMarked(t *testing.T) {
	h := newHarness(t, 120, 30)
	kids := namedPanes(h)
	drafter := kids[2]
	inner := childSrc("c4", "call_inner", "Explore", "look deeper")
	inner.Name, inner.Depth = "digger", 2
	deeper := childSrc("c5", "call_deeper", "Explore", "look deeper still")
	deeper.Name, deeper.Depth = "miner", 3
	h.events(
		agent.ToolStarted{Source: drafter, CallID: "call_inner", Name: toolname.Task},
		agent.ChildStarted{Source: inner, Model: "small"},
		agent.ToolStarted{Source: inner, CallID: "call_deeper", Name: toolname.Task},
		agent.ChildStarted{Source: deeper, Model: "small"},
	)
	tests := map[string]struct{ want, not string }{
		"a top-level child": {want: "drafter [general-purpose]", not: "↳ drafter"},
		"a child's child":   {want: "↳ digger [Explore]"},
		"two levels down":   {want: "  ↳ miner [Explore]"},
	}
	screen := ansi.Strip(h.m.View())
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(screen, tt.want) || (tt.not != "" && strings.Contains(screen, tt.not)) {
				t.Errorf("want %q (and not %q) in:\n%s", tt.want, tt.not, screen)
			}
		})
	}
}

// TestChildViewOffersTabOnlyWithSomethingToFocus: a child's full-screen
// view whose blocks cannot take the focus (short tool outputs) does not
// list tab in its help: tab would do nothing there.
func TestChildViewOffersTabOnlyWithSomethingToFocus(t *testing.T) {
	h := newHarness(t, 120, 40)
	kids := namedPanes(h)
	h.events(agent.TextDelta{Source: kids[2], Text: "Looking.\n"})
	h.send(runes("o"))
	if h.m.shownChild() == nil {
		t.Fatal("o did not open the child")
	}
	if help := helpText(t, h); strings.Contains(help, "tab focus next block") {
		t.Errorf("the child's view offers tab with nothing to focus:\n%s", help)
	}
	if h.m.keys.FocusNext.Enabled() {
		t.Error("tab is enabled in a child's view with nothing to focus")
	}
}

// TestRequestNeverAnsweredUnseen: a request that takes the keys while a
// screen that cannot show it is open (the overview, another child's view)
// brings the conversation back, where it stands under its child's pane,
// so y never answers a request the user cannot see.
func TestRequestNeverAnsweredUnseen(t *testing.T) {
	for name, open := range map[string]func(h *approvalHarness){
		"the overview": func(h *approvalHarness) { h.send(tea.KeyMsg{Type: tea.KeyCtrlG}) },
		"another child's view": func(h *approvalHarness) {
			h.key(tea.KeyTab) // the newest pane: the reader
			h.send(runes("o"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := newApprovalHarness(t, 100, 40)
			writer := childSrc("c1", "call_task", "general-purpose", "write the fix")
			writer.Name = "writer"
			reader := childSrc("c2", "call_task", "Explore", "read the logs")
			reader.Name = "reader"
			h.events <- agent.ToolStarted{Source: mainSrc(), CallID: "call_task", Name: toolname.Task}
			h.events <- agent.ChildStarted{Source: writer, Model: "small"}
			h.events <- agent.ChildStarted{Source: reader, Model: "small"}
			h.events <- toolStarted(writer, "w1", toolname.WriteFile, "fix.go")
			for h.m.rt.children["c2"] == nil || h.m.rt.children["c1"] == nil || h.m.rt.children["c1"].ToolCalls() == 0 {
				h.send(await[eventsMsg](h.harness))
			}
			open(h)
			if h.m.scr == nil {
				t.Fatal("no screen opened")
			}
			req := writeRequest("fix.go", "package fix\n")
			req.Agent, req.AgentID = "[general-purpose] write the fix", "c1"
			h.ask(context.Background(), req)
			h.deliver(1)
			if h.m.focus != keys.FocusApproval {
				t.Fatalf("the request did not take the keys (focus %v)", h.m.focus)
			}
			if h.m.scr != nil {
				t.Errorf("the request took the keys while %T, which cannot show it, stayed open:\n%s", h.m.scr, ansi.Strip(h.m.View()))
			}
			if !h.screenContains("fix.go") {
				t.Errorf("the request is not on the screen:\n%s", ansi.Strip(h.m.View()))
			}
		})
	}
}

// TestBackgroundNoteVerb: the line for a background child's result says
// how it ended; a cancelled or failed child is never said to have
// finished (it once read "finished" and "cancelled" in one breath).
func TestBackgroundNoteVerb(t *testing.T) {
	for status, want := range map[string]string{
		agent.StateDone: "background child scout finished", agent.StateCancelled: "background child scout was cancelled",
		agent.StateFailed: "background child scout failed", agent.StateCutShort: "background child scout was cut short",
	} {
		got := backgroundNote(agent.BackgroundResult{Source: mainSrc(), ChildID: "c1", Name: "scout", Status: status})
		if !strings.HasPrefix(got, want+":") {
			t.Errorf("%s: %q, want it to start %q", status, got, want)
		}
	}
}
