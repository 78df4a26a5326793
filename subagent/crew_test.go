package subagent_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"covey/tools/toolname"

	"go.uber.org/goleak"

	"covey/agent"
	"covey/agentdefs"
	"covey/internal/scripted"
	"covey/permission"
	"covey/subagent"
)

// crewScript scripts the main agent's conversation turn by turn.
func (h *harness) crewScript(prompt string, turns ...scripted.Turn) {
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: prompt, SystemContains: "main test agent"}, Turns: turns})
}

func call(id, name string, args any) scripted.Call {
	return scripted.Call{ID: id, Name: name, Args: args}
}

func bgTask(name, prompt string) map[string]any {
	return map[string]any{"description": name, "subagent_type": "Explore", "prompt": prompt, "name": name, "run_in_background": true}
}

// waitFor polls the events until one of kind satisfies ok, or fails t.
func (h *harness) waitFor(kind string, ok func(agent.Event) bool) agent.Event {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range h.eventsOf(kind) {
			if ok == nil || ok(e) {
				return e
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	h.t.Fatalf("no %s event came", kind)
	return nil
}

// requestsOf returns the journal entries whose first user message holds s.
func (h *harness) requestsOf(s string) []scripted.Entry {
	var out []scripted.Entry
	for _, e := range h.srv.Journal() {
		if strings.Contains(e.FirstUser, s) {
			out = append(out, e)
		}
	}
	return out
}

// closeAll stops the driver, the children and the server, for goleak.
func (h *harness) closeAll(d *subagent.Driver) {
	if d != nil {
		d.Close()
	}
	h.manager.Close()
	h.srv.Close()
}

func kindIndex(events []agent.Event, ok func(agent.Event) bool) int {
	return slices.IndexFunc(events, ok)
}

func (h *harness) all() []agent.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

func TestBackgroundChildResultStartsIdleParentTurn(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		scripted.Turn{ToolCalls: []scripted.Call{call("task_1", toolname.Task, bgTask("scout", "child-scout"))}},
		scripted.Turn{Text: "scout is on it"},
		scripted.Turn{Text: "scout found the answer"})
	h.child("child-scout", scripted.Turn{Text: "Login is in auth.go", Delay: 200 * time.Millisecond})
	d := h.manager.NewDriver(h.main, nil)
	defer h.closeAll(d)

	res, err := d.Run(context.Background(), "go")
	if err != nil || res.Answer != "scout is on it" {
		t.Fatalf("first turn = %+v, %v", res, err)
	}
	if len(h.eventsOf("child_finished")) != 0 {
		t.Fatal("the task call waited for a background child")
	}
	if got := h.taskResult("task_1"); !strings.Contains(got, `name "scout", id explore-1`) || !strings.Contains(got, "started in the background") {
		t.Fatalf("task result: %s", got)
	}
	last, err, ok := d.Wait(context.Background())
	if err != nil || !ok || last.Answer != "scout found the answer" {
		t.Fatalf("delivered turn = %+v, %v, %v", last, err, ok)
	}
	br := h.waitFor("background_result", nil).(agent.BackgroundResult)
	if br.AgentID != agent.MainAgentID || br.Name != "scout" || br.ChildID != "explore-1" || br.Status != agent.StateDone || br.Text != "Login is in auth.go" {
		t.Fatalf("background result = %+v", br)
	}
	// The model saw the outcome as a user message.
	reqs := h.requestsOf("go")
	msgs := reqs[len(reqs)-1].Messages
	lastMsg := msgs[len(msgs)-1]
	if lastMsg.Role != "user" || !strings.Contains(lastMsg.Content, `[background agent "scout" (id explore-1) finished]`) || !strings.Contains(lastMsg.Content, "Login is in auth.go") {
		t.Fatalf("last message of the delivered request: %+v", lastMsg)
	}
	// The event order: the result is announced before the turn it starts.
	evs := h.all()
	iRes := kindIndex(evs, func(e agent.Event) bool { return e.Kind() == "background_result" })
	iDone := slices.IndexFunc(evs[iRes:], func(e agent.Event) bool { return e.Kind() == "done" && !e.From().IsChild() })
	if iDone < 0 {
		t.Fatal("no Done of main after the background result")
	}
}

func TestBackgroundResultWaitsForBusyTurn(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		scripted.Turn{ToolCalls: []scripted.Call{call("task_1", toolname.Task, bgTask("quick", "child-quick"))}},
		scripted.Turn{Text: "still busy", Delay: 300 * time.Millisecond},
		scripted.Turn{Text: "now answered"})
	h.child("child-quick", scripted.Turn{Text: "quick answer"})
	d := h.manager.NewDriver(h.main, nil)
	defer h.closeAll(d)
	if _, err := d.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if _, err, _ := d.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs := h.all()
	firstDone := kindIndex(evs, func(e agent.Event) bool { return e.Kind() == "done" && !e.From().IsChild() })
	childDone := kindIndex(evs, func(e agent.Event) bool { return e.Kind() == "child_finished" })
	result := kindIndex(evs, func(e agent.Event) bool { return e.Kind() == "background_result" })
	if childDone >= firstDone || firstDone >= result {
		t.Fatalf("child finished at %d, turn ended at %d, result delivered at %d: want it held until the turn ended", childDone, firstDone, result)
	}
}

func TestForegroundChildMovedToBackground(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		scripted.Turn{ToolCalls: []scripted.Call{call("task_1", toolname.Task, map[string]any{"description": "slow", "subagent_type": "Explore", "prompt": "child-slow", "name": "slowpoke"})}},
		scripted.Turn{Text: "moved on"},
		scripted.Turn{Text: "got it"})
	// The child's request is answered only once it is in the background,
	// so the move never races its end however slow the machine.
	moved := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(moved) }) }
	defer release()
	h.child("child-slow", scripted.Turn{Func: func(scripted.Request) scripted.Turn {
		<-moved
		return scripted.Turn{Text: "slow result"}
	}})
	d := h.manager.NewDriver(h.main, nil)
	defer h.closeAll(d)
	movedOK := make(chan bool, 1)
	go func() {
		defer release()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if evs := h.eventsOf("child_started"); len(evs) > 0 {
				movedOK <- h.manager.Background(evs[0].From().AgentID)
				return
			}
		}
		movedOK <- false
	}()
	res, err := d.Run(context.Background(), "go")
	if err != nil || res.Answer != "moved on" {
		t.Fatalf("turn = %+v, %v", res, err)
	}
	if !<-movedOK {
		t.Fatal("the running child did not move to the background")
	}
	if got := h.taskResult("task_1"); !strings.Contains(got, "moved to the background by the user") || !strings.Contains(got, `"slowpoke"`) {
		t.Fatalf("task result: %s", got)
	}
	if h.manager.Background("slowpoke") {
		t.Fatal("a child already in the background moved again")
	}
	last, _, ok := d.Wait(context.Background())
	if !ok || last.Answer != "got it" {
		t.Fatalf("delivered = %+v", last)
	}
	st := h.waitFor("child_state", func(e agent.Event) bool { return e.(agent.ChildState).Background }).(agent.ChildState)
	if st.Name != "slowpoke" || (st.State != agent.StateRunning && st.State != agent.StateQueued) {
		t.Fatalf("state = %+v", st)
	}
}

// TestBackgroundChildCancelledBeforeTaskReturns checks that a child moved
// to the background and cancelled while its siblings still run is not
// reported to the parent as still working when the task call returns.
func TestBackgroundChildCancelledBeforeTaskReturns(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		scripted.Turn{ToolCalls: []scripted.Call{call("task_1", toolname.Task, map[string]any{"tasks": []map[string]string{
			{"description": "slow", "subagent_type": "Explore", "prompt": "child-slow", "name": "slowpoke"},
			{"description": "other", "subagent_type": "Explore", "prompt": "child-other", "name": "other"},
		}})}},
		scripted.Turn{Text: "moved on"},
		scripted.Turn{Text: "got it"})
	// The sibling answers only once slowpoke has ended, so the task call
	// returns after the cancel however slow the machine.
	ended := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(ended) }) }
	defer release()
	h.child("child-slow", scripted.Turn{Stall: true})
	h.child("child-other", scripted.Turn{Func: func(scripted.Request) scripted.Turn {
		<-ended
		return scripted.Turn{Text: "other result"}
	}})
	d := h.manager.NewDriver(h.main, nil)
	defer h.closeAll(d)
	go func() {
		defer release()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if len(h.requestsOf("child-slow")) > 0 {
				break
			}
		}
		if !h.manager.Background("slowpoke") || !h.manager.Cancel("slowpoke") {
			return
		}
		h.waitFor("child_finished", func(e agent.Event) bool { return e.From().Name == "slowpoke" })
	}()
	res, err := d.Run(context.Background(), "go")
	if err != nil || res.Answer != "moved on" {
		t.Fatalf("turn = %+v, %v", res, err)
	}
	got := h.taskResult("task_1")
	if !strings.Contains(got, "moved to the background by the user, and has ended since (cancelled)") || strings.Contains(got, "send_message reaches it") {
		t.Fatalf("task result: %s", got)
	}
	if last, _, ok := d.Wait(context.Background()); !ok || last.Answer != "got it" {
		t.Fatalf("delivered = %+v", last)
	}
}

func TestCancelledTurnSparesBackgroundChildren(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		scripted.Turn{ToolCalls: []scripted.Call{
			call("task_1", toolname.Task, bgTask("stayer", "child-stayer")),
			call("task_2", toolname.Task, task("goner", "Explore", "child-goner")),
		}},
		scripted.Turn{Text: "after the cancel"},
		scripted.Turn{Text: "after the cancel"}) // turn 2 when the wire form adds "(continuing)"
	h.child("child-stayer", scripted.Turn{Text: "I stayed", Delay: 300 * time.Millisecond})
	h.child("child-goner", scripted.Turn{Stall: true})
	d := h.manager.NewDriver(h.main, nil)
	defer h.closeAll(d)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Both calls ran (the two task calls of one message start
		// together, in no fixed order) and both children are in flight.
		for len(h.requestsOf("child-goner")) == 0 || len(h.requestsOf("child-stayer")) == 0 {
			time.Sleep(2 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := d.Run(ctx, "go"); err == nil {
		t.Fatal("the turn was not cancelled")
	}
	last, err, ok := d.Wait(context.Background())
	if err != nil || !ok || last.Answer != "after the cancel" {
		t.Fatalf("delivered = %+v, %v, %v", last, err, ok)
	}
	reasons := map[string]string{}
	for _, e := range h.eventsOf("child_finished") {
		reasons[e.From().Name] = e.(agent.ChildFinished).Reason
	}
	if reasons["stayer"] != agent.StopOK || reasons["goner"] != agent.StopCancelled {
		t.Fatalf("reasons = %v", reasons)
	}
}

func TestSendMessageSteersRunningChild(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.mainScript("go", map[string]any{"description": "steered", "subagent_type": "Explore", "prompt": "child-steer", "name": "steered"})
	h.child("child-steer",
		scripted.Turn{Delay: 300 * time.Millisecond, ToolCalls: []scripted.Call{{Name: toolname.Glob, Args: map[string]string{"pattern": "*.go"}}}},
		scripted.Turn{Text: "checked B too"},
		scripted.Turn{Text: "checked B too"}) // the wire form puts "(continuing)" between tool and user

	defer h.closeAll(nil)
	go func() {
		h.waitFor("child_started", nil)
		for len(h.requestsOf("child-steer")) == 0 {
			time.Sleep(2 * time.Millisecond)
		}
		if err := h.manager.Send(context.Background(), "steered", "also check B"); err != nil {
			t.Error(err)
		}
	}()
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := h.requestsOf("child-steer")
	if len(reqs) != 2 {
		t.Fatalf("%d child requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if m := msgs[len(msgs)-1]; m.Role != "user" || m.Content != "also check B" || msgs[len(msgs)-3].Role != "tool" {
		t.Fatalf("second request ends with %+v", msgs[len(msgs)-3:])
	}
	cm := h.waitFor("child_message", nil).(agent.ChildMessage)
	if cm.Name != "steered" || cm.Text != "also check B" {
		t.Fatalf("child message = %+v", cm)
	}
	if !strings.Contains(h.taskResult("task_1"), "checked B too") {
		t.Fatal("the task result lacks the steered answer")
	}
}

func TestSendMessageResumesFinishedChild(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		scripted.Turn{ToolCalls: []scripted.Call{call("task_1", toolname.Task, map[string]any{"description": "d", "subagent_type": "Explore", "prompt": "child-resume", "name": "scout"})}},
		scripted.Turn{ToolCalls: []scripted.Call{call("send_1", toolname.SendMessage, map[string]string{"to": "scout", "message": "now look at B"})}},
		scripted.Turn{Text: "waiting for scout"},
		scripted.Turn{Text: "all done"})
	h.child("child-resume", scripted.Turn{Text: "first report"}, scripted.Turn{Text: "second report"})
	d := h.manager.NewDriver(h.main, nil)
	defer h.closeAll(d)
	if _, err := d.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.taskResult("send_1"); !strings.Contains(got, "resumed in the background") {
		t.Fatalf("send_message result: %s", got)
	}
	last, _, ok := d.Wait(context.Background())
	if !ok || last.Answer != "all done" {
		t.Fatalf("delivered = %+v", last)
	}
	reqs := h.requestsOf("child-resume")
	if len(reqs) != 2 {
		t.Fatalf("%d child requests, want 2", len(reqs))
	}
	var roles []string
	for _, m := range reqs[1].Messages {
		roles = append(roles, m.Role+":"+m.Content)
	}
	if got := strings.Join(roles[1:], "|"); got != "user:child-resume|assistant:first report|user:now look at B" {
		t.Fatalf("resumed request: %s", got)
	}
	br := h.waitFor("background_result", nil).(agent.BackgroundResult)
	if br.Text != "second report" || br.Name != "scout" {
		t.Fatalf("background result = %+v", br)
	}
}

func TestStopAgentTool(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.crewScript("go",
		scripted.Turn{ToolCalls: []scripted.Call{call("task_1", toolname.Task, bgTask("long", "child-long"))}},
		scripted.Turn{ToolCalls: []scripted.Call{call("stop_1", toolname.StopAgent, map[string]string{"to": "long"}), call("stop_2", toolname.StopAgent, map[string]string{"to": "nobody"})}},
		scripted.Turn{Text: "stopped it"},
		scripted.Turn{Text: "noted"})
	h.child("child-long", scripted.Turn{Stall: true})
	d := h.manager.NewDriver(h.main, nil)
	defer h.closeAll(d)
	if _, err := d.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.taskResult("stop_1"); !strings.Contains(got, "Stopped long (explore-1)") {
		t.Fatalf("stop result: %s", got)
	}
	if got := h.taskResult("stop_2"); !strings.Contains(got, `no child of yours is named "nobody"`) || !strings.Contains(got, "long (explore-1") {
		t.Fatalf("unknown target result: %s", got)
	}
	if _, _, ok := d.Wait(context.Background()); !ok {
		t.Fatal("the cancelled outcome was not delivered")
	}
	br := h.waitFor("background_result", nil).(agent.BackgroundResult)
	if br.Status != agent.StateCancelled {
		t.Fatalf("status = %q", br.Status)
	}
}

func TestPauseHoldsChildUntilResumed(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.mainScript("go", task("paused", "Explore", "child-pause"))
	h.child("child-pause",
		scripted.Turn{Delay: 300 * time.Millisecond, ToolCalls: []scripted.Call{{Name: toolname.Glob, Args: map[string]string{"pattern": "*.go"}}}},
		scripted.Turn{Text: "resumed fine"})
	defer h.closeAll(nil)
	done := make(chan error, 1)
	go func() {
		_, err := h.main.Run(context.Background(), "go")
		done <- err
	}()
	id := h.waitFor("child_started", nil).From().AgentID
	// Paused while its first request is in flight (a pause before it would
	// hold the request itself).
	for len(h.requestsOf("child-pause")) == 0 {
		time.Sleep(time.Millisecond)
	}
	if !h.manager.Pause(id, true) {
		t.Fatal("pause found no running child")
	}
	// The request in flight completes; no tool call starts while paused.
	for {
		reqs := h.requestsOf("child-pause")
		if len(reqs) == 1 && !reqs[0].Done.IsZero() {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	for _, e := range h.all() {
		if e.Kind() == "tool_started" && e.From().AgentID == id {
			t.Fatal("a paused child started a tool call")
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the parent's task call finished while its child was paused (%v)", err)
	default:
	}
	st := h.waitFor("child_state", func(e agent.Event) bool { return e.(agent.ChildState).Paused }).(agent.ChildState)
	if st.State != agent.StatePaused {
		t.Fatalf("state = %+v", st)
	}
	if !h.manager.Pause(id, false) {
		t.Fatal("resume found no child")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.taskResult("task_1"), "resumed fine") {
		t.Fatal("the child did not finish after the resume")
	}
}

func TestBudgetsCutChildShort(t *testing.T) {
	tokenCapped := agentdefs.Definition{Name: "capped", Description: "capped", Tools: []string{toolname.Glob}, MaxTokens: 50, Prompt: "p", Scope: agentdefs.Project}
	costCapped := agentdefs.Definition{Name: "pricey", Description: "pricey", Tools: []string{toolname.Glob}, MaxCost: 0.001, Prompt: "p", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{tokenCapped, costCapped},
		cost: agent.Prices{"child-model": {Input: 10, Output: 10}}.CostFunc()})
	h.mainScript("go", batch(task("tok", "capped", "child-tok"), task("cost", "pricey", "child-cost")))
	glob := scripted.Call{Name: toolname.Glob, Args: map[string]string{"pattern": "*.go"}}
	h.child("child-tok",
		scripted.Turn{Text: "Looking at go files.", ToolCalls: []scripted.Call{glob}, Usage: &scripted.Usage{Prompt: 40, Completion: 20}},
		scripted.Turn{Text: "never reached"})
	// 100 tokens at 10 per million: 0.001, the budget.
	h.child("child-cost",
		scripted.Turn{Text: "Pricey look.", ToolCalls: []scripted.Call{glob}, Usage: &scripted.Usage{Prompt: 60, Completion: 40}},
		scripted.Turn{Text: "never reached"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := h.taskResult("task_1")
	for _, want := range []string{"reached its budget (60 of 50 tokens)", "Looking at go files.", "reached its budget (cost 0.0010 of 0.0010)", "Pricey look."} {
		if !strings.Contains(res, want) {
			t.Errorf("result lacks %q:\n%s", want, res)
		}
	}
	for _, e := range h.eventsOf("child_finished") {
		if r := e.(agent.ChildFinished).Reason; r != agent.StopBudget {
			t.Errorf("%s stopped with %q, want %q", e.From().Name, r, agent.StopBudget)
		}
	}
	for _, e := range h.eventsOf("child_started") {
		cs := e.(agent.ChildStarted)
		if cs.MaxTokens == 0 && cs.MaxCost == 0 {
			t.Errorf("ChildStarted of %s carries no budget", cs.Name)
		}
	}
}

func TestSpawnTypesLimitWhatAChildStarts(t *testing.T) {
	lead := agentdefs.Definition{Name: "lead", Description: "leads", Tools: []string{toolname.Task}, SpawnTypes: []string{"Plan"}, Prompt: "You lead.", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{lead}, maxDepth: 2})
	h.mainScript("go", task("lead", "lead", "child-lead"))
	h.child("child-lead",
		scripted.Turn{ToolCalls: []scripted.Call{
			call("sub_1", toolname.Task, task("explore", "Explore", "grandchild-explore")),
			call("sub_2", toolname.Task, task("plan", "Plan", "grandchild-plan")),
		}},
		scripted.Turn{Text: "lead done"})
	h.child("grandchild-plan", scripted.Turn{Text: "a plan"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.taskResult("sub_1"); !strings.Contains(got, "may start only these subagent types: Plan") {
		t.Fatalf("forbidden type result: %s", got)
	}
	if got := h.taskResult("sub_2"); !strings.Contains(got, "a plan") {
		t.Fatalf("allowed type result: %s", got)
	}
	if len(h.requestsOf("grandchild-explore")) != 0 {
		t.Fatal("the forbidden child ran")
	}
	// The lead's task tool offers only Plan.
	reqs := h.requestsOf("child-lead")
	if !slices.Contains(reqs[0].Tools, toolname.SendMessage) || !slices.Contains(reqs[0].Tools, toolname.StopAgent) {
		t.Fatalf("a spawning child lacks the crew tools: %v", reqs[0].Tools)
	}
}

func TestChildFilesFromBash(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	worker := agentdefs.Definition{Name: "worker", Description: "works", Tools: []string{toolname.Bash}, Prompt: "p", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{worker}})
	root := h.manager.Workspace().Root
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	h.mainScript("go", task("work", "worker", "child-work"))
	h.child("child-work",
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "b1", Name: toolname.Bash, Args: map[string]string{"command": "printf 'a\\nb\\n' > new.txt && echo '// more' >> auth.go"}}}},
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "b2", Name: toolname.Bash, Args: map[string]string{"command": "ls"}}}},
		scripted.Turn{Text: "worked"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	files := h.eventsOf("child_files")
	if len(files) != 1 {
		t.Fatalf("%d child_files events, want 1 (ls changes nothing): %+v", len(files), files)
	}
	cf := files[0].(agent.ChildFiles)
	diffs := map[string]string{}
	for i := range cf.Files {
		diffs[cf.Files[i].Path], cf.Files[i].Diff = cf.Files[i].Diff, ""
	}
	want := []agent.FileChange{{Path: "auth.go", Status: "modified", Added: 1}, {Path: "new.txt", Status: "added", Added: 2}}
	if cf.CallID != "b1" || fmt.Sprint(cf.Files) != fmt.Sprint(want) {
		t.Fatalf("child files = %+v, want %+v for b1", cf, want)
	}
	// Each file comes with its diff, so the pane, the full-screen view and
	// /diff can show what the command did, not only how much.
	if d := diffs["auth.go"]; !strings.Contains(d, "+++ b/auth.go") || !strings.Contains(d, "\n+// more\n") {
		t.Errorf("auth.go's diff = %q", d)
	}
	if d := diffs["new.txt"]; !strings.Contains(d, "+++ b/new.txt") || !strings.Contains(d, "\n+a\n+b\n") {
		t.Errorf("new.txt's diff = %q", d)
	}
}

func TestRestoredChildResumesWithItsHistory(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	defer h.closeAll(nil)
	h.manager.Restore([]subagent.Restored{{
		Source: agent.Source{AgentID: "explore-7", ParentID: agent.MainAgentID, AgentType: "Explore", Description: "old", Depth: 1, Name: "veteran"},
		Model:  "old-model",
		Messages: []agent.Message{
			{Role: agent.RoleUser, Content: "child-veteran: look"},
			{Role: agent.RoleAssistant, Content: "I looked before the restart"},
		},
		Reason: agent.StopOK,
	}, {
		Source:      agent.Source{AgentID: "explore-8", AgentType: "Explore", Depth: 1, Name: "casualty"},
		Messages:    []agent.Message{{Role: agent.RoleUser, Content: "child-casualty"}},
		Interrupted: true,
	}})
	h.child("child-veteran", scripted.Turn{Text: "first"}, scripted.Turn{Text: "resumed after the restart"})
	if h.manager.Cancel("veteran") || h.manager.Pause("veteran", true) {
		t.Fatal("a restored child counts as running")
	}
	h.srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: `[background agent "veteran" (id explore-7) finished]`}, Turns: []scripted.Turn{{Text: "noted the veteran"}}})
	d := h.manager.NewDriver(h.main, nil)
	defer d.Close()
	if err := h.manager.Send(context.Background(), "veteran", "look again"); err != nil {
		t.Fatal(err)
	}
	if last, _, ok := d.Wait(context.Background()); !ok || last.Answer != "noted the veteran" {
		t.Fatalf("delivered = %+v, %v", last, ok)
	}
	h.main.Reset()
	fin := h.waitFor("child_finished", func(e agent.Event) bool { return e.From().Name == "veteran" }).(agent.ChildFinished)
	if fin.Reason != agent.StopOK {
		t.Fatalf("resumed child ended %q", fin.Reason)
	}
	reqs := h.requestsOf("child-veteran")
	if len(reqs) != 1 || reqs[0].Model != "old-model" {
		t.Fatalf("requests = %+v", reqs)
	}
	var got []string
	for _, m := range reqs[0].Messages[1:] {
		got = append(got, m.Role+":"+m.Content)
	}
	if strings.Join(got, "|") != "user:child-veteran: look|assistant:I looked before the restart|user:look again" {
		t.Fatalf("resumed request: %v", got)
	}
	// New children get IDs after the restored ones, and the names stay taken.
	h.mainScript("go", map[string]any{"description": "new", "subagent_type": "Explore", "prompt": "child-new", "name": "veteran"})
	h.child("child-new", scripted.Turn{Text: "new one"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.taskResult("task_1"); !strings.Contains(got, `the name "veteran" is taken`) {
		t.Fatalf("task result: %s", got)
	}
}

// TestPausedTimeNotCounted: a child paused longer than its timeout still
// finishes: the clock stops while it is paused, and ChildFinished's
// elapsed leaves the pause out.
func TestPausedTimeNotCounted(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{timeout: time.Second})
	h.mainScript("go", task("patient", "Explore", "child-patient"))
	h.child("child-patient",
		scripted.Turn{Delay: 300 * time.Millisecond, ToolCalls: []scripted.Call{{Name: toolname.Glob, Args: map[string]string{"pattern": "*.go"}}}},
		scripted.Turn{Text: "finished in time", Delay: 100 * time.Millisecond})
	defer h.closeAll(nil)
	done := make(chan error, 1)
	go func() {
		_, err := h.main.Run(context.Background(), "go")
		done <- err
	}()
	id := h.waitFor("child_started", nil).From().AgentID
	for len(h.requestsOf("child-patient")) == 0 {
		time.Sleep(time.Millisecond)
	}
	h.manager.Pause(id, true)
	time.Sleep(1500 * time.Millisecond) // longer than the timeout
	paused := h.waitFor("child_state", func(e agent.Event) bool { return e.(agent.ChildState).Paused }).(agent.ChildState)
	h.manager.Pause(id, false)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	fin := h.waitFor("child_finished", nil).(agent.ChildFinished)
	if fin.Reason != agent.StopOK || !strings.Contains(h.taskResult("task_1"), "finished in time") {
		t.Fatalf("the paused child ended %q: %s", fin.Reason, h.taskResult("task_1"))
	}
	if fin.Elapsed >= time.Second || paused.Elapsed >= time.Second {
		t.Fatalf("elapsed %s (at the pause %s) counts the 1.5 s pause", fin.Elapsed, paused.Elapsed)
	}
}

// TestChildWaitsForItsBackgroundChildren: a child that started a child of
// its own in the background does not report before it has answered that
// child's outcome.
func TestChildWaitsForItsBackgroundChildren(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	lead := agentdefs.Definition{Name: "lead", Description: "leads", Tools: []string{toolname.Task}, Prompt: "You lead.", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{lead}, maxDepth: 2})
	defer h.closeAll(nil)
	h.mainScript("go", task("lead", "lead", "child-lead"))
	h.child("child-lead",
		scripted.Turn{ToolCalls: []scripted.Call{call("sub_1", toolname.Task, bgTask("helper", "grandchild-helper"))}},
		scripted.Turn{Text: "helper started"},
		scripted.Turn{Text: "lead report with the helper's finding"})
	h.child("grandchild-helper", scripted.Turn{Text: "helper finding", Delay: 200 * time.Millisecond})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.taskResult("task_1"); !strings.Contains(got, "lead report with the helper's finding") {
		t.Fatalf("the lead reported before its background child's outcome: %s", got)
	}
	br := h.waitFor("background_result", nil).(agent.BackgroundResult)
	if br.AgentID != "lead-1" || br.Name != "helper" || br.Text != "helper finding" {
		t.Fatalf("background result = %+v", br)
	}
}

// TestResumedGrandchildReportsToARunningAncestor: a grandchild resumed after
// its parent finished reports to the main agent rather than to a parent
// that no longer reads.
func TestResumedGrandchildReportsToARunningAncestor(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	lead := agentdefs.Definition{Name: "lead", Description: "leads", Tools: []string{toolname.Task}, Prompt: "You lead.", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{lead}, maxDepth: 2})
	h.mainScript("go", task("lead", "lead", "child-lead"))
	h.child("child-lead",
		scripted.Turn{ToolCalls: []scripted.Call{call("sub_1", toolname.Task, map[string]any{"description": "h", "subagent_type": "Explore", "prompt": "grandchild-h", "name": "helper"})}},
		scripted.Turn{Text: "lead done"})
	h.child("grandchild-h", scripted.Turn{Text: "first"}, scripted.Turn{Text: "second, for main"})
	h.srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: `[background agent "helper"`}, Turns: []scripted.Turn{{Text: "main read it"}}})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	h.main.Reset()
	d := h.manager.NewDriver(h.main, nil)
	defer h.closeAll(d)
	if err := h.manager.Send(context.Background(), "helper", "again"); err != nil {
		t.Fatal(err)
	}
	if last, _, ok := d.Wait(context.Background()); !ok || last.Answer != "main read it" {
		t.Fatalf("delivered = %+v, %v", last, ok)
	}
	br := h.waitFor("background_result", nil).(agent.BackgroundResult)
	if br.AgentID != agent.MainAgentID || br.Text != "second, for main" {
		t.Fatalf("background result = %+v", br)
	}
}

// TestResumedIsolatedChildWorksInAFreshWorktree: an isolated child whose
// first worktree was merged and removed is resumed in a new one, keeps its
// history, and its new change is reviewed and merged like the first.
func TestResumedIsolatedChildWorksInAFreshWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	h := newIsoHarness(t, true, func(req permission.Request) permission.Verdict {
		return permission.Verdict{Allowed: true, ByUser: true}
	})
	defer h.manager.Close()
	h.mainScript("go", map[string]any{"description": "w", "subagent_type": "general-purpose", "prompt": "child-iso", "name": "iso", "isolation": "worktree"})
	h.child("child-iso",
		scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.WriteFile, Args: map[string]string{"path": "first.txt", "content": "one\n"}}}},
		scripted.Turn{Text: "wrote first"},
		scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.WriteFile, Args: map[string]string{"path": "second.txt", "content": "two\n"}}}},
		scripted.Turn{Text: "wrote second"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.read("first.txt"); got != "one\n" {
		t.Fatalf("first.txt = %q after the first merge", got)
	}
	if err := h.manager.Send(context.Background(), "iso", "now write second.txt"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(h.eventsOf("worktree_result")) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	results := h.eventsOf("worktree_result")
	if len(results) != 2 || results[1].(agent.WorktreeResult).Status != agent.WorktreeApplied {
		t.Fatalf("worktree results = %+v", results)
	}
	if got, _ := h.read("second.txt"); got != "two\n" {
		t.Fatalf("second.txt = %q after the resumed child's merge", got)
	}
	reqs := h.requestsOf("child-iso")
	var got []string
	for _, m := range reqs[len(reqs)-1].Messages[1:] {
		got = append(got, m.Role+":"+m.Content)
	}
	if s := strings.Join(got, "|"); !strings.Contains(s, "assistant:wrote first|user:now write second.txt|assistant:|tool:") {
		t.Fatalf("the resumed child's last request lacks its history: %s", s)
	}
	h.clean()
}

// TestChildFilesLeaveOutOtherAgentsWrites: a file a sibling's write_file
// changed while a child's command ran is the sibling's change; the
// command's own files are still the command's.
func TestChildFilesLeaveOutOtherAgentsWrites(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	worker := agentdefs.Definition{Name: "worker", Description: "works", Tools: []string{toolname.Bash}, Prompt: "p", Scope: agentdefs.Project}
	writer := agentdefs.Definition{Name: "writer", Description: "writes", Tools: []string{toolname.WriteFile}, Prompt: "p", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{worker, writer}})
	root := h.manager.Workspace().Root
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	h.mainScript("go", batch(task("slow", "worker", "child-slow"), task("write", "writer", "child-write")))
	h.child("child-slow",
		// Waits until the sibling's file is there, so the write surely
		// falls inside this call.
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "b1", Name: toolname.Bash, Args: map[string]string{
			"command": "for i in $(seq 100); do [ -e sibling.txt ] && break; sleep 0.05; done; echo mine > own.txt"}}}},
		scripted.Turn{Text: "done"})
	h.child("child-write",
		// Late enough that the command is already running.
		scripted.Turn{Delay: 300 * time.Millisecond, ToolCalls: []scripted.Call{{ID: "w1", Name: toolname.WriteFile, Args: map[string]string{"path": "sibling.txt", "content": "theirs\n"}}}},
		scripted.Turn{Text: "wrote"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(root, "sibling.txt")); err != nil || string(got) != "theirs\n" {
		t.Fatalf("the sibling's write did not happen: %q %v", got, err)
	}
	var paths []string
	for _, ev := range h.eventsOf("child_files") {
		for _, f := range ev.(agent.ChildFiles).Files {
			paths = append(paths, f.Path)
		}
	}
	if fmt.Sprint(paths) != "[own.txt]" {
		t.Errorf("the command was credited with %v, want [own.txt]", paths)
	}
}
