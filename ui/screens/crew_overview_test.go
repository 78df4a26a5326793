package screens

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// testPrice prices "small" at $1/$5 per million tokens; other models
// have no price.
func testPrice(model string, u agent.Usage) (float64, bool) {
	if model != "small" {
		return 0, false
	}
	return float64(u.InputTokens)*1/1e6 + float64(u.OutputTokens)*5/1e6, true
}

func mainSrc() agent.Source { return agent.Source{AgentID: agent.MainAgentID} }

// testCrew is a session with one child in each state, two of them nested,
// priced by testPrice. (ui's crewRouter routes the same events through the
// root's router.)
func testCrew() *crew {
	c := newCrew(testPrice)
	at := c.at
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
	return c
}

func newTestOverview(c *crew, width, height int) *CrewOverview {
	o := NewCrewOverview(testStyles(), defaultKeys())
	o.SetSize(width, height)
	o.SetRows(c.rows(), fixedNow, true)
	return o
}

func TestCrewOverviewGolden(t *testing.T) {
	for _, size := range []struct{ w, h int }{{140, 12}, {120, 12}, {100, 12}, {80, 12}, {60, 12}, {30, 6}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			o := newTestOverview(testCrew(), size.w, size.h)
			got := o.View()
			lines := strings.Split(got, "\n")
			if len(lines) != size.h {
				t.Errorf("%d lines, want %d", len(lines), size.h)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size.w {
					t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, size.w, l)
				}
			}
			checkGolden(t, fmt.Sprintf("%dx%d", size.w, size.h), ansi.Strip(got)+"\n")
		})
	}
}

// TestCrewOverviewColumnsAt120 checks that a 120-column terminal shows
// every column the issue names, also with long names, a long model name,
// the widest state and the cost column: the task gives way first.
// nameMin and modelMin are the overview's narrowest name and model
// columns.

func TestCrewOverviewColumnsAt120(t *testing.T) {
	all := []string{"NAME", "TYPE", "STATE", "TOOLS", "TOKENS", "CTX", "ELAPSED", "MODEL", "TASK"}
	tests := map[string]struct {
		model, name string
		waiting     bool
		priced      bool
	}{
		"short model, priced":       {model: "small", name: "scout", priced: true},
		"unpriced":                  {model: "small", name: "scout"},
		"long model, priced":        {model: "claude-sonnet-4-5-20250929", name: "scout", priced: true},
		"long name, long model":     {model: "claude-sonnet-4-5-20250929", name: "a-rather-long-name-x", priced: true},
		"waiting, long everything":  {model: "claude-sonnet-4-5-20250929", name: "a-rather-long-name-x", waiting: true, priced: true},
		"waiting, short model only": {model: "gpt-4.1", name: "scout", waiting: true, priced: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			r := newCrew(func(string, agent.Usage) (float64, bool) { return 0.5, true })
			r.now = crewT0
			r.apply(agent.ToolStarted{Source: mainSrc(), CallID: "t", Name: toolname.Task})
			src := agent.Source{AgentID: "c1", Name: tt.name, ParentCallID: "t", AgentType: "general-purpose",
				Description: "survey every markdown file of the repository and summarise", Depth: 1}
			r.apply(agent.ChildStarted{Source: src, Model: tt.model})
			r.apply(agent.UsageReported{Source: src, Usage: agent.Usage{InputTokens: 123_400, OutputTokens: 45_600}})
			r.apply(agent.ContextReported{Source: src, Tokens: 24_000, Window: 32_768})
			if tt.waiting {
				r.byName[tt.name].SetWaiting(true)
			}
			st := testStyles()
			o := NewCrewOverview(st, defaultKeys())
			o.SetSize(120, 4)
			o.SetRows(r.rows(), crewT0.Add(time.Minute), tt.priced)
			view := ansi.Strip(o.View())
			want := all
			if tt.priced {
				want = append(want, "COST")
			}
			for _, col := range want {
				if !strings.Contains(view, col) {
					t.Errorf("no %s column at 120 columns:\n%s", col, view)
				}
			}
			row := strings.Split(view, "\n")[2]
			for _, cell := range []string{tt.name[:min(len(tt.name), nameMin-1)], "general-purpose", "169k", "73%", "survey"} {
				if !strings.Contains(row, cell) {
					t.Errorf("the row lacks %q:\n%s", cell, view)
				}
			}
			if m := tt.model; len(m) > modelMin && !strings.Contains(row, m[:modelMin-1]) || len(m) <= modelMin && !strings.Contains(row, m) {
				t.Errorf("the row lacks the model %q:\n%s", tt.model, view)
			}
			for i, l := range strings.Split(view, "\n") {
				if w := ansi.StringWidth(l); w > 120 {
					t.Errorf("line %d is %d cells wide", i, w)
				}
			}
		})
	}
}

func TestCrewOverviewSelection(t *testing.T) {
	o := newTestOverview(testCrew(), 100, 5) // three rows in view
	press := func(k tea.KeyType) { o.Update(tea.KeyMsg{Type: k}) }
	if o.Selected().Name() != "scout" {
		t.Fatalf("first selection %q, want the first row", o.Selected().Name())
	}
	press(tea.KeyDown)
	press(tea.KeyDown)
	press(tea.KeyDown)
	if got := o.Selected().Name(); got != "deep" {
		t.Errorf("after three downs %q, want deep", got)
	}
	if !strings.Contains(ansi.Strip(o.View()), "› "+"  └ deep") && !strings.Contains(ansi.Strip(o.View()), "›   └ deep") {
		t.Errorf("the selected row is not in view or not marked:\n%s", ansi.Strip(o.View()))
	}
	press(tea.KeyEnd)
	if got := o.Selected().Name(); got != "capped" {
		t.Errorf("end selects %q, want the last row", got)
	}
	press(tea.KeyDown)
	if got := o.Selected().Name(); got != "capped" {
		t.Errorf("down past the end selects %q", got)
	}
	press(tea.KeyHome)
	press(tea.KeyUp)
	if got := o.Selected().Name(); got != "scout" {
		t.Errorf("up past the top selects %q", got)
	}
	// The selection stays on its child when rows are given again.
	press(tea.KeyDown)
	o.SetRows(testCrew().rows(), fixedNow, true)
	if o.Selected() == nil {
		t.Fatal("no selection after new rows")
	}
}

// BenchmarkCrewOverviewView draws the overview of 100 running children
// as a tick does: the clock moves, so every row's elapsed time changes.
// The goal is at most 1 ms per View.
func BenchmarkCrewOverviewView(b *testing.B) {
	r := newCrew(testPrice)
	r.now = crewT0
	r.apply(agent.ToolStarted{Source: mainSrc(), CallID: "t", Name: toolname.Task})
	for i := range 100 {
		parent, depth := "t", 1
		if i%4 != 0 {
			parent, depth = fmt.Sprintf("n%d", i-i%4), 2
		}
		src := agent.Source{AgentID: fmt.Sprintf("c%d", i), Name: fmt.Sprintf("child-%d", i), ParentCallID: parent,
			AgentType: "Explore", Description: "look into part " + fmt.Sprint(i) + " of the code base", Depth: depth}
		r.apply(agent.ChildStarted{Source: src, Model: "small", MaxTokens: 100_000})
		if i%4 == 0 {
			r.apply(agent.ToolStarted{Source: src, CallID: fmt.Sprintf("n%d", i), Name: toolname.Task})
		}
		r.apply(agent.UsageReported{Source: src, Usage: agent.Usage{InputTokens: 1000 * i, OutputTokens: 100 * i}})
	}
	st := testStyles()
	o := NewCrewOverview(st, defaultKeys())
	o.SetSize(160, 110)
	rows := r.rows()
	if len(rows) != 100 {
		b.Fatalf("%d rows, want 100", len(rows))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		o.SetRows(rows, crewT0.Add(time.Duration(i)*100*time.Millisecond), true)
		_ = o.View()
	}
}

// TestCrewOverviewTitleCounts checks the title's counts: a child waiting
// for a slot is queued, not running.
func TestCrewOverviewTitleCounts(t *testing.T) {
	tests := map[string]struct {
		queued []bool // one child each; true: still queued
		want   string
	}{
		"all running":    {queued: []bool{false, false}, want: "Crew · 2 subagents · 2 running"},
		"one queued":     {queued: []bool{false, true}, want: "Crew · 2 subagents · 1 running · 1 queued"},
		"all queued":     {queued: []bool{true, true, true}, want: "Crew · 3 subagents · 0 running · 3 queued"},
		"nothing at all": {want: "Crew · 0 subagents · 0 running"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			r := newCrew(nil)
			r.now = crewT0
			r.apply(agent.ToolStarted{Source: mainSrc(), CallID: "t", Name: toolname.Task})
			for i, q := range tt.queued {
				src := agent.Source{AgentID: fmt.Sprintf("c%d", i), Name: fmt.Sprintf("kid-%d", i), ParentCallID: "t", AgentType: "Explore", Depth: 1}
				r.apply(agent.ChildStarted{Source: src, Model: "small"})
				state := agent.StateRunning
				if q {
					state = agent.StateQueued
				}
				r.apply(agent.ChildState{Source: src, State: state})
			}
			o := NewCrewOverview(testStyles(), defaultKeys())
			o.SetSize(120, 6)
			o.SetRows(r.rows(), crewT0, false)
			if got := strings.Split(ansi.Strip(o.View()), "\n")[0]; got != tt.want {
				t.Errorf("title %q, want %q", got, tt.want)
			}
		})
	}
}
