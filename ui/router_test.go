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
)

// describe names each block: U user, A answer, T:<call> tool, P:<agent> pane,
// N notice.
func describe(tr *transcript.Transcript) string {
	var parts []string
	for _, b := range tr.Blocks() {
		switch b := b.(type) {
		case *transcript.UserBlock:
			parts = append(parts, "U")
		case *transcript.AssistantBlock:
			parts = append(parts, "A")
		case *transcript.ToolBlock:
			parts = append(parts, "T:"+b.CallID())
		case *transcript.SubagentBlock:
			parts = append(parts, "P:"+b.AgentID())
		case *transcript.NoticeBlock:
			parts = append(parts, "N")
		default:
			parts = append(parts, fmt.Sprintf("%T", b))
		}
	}
	return strings.Join(parts, " ")
}

func nested(id, parent string) agent.Source {
	return agent.Source{AgentID: id, ParentCallID: parent, AgentType: "Explore", Description: id, Depth: 2}
}

func TestRouterPlacement(t *testing.T) {
	m := mainSrc()
	tests := []struct {
		name   string
		events []agent.Event
		want   string
	}{
		{
			name: "text, then a tool call ends the answer and text starts a new one",
			events: []agent.Event{
				agent.TextDelta{Source: m, Text: "a"}, agent.TextDelta{Source: m, Text: "b"},
				toolStarted(m, "t1", toolname.ReadFile, "x.go"),
				agent.TextDelta{Source: m, Text: "c"},
			},
			want: "A T:t1 A",
		},
		{
			name: "panes of one batch sit together under their task call, in start order",
			events: []agent.Event{
				toolStarted(m, "task1", toolname.Task, ""),
				toolStarted(m, "r1", toolname.ReadFile, "y.go"),
				agent.ChildStarted{Source: childSrc("a", "task1", "Explore", "one")},
				agent.ChildStarted{Source: childSrc("b", "task1", "Explore", "two")},
				agent.ChildStarted{Source: childSrc("c", "task1", "Explore", "three")},
			},
			want: "T:task1 P:a P:b P:c T:r1",
		},
		{
			name: "two batches each stay under their own call",
			events: []agent.Event{
				toolStarted(m, "task1", toolname.Task, ""),
				toolStarted(m, "task2", toolname.Task, ""),
				agent.ChildStarted{Source: childSrc("a", "task1", "Explore", "one")},
				agent.ChildStarted{Source: childSrc("x", "task2", "Explore", "other")},
				agent.ChildStarted{Source: childSrc("b", "task1", "Explore", "two")},
			},
			want: "T:task1 P:a P:b T:task2 P:x",
		},
		{
			name: "a nested child sits under the pane whose call spawned it",
			events: []agent.Event{
				toolStarted(m, "task1", toolname.Task, ""),
				agent.ChildStarted{Source: childSrc("a", "task1", "Explore", "one")},
				agent.ChildStarted{Source: childSrc("b", "task1", "Explore", "two")},
				agent.ToolStarted{Source: childSrc("a", "task1", "Explore", "one"), CallID: "inner", Name: toolname.Task},
				agent.ChildStarted{Source: nested("a1", "inner")},
				agent.ChildStarted{Source: childSrc("c", "task1", "Explore", "three")},
			},
			want: "T:task1 P:a P:a1 P:b P:c",
		},
		{
			name: "a child of an unknown call goes last, unknown children are ignored",
			events: []agent.Event{
				agent.TextDelta{Source: m, Text: "a"},
				agent.ChildStarted{Source: childSrc("z", "nowhere", "Explore", "lost")},
				agent.TextDelta{Source: childSrc("ghost", "nowhere", "Explore", "?"), Text: "boo"},
			},
			want: "A P:z",
		},
		{
			name: "errors and retries become notices",
			events: []agent.Event{
				agent.Retrying{Source: m, Attempt: 1, Reason: "429"},
				agent.ErrorEvent{Source: m, Message: "boom"},
				agent.Done{Source: m, Reason: agent.StopError},
			},
			want: "N N",
		},
		{
			name: "a notice (the session file cannot be written) is shown at once",
			events: []agent.Event{
				agent.TextDelta{Source: m, Text: "a"},
				agent.Notice{Source: m, Level: agent.NoticeWarning, Message: "the session file cannot be written"},
			},
			want: "A N",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := theme.New(theme.ModeDark, true, false)
			tr := transcript.New(transcript.RenderContext{Styles: &th.Styles})
			tr.SetSize(80, 20)
			r := newRouter(tr)
			for _, ev := range tt.events {
				r.route(ev)
			}
			tr.Sync()
			if got := describe(tr); got != tt.want {
				t.Errorf("blocks = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRouterDoneFinishesTheAnswer(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	tr := transcript.New(transcript.RenderContext{Styles: &th.Styles})
	r := newRouter(tr)
	r.route(agent.TextDelta{Source: mainSrc(), Text: "answer"})
	eff := r.route(agent.Done{Source: mainSrc(), Reason: agent.StopOK})
	if !eff.done {
		t.Error("Done did not report the end of the run")
	}
	r.route(agent.TextDelta{Source: mainSrc(), Text: "next turn"})
	if got := describe(tr); got != "A A" {
		t.Errorf("blocks = %q: text after Done must start a new answer", got)
	}
}

func TestRouterCosts(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	tr := transcript.New(transcript.RenderContext{Styles: &th.Styles})
	r := newRouter(tr)
	a, b := childSrc("a", "t", "Explore", "one"), childSrc("b", "t", "Plan", "two")
	for _, ev := range []agent.Event{
		toolStarted(mainSrc(), "t", toolname.Task, ""),
		agent.ChildStarted{Source: a}, agent.ChildStarted{Source: b},
		agent.UsageReported{Source: a, Usage: agent.Usage{InputTokens: 10, OutputTokens: 1}},
		agent.UsageReported{Source: b, Usage: agent.Usage{InputTokens: 20, OutputTokens: 2}},
		agent.UsageReported{Source: a, Usage: agent.Usage{InputTokens: 30, OutputTokens: 3}},
		agent.UsageReported{Source: mainSrc(), Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}},
	} {
		r.route(ev)
	}
	costs := r.costs()
	if len(costs) != 2 || costs[0].Usage.InputTokens != 40 || costs[1].Usage.OutputTokens != 2 || costs[1].Type != "Plan" {
		t.Errorf("costs = %+v", costs)
	}
	if r.usage.InputTokens != 160 || r.usage.OutputTokens != 16 {
		t.Errorf("session usage = %+v, want 160/16", r.usage)
	}
}

// TestRouterParentOfBusyChildIsNotStalled: a lead that waits on its own
// child while the child works is not stalled; once the child goes quiet
// too, both are.
func TestRouterParentOfBusyChildIsNotStalled(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	tr := transcript.New(transcript.RenderContext{Styles: &th.Styles})
	r := newRouter(tr)
	start := fixedNow
	r.now = start
	lead := childSrc("lead", "t", "general-purpose", "lead")
	r.route(toolStarted(mainSrc(), "t", toolname.Task, ""))
	r.route(agent.ChildStarted{Source: lead})
	r.route(toolStarted(lead, "t2", toolname.Task, ""))
	r.route(agent.ChildStarted{Source: nested("worker", "t2")})
	for i := 1; i <= 4; i++ {
		r.now = start.Add(time.Duration(i) * 20 * time.Second)
		r.route(toolStarted(nested("worker", "t2"), fmt.Sprintf("w%d", i), toolname.Grep, "x"))
	}
	leadBlock, worker := r.children["lead"], r.children["worker"]
	if leadBlock.Stalled(r.now) || worker.Stalled(r.now) {
		t.Errorf("stalled while the worker works: lead %v, worker %v", leadBlock.Stalled(r.now), worker.Stalled(r.now))
	}
	if later := r.now.Add(transcript.StallAfter); !leadBlock.Stalled(later) || !worker.Stalled(later) {
		t.Errorf("not stalled after %v of quiet: lead %v, worker %v", transcript.StallAfter, leadBlock.Stalled(later), worker.Stalled(later))
	}
}
