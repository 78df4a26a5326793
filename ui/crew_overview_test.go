package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
	"covey/ui/transcript"

	"covey/agent"
	"covey/theme"
	"covey/tools/tool"
)

// crewT0 is when the test crew started.
var crewT0 = fixedNow.Add(-2 * time.Minute)

// testPrice prices "small" at $1/$5 per million tokens; other models
// have no price.
func testPrice(model string, u agent.Usage) (float64, bool) {
	if model != "small" {
		return 0, false
	}
	return float64(u.InputTokens)*1/1e6 + float64(u.OutputTokens)*5/1e6, true
}

// crewRouter routes a session with one child in each state, two of them
// nested, through a router with a price table.
func crewRouter(t testing.TB) *router {
	r := newRouter(transcript.New(transcript.RenderContext{Styles: &theme.New(theme.ModeDark, true, false).Styles}))
	r.cost = testPrice
	r.keepLog = true
	at := func(d time.Duration, evs ...agent.Event) {
		r.now = crewT0.Add(d)
		for _, ev := range evs {
			r.route(ev)
		}
	}
	src := func(id, name, parent, typ, desc string, depth int) agent.Source {
		return agent.Source{AgentID: id, Name: name, ParentCallID: parent, AgentType: typ, Description: desc, Depth: depth}
	}
	scout := src("a1", "scout", "t1", "Explore", "map the ui package", 1)
	fixer := src("a2", "fixer", "t1", "general-purpose", "fix the flaky test", 1)
	helper := src("a3", "helper", "t2", "Explore", "read the test logs", 2)
	deep := src("a4", "deep", "t3", "Plan", "plan the retry", 3)
	idle := src("a5", "idle", "t1", "Explore", "wait for the server", 1)
	bg := src("a6", "watcher", "t1", "Explore", "watch the build", 1)
	capped := src("a7", "capped", "t1", "Explore", "count every line", 1)
	at(0,
		agent.ToolStarted{Source: mainSrc(), CallID: "t1", Name: toolname.Task},
		agent.ChildStarted{Source: scout, Model: "small"},
		agent.ChildStarted{Source: fixer, Model: "big", MaxTokens: 50_000},
		agent.ChildStarted{Source: idle, Model: "small"},
		agent.ChildStarted{Source: bg, Model: "small", Background: true},
		agent.ChildStarted{Source: capped, Model: "small", MaxTokens: 1000},
		agent.ToolStarted{Source: fixer, CallID: "t2", Name: toolname.Task},
		agent.ChildStarted{Source: helper, Model: "small"},
		agent.ToolStarted{Source: helper, CallID: "t3", Name: toolname.Task},
		agent.ChildStarted{Source: deep, Model: "small"},
	)
	at(10*time.Second,
		agent.ToolStarted{Source: scout, CallID: "s1", Name: toolname.Grep, KeyArg: "route"},
		agent.ToolFinished{Source: scout, CallID: "s1", Name: toolname.Grep},
		agent.UsageReported{Source: scout, Usage: agent.Usage{InputTokens: 12_400, OutputTokens: 2_200}},
		agent.ChildFinished{Source: scout, Reason: agent.StopOK, ToolCalls: 1, Elapsed: 10 * time.Second,
			Usage: agent.Usage{InputTokens: 12_400, OutputTokens: 2_200}},
		agent.ToolStarted{Source: fixer, CallID: "f1", Name: toolname.EditFile, KeyArg: "a.go"},
		agent.ToolFinished{Source: fixer, CallID: "f1", Name: toolname.EditFile, Result: tool.Result{
			Display: &tool.FileChange{Path: "a.go", Diff: "--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n-old\n+new\n ctx\n", Added: 1, Removed: 1}}},
		agent.UsageReported{Source: fixer, Usage: agent.Usage{InputTokens: 30_000, OutputTokens: 1_000}},
		agent.ChildState{Source: helper, State: agent.StatePaused, Paused: true, Elapsed: 8 * time.Second},
		agent.ChildFinished{Source: capped, Reason: agent.StopBudget, Elapsed: 5 * time.Second,
			Usage: agent.Usage{InputTokens: 900, OutputTokens: 200}},
	)
	// idle last spoke at 10s; the others keep talking until 115s.
	at(11*time.Second, agent.TextDelta{Source: idle, Text: "Waiting."})
	at(115*time.Second,
		agent.TextDelta{Source: fixer, Text: "Editing."},
		agent.TextDelta{Source: bg, Text: "Still building."},
		agent.TextDelta{Source: deep, Text: "Planning."},
	)
	return r
}

func TestCrewOverviewTreeAndStates(t *testing.T) {
	r := crewRouter(t)
	var names []string
	for _, b := range r.tree() {
		names = append(names, b.Name())
	}
	// The nested children come right under their parents.
	if got, want := strings.Join(names, ","), "scout,fixer,helper,deep,idle,watcher,capped"; got != want {
		t.Errorf("tree order %s, want %s", got, want)
	}
	tests := map[string]struct {
		state   string
		stalled bool
	}{
		"scout":   {state: "done"},
		"fixer":   {state: "running"},
		"helper":  {state: "paused"},
		"deep":    {state: "running"},
		"idle":    {state: "running", stalled: true},
		"watcher": {state: "background"},
		"capped":  {state: "cut short"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			b := r.find(name)
			if b == nil {
				t.Fatal("not found by name")
			}
			if got := b.StateName(); got != tt.state {
				t.Errorf("state %q, want %q", got, tt.state)
			}
			if got := b.Stalled(fixedNow); got != tt.stalled {
				t.Errorf("stalled %v, want %v", got, tt.stalled)
			}
		})
	}
	// A paused child's clock stops at what the engine said.
	if got := r.find("helper").ElapsedAt(fixedNow); got != 8*time.Second {
		t.Errorf("paused elapsed %v, want 8s", got)
	}
	if c, ok := r.find("scout").Cost(); !ok || fmt.Sprintf("%.4f", c) != "0.0234" {
		t.Errorf("scout costs %v (%v), want $0.0234", c, ok)
	}
	if _, ok := r.find("fixer").Cost(); ok {
		t.Error("a child on a model without a price has a cost")
	}
}
