package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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
	"covey/internal/scripted/scriptedtest"
	"covey/permission"
	"covey/subagent"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/workspace"
)

// harness is a main agent with a task tool, against a scripted server.
type harness struct {
	t       *testing.T
	srv     *scripted.Server
	manager *subagent.Manager
	main    *agent.Agent
	mu      sync.Mutex
	events  []agent.Event
}

type harnessOpts struct {
	defs        []agentdefs.Definition
	concurrency int
	resolve     func(h *harness, def agentdefs.Definition) (agent.Provider, string, error)
	timeout     time.Duration
	mcp         []tool.Tool // the session's MCP tools
	// gate answers the children's permission requests; given the
	// workspace root, so a policy can be told it. Nil: no gate.
	gate     func(root string) permission.Gate
	maxDepth int
	cost     func(model string, u agent.Usage) float64
	// raise lets agent files raise their permission mode.
	raise bool
	// shells runs the children's background shells.
	shells *tools.Shells
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	h := &harness{t: t, srv: scriptedtest.New(t)}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "auth.go"), []byte("package auth\n\nfunc Login() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defs := append(agentdefs.Builtins(), o.defs...)
	resolve := func(def agentdefs.Definition) (agent.Provider, string, error) {
		if o.resolve != nil {
			return o.resolve(h, def)
		}
		return h.provider(), "child-model", nil
	}
	var gate permission.Gate
	if o.gate != nil {
		gate = o.gate(ws.Root)
	}
	h.manager = subagent.NewManager(subagent.Config{
		Gate: gate, RaiseAgentModes: o.raise,
		Defs: agentdefs.NewSet(defs...), Workspace: ws, Environment: agent.Environment{Root: root},
		Resolve: resolve, Emit: h.emit, Concurrency: o.concurrency, Timeout: o.timeout,
		MCPTools: func(_ permission.Gate, keep func(tool.Tool) bool) tool.Source {
			return tool.FilterSource(func() []tool.Tool { return o.mcp }, keep)
		},
		MaxDepth: o.maxDepth, Cost: o.cost, Shells: o.shells,
	})
	reg := tool.NewRegistry(tools.Builtins(&tools.Env{WS: ws})...)
	reg.Add(h.manager.Tool(agent.Source{AgentID: agent.MainAgentID}))
	for _, t := range h.manager.CrewTools(agent.Source{AgentID: agent.MainAgentID}) {
		reg.Add(t)
	}
	h.main = agent.New(agent.Config{
		Provider: h.provider(), Model: "main-model", System: "You are the main test agent.",
		Tools: reg, MaxTurns: 5, Emit: h.emit,
	})
	return h
}

func (h *harness) provider() agent.Provider {
	return agent.NewOpenAI(agent.OpenAIConfig{BaseURL: h.srv.URL(), MaxAttempts: 1})
}

func (h *harness) emit(e agent.Event) {
	h.mu.Lock()
	h.events = append(h.events, e)
	h.mu.Unlock()
}

func (h *harness) eventsOf(kind string) []agent.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []agent.Event
	for _, e := range h.events {
		if e.Kind() == kind {
			out = append(out, e)
		}
	}
	return out
}

// mainScript makes the main agent call task with args, then answer.
func (h *harness) mainScript(prompt string, calls ...any) {
	var cs []scripted.Call
	for i, a := range calls {
		cs = append(cs, scripted.Call{ID: fmt.Sprintf("task_%d", i+1), Name: toolname.Task, Args: a})
	}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: prompt, SystemContains: "main test agent"},
		Turns: []scripted.Turn{{ToolCalls: cs}, {Text: "main done"}}})
}

func (h *harness) child(marker string, turns ...scripted.Turn) {
	h.srv.Add(scripted.Conversation{Name: marker, Match: scripted.Match{FirstUser: marker}, Turns: turns})
}

// taskResult returns the content of the task tool's result for call id, as
// sent back to the model.
func (h *harness) taskResult(id string) string {
	h.t.Helper()
	for _, e := range h.srv.Journal() {
		for _, m := range e.Messages {
			if m.Role == "tool" && m.ToolCallID == id {
				return m.Content
			}
		}
	}
	h.t.Fatalf("no result for %s in the journal", id)
	return ""
}

func task(desc, typ, prompt string) map[string]string {
	return map[string]string{"description": desc, "subagent_type": typ, "prompt": prompt}
}

func batch(ts ...map[string]string) map[string]any { return map[string]any{"tasks": ts} }

func TestChildrenRunConcurrently(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.mainScript("go", batch(task("one", "Explore", "child-one"), task("two", "Explore", "child-two"), task("three", "Explore", "child-three")))
	for _, m := range []string{"child-one", "child-two", "child-three"} {
		h.child(m, scripted.Turn{Text: "report from " + m, Delay: 300 * time.Millisecond})
	}
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	// Proof from the journal: every child's request arrived before any of
	// them was answered, so all three were in flight at once.
	var starts, dones []time.Time
	for _, e := range h.settledJournal() {
		if strings.HasPrefix(e.FirstUser, "child-") {
			starts, dones = append(starts, e.Time), append(dones, e.Done)
		}
	}
	if len(starts) != 3 {
		t.Fatalf("%d child requests, want 3", len(starts))
	}
	if last, first := slices.MaxFunc(starts, cmpTime), slices.MinFunc(dones, cmpTime); !last.Before(first) {
		t.Fatalf("children did not overlap: last start %v, first done %v", last, first)
	}
	res := h.taskResult("task_1")
	i1, i2, i3 := strings.Index(res, "[Explore] one"), strings.Index(res, "[Explore] two"), strings.Index(res, "[Explore] three")
	if i1 < 0 || !(i1 < i2 && i2 < i3) || !strings.Contains(res, "report from child-two") {
		t.Fatalf("results not in call order:\n%s", res)
	}
}

func cmpTime(a, b time.Time) int { return a.Compare(b) }

// settledJournal returns the journal once the server has noted every
// request done: it does so after its last write, which the client may have
// read a moment before.
func (h *harness) settledJournal() []scripted.Entry {
	h.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		j := h.srv.Journal()
		if !slices.ContainsFunc(j, func(e scripted.Entry) bool { return e.Done.IsZero() }) || time.Now().After(deadline) {
			return j
		}
		time.Sleep(time.Millisecond)
	}
}

func TestChildToolsAndModelPerDefinition(t *testing.T) {
	other := scriptedtest.New(t) // stands in for another provider
	cheap := agentdefs.Definition{Name: "cheap", Description: "runs elsewhere", Model: "small-model", Provider: "other",
		Tools: []string{toolname.ReadFile, toolname.Grep}, Prompt: "cheap agent", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{cheap}, resolve: func(h *harness, def agentdefs.Definition) (agent.Provider, string, error) {
		if def.Provider == "other" {
			return agent.NewOpenAI(agent.OpenAIConfig{BaseURL: other.URL(), MaxAttempts: 1}), def.Model, nil
		}
		return h.provider(), "inherited-model", nil
	}})
	h.mainScript("go", batch(task("look", "Explore", "child-explore"), task("work", "general-purpose", "child-general"), task("far", "cheap", "child-cheap")))
	h.child("child-explore", scripted.Turn{Text: "explored"})
	h.child("child-general", scripted.Turn{Text: "worked"})
	other.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "child-cheap"}, Turns: []scripted.Turn{{Text: "cheap answer"}}})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		model string
		tools []string
	}{
		"child-explore": {"inherited-model", []string{toolname.ReadFile, toolname.ListDir, toolname.Glob, toolname.Grep, toolname.AskUser}},
		"child-general": {"inherited-model", append(toolname.Base(), toolname.AskUser, toolname.WebFetch)},
	}
	for _, e := range h.srv.Journal() {
		w, ok := want[e.FirstUser]
		if !ok {
			continue
		}
		delete(want, e.FirstUser)
		if e.Model != w.model || !slices.Equal(e.Tools, w.tools) {
			t.Errorf("%s: model %q tools %v, want %q %v", e.FirstUser, e.Model, e.Tools, w.model, w.tools)
		}
		if slices.Contains(e.Tools, toolname.Task) {
			t.Errorf("%s was offered task at the default depth", e.FirstUser)
		}
	}
	if len(want) != 0 {
		t.Errorf("no request from %v", want)
	}
	j := other.Journal()
	if len(j) != 1 || j[0].Model != "small-model" || !slices.Equal(j[0].Tools, []string{toolname.ReadFile, toolname.Grep}) {
		t.Fatalf("the other provider saw %+v", j)
	}
	if !strings.Contains(h.taskResult("task_1"), "cheap answer") {
		t.Fatal("the cheap child's answer did not reach the parent")
	}
}

func TestReadOnlyChildCannotWrite(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.mainScript("go", task("sneaky", "Explore", "child-write"))
	h.child("child-write",
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "w1", Name: toolname.WriteFile, Args: map[string]string{"path": "x.txt", "content": "x"}},
			{ID: "t1", Name: toolname.Task, Args: task("nested", "Explore", "nested")}}},
		scripted.Turn{Text: "could not"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	for _, e := range h.srv.Journal() {
		if e.FirstUser != "child-write" || e.Turn != 1 {
			continue
		}
		for _, m := range e.Messages {
			if m.Role == "tool" && !strings.Contains(m.Content, "unknown tool") {
				t.Errorf("call %s was not refused: %q", m.ToolCallID, m.Content)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(h.manager.Workspace().Root, "x.txt")); err == nil {
		t.Fatal("a read-only child wrote a file")
	}
}

func TestUnknownTypeListsAvailable(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.mainScript("go", task("x", "Explorer", "never"))
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := h.taskResult("task_1")
	for _, want := range []string{`unknown subagent_type "Explorer"`, "Explore:", "Plan:", "general-purpose:"} {
		if !strings.Contains(res, want) {
			t.Errorf("result lacks %q:\n%s", want, res)
		}
	}
}

func TestLimitsReturnPartialResults(t *testing.T) {
	short := agentdefs.Definition{Name: "short", Description: "two turns", Tools: []string{toolname.ReadFile}, MaxTurns: 2, Prompt: "p", Scope: agentdefs.Project}
	slow := agentdefs.Definition{Name: "slow", Description: "slow", Tools: []string{toolname.ReadFile}, Timeout: 400 * time.Millisecond, Prompt: "p", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{short, slow}})
	h.mainScript("go", batch(task("loops", "short", "child-loops"), task("stalls", "slow", "child-stalls")))
	readAuth := scripted.Call{Name: toolname.ReadFile, Args: map[string]string{"path": "auth.go"}}
	h.child("child-loops",
		scripted.Turn{Text: "First I read auth.go.", ToolCalls: []scripted.Call{readAuth}},
		scripted.Turn{Text: "Login is defined there.", ToolCalls: []scripted.Call{readAuth}},
		scripted.Turn{Text: "never reached"})
	h.child("child-stalls",
		scripted.Turn{Text: "Found auth.go quickly.", ToolCalls: []scripted.Call{readAuth}},
		scripted.Turn{Stall: true})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := h.taskResult("task_1")
	for _, want := range []string{"cut short: reached its limit of 2 turns", "Login is defined there.", "cut short: timed out", "Found auth.go quickly."} {
		if !strings.Contains(res, want) {
			t.Errorf("result lacks %q:\n%s", want, res)
		}
	}
	reasons := map[string]string{}
	for _, e := range h.eventsOf("child_finished") {
		f := e.(agent.ChildFinished)
		reasons[f.Description] = f.Reason
	}
	if reasons["loops"] != agent.StopMaxTurns || reasons["stalls"] != agent.StopTimeout {
		t.Fatalf("reasons = %v", reasons)
	}
}

// panicProvider crashes inside the child's loop.
type panicProvider struct{}

func (panicProvider) Stream(context.Context, agent.Request, agent.StreamHandler) (agent.Completion, error) {
	panic("provider exploded")
}

func TestPanickingChildLeavesSiblingsIntact(t *testing.T) {
	crasher := agentdefs.Definition{Name: "crasher", Description: "crashes", Tools: []string{toolname.ReadFile}, Prompt: "p", Scope: agentdefs.Project}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{crasher}, resolve: func(h *harness, def agentdefs.Definition) (agent.Provider, string, error) {
		if def.Name == "crasher" {
			return panicProvider{}, "m", nil
		}
		return h.provider(), "m", nil
	}})
	h.mainScript("go", batch(task("a", "Explore", "child-a"), task("boom", "crasher", "child-boom"), task("b", "Explore", "child-b")))
	h.child("child-a", scripted.Turn{Text: "a is fine"})
	h.child("child-b", scripted.Turn{Text: "b is fine"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := h.taskResult("task_1")
	for _, want := range []string{"a is fine", "b is fine", "## [crasher] boom\nError: internal error: provider exploded"} {
		if !strings.Contains(res, want) {
			t.Errorf("result lacks %q:\n%s", want, res)
		}
	}
}

func TestCancelOneChild(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.mainScript("go", batch(task("keep", "Explore", "child-keep"), task("drop", "Explore", "child-drop")))
	h.child("child-keep", scripted.Turn{Text: "kept going", Delay: 200 * time.Millisecond})
	h.child("child-drop", scripted.Turn{Stall: true})
	go func() {
		// Cancel the stalled child once its request is in flight.
		for {
			for _, e := range h.srv.Journal() {
				if e.FirstUser == "child-drop" {
					for _, id := range h.manager.Running() {
						if strings.HasPrefix(id, "explore-") && h.isDrop(id) {
							h.manager.Cancel(id)
							return
						}
					}
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := h.main.Run(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	res := h.taskResult("task_1")
	if !strings.Contains(res, "kept going") || !strings.Contains(res, "## [Explore] drop\n"+agent.CancelledResult) {
		t.Fatalf("result:\n%s", res)
	}
	h.srv.Close() // its handlers hold goroutines until closed
}

// isDrop reports whether child id is the one described "drop".
func (h *harness) isDrop(id string) bool {
	for _, e := range h.eventsOf("child_started") {
		if e.From().AgentID == id {
			return e.From().Description == "drop"
		}
	}
	return false
}

func TestCancelTurnStopsEveryChild(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t, harnessOpts{})
	h.mainScript("go", batch(task("s1", "Explore", "child-s1"), task("s2", "Explore", "child-s2")))
	h.child("child-s1", scripted.Turn{Stall: true})
	h.child("child-s2", scripted.Turn{Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(h.eventsOf("child_started")) < 2 || len(h.srv.Journal()) < 3 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	res, err := h.main.Run(ctx, "go")
	if err == nil || res.Reason != agent.StopCancelled {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if got := len(h.eventsOf("child_finished")); got != 2 {
		t.Fatalf("%d children finished, want 2", got)
	}
	for _, m := range h.main.History() {
		if m.Role == agent.RoleTool && m.Content != agent.CancelledResult {
			t.Errorf("tool result %q, want %q", m.Content, agent.CancelledResult)
		}
	}
	h.srv.Close()
}

func TestConcurrencyCapQueues(t *testing.T) {
	h := newHarness(t, harnessOpts{concurrency: 2})
	var ts []map[string]string
	for i := range 4 {
		m := fmt.Sprintf("child-q%d", i)
		ts = append(ts, task(m, "Explore", m))
		h.child(m, scripted.Turn{Text: "ok " + m, Delay: 100 * time.Millisecond})
	}
	h.mainScript("go", batch(ts...))
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	// With a cap of 2, never more than 2 child requests were in flight.
	var spans [][2]time.Time
	for _, e := range h.settledJournal() {
		if strings.HasPrefix(e.FirstUser, "child-q") {
			spans = append(spans, [2]time.Time{e.Time, e.Done})
		}
	}
	// The server notes a request done after its last write, which the
	// client may have read (and the freed slot may have sent the next
	// request) a moment earlier; a request overlapping by less than
	// 10 ms of its 100 ms is that moment, not a third in flight.
	const slack = 10 * time.Millisecond
	for _, s := range spans {
		inFlight := 0
		for _, o := range spans {
			if !o[0].After(s[0]) && o[1].After(s[0].Add(slack)) {
				inFlight++
			}
		}
		if inFlight > 2 {
			t.Fatalf("%d requests in flight at %v, cap is 2", inFlight, s[0])
		}
	}
}

func TestEventsAreTagged(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.mainScript("go", task("tagged", "Explore", "child-tag"))
	h.child("child-tag", scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.Grep, Args: map[string]string{"pattern": "Login"}}}}, scripted.Turn{Text: "found"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	started := h.eventsOf("child_started")
	if len(started) != 1 {
		t.Fatalf("%d child_started", len(started))
	}
	src := started[0].From()
	if src.ParentCallID != "task_1" || src.AgentType != "Explore" || src.Depth != 1 || src.Description != "tagged" {
		t.Fatalf("child source = %+v", src)
	}
	var sawTool, sawUsage bool
	for _, e := range h.eventsOf("tool_finished") {
		if e.From().AgentID == src.AgentID && e.(agent.ToolFinished).KeyArg == "Login" {
			sawTool = true
		}
	}
	for _, e := range h.eventsOf("usage") {
		sawUsage = sawUsage || e.From().AgentID == src.AgentID
	}
	fin := h.eventsOf("child_finished")[0].(agent.ChildFinished)
	if !sawTool || !sawUsage || fin.ToolCalls != 1 || fin.Reason != agent.StopOK || fin.Usage.Total() == 0 {
		t.Fatalf("tool %v usage %v finished %+v", sawTool, sawUsage, fin)
	}
	if h.manager.Usage().Total() != fin.Usage.Total() {
		t.Fatalf("manager usage %+v, child %+v", h.manager.Usage(), fin.Usage)
	}
	b, err := agent.MarshalEvent(fin)
	if err != nil || !json.Valid(b) || !strings.Contains(string(b), `"type":"child_finished"`) {
		t.Fatalf("stream-json of child_finished: %s, %v", b, err)
	}
}
