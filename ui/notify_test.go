package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/hooks"
	"covey/permission"
	"covey/tools/toolname"
	"covey/ui/notify"
)

// TestNotifyMoments: the model calls the user back when an approval waits,
// when a background child finishes, and when a turn ends while the terminal
// is not focused, and not when it is.
func TestNotifyMoments(t *testing.T) {
	var rung []string
	n := &notify.Notifier{Bell: true, Moments: map[notify.Moment]bool{notify.MomentApproval: true, notify.MomentBackground: true, notify.MomentTurnEnd: true}}
	n.SetWriter(func(string) {})
	n.Hook = func(kind, msg string) { rung = append(rung, kind) }
	m := newModel(t.Context(), Options{Notify: n})
	m.rt.route(agent.ChildStarted{Source: agent.Source{AgentID: "c1", Depth: 1, AgentType: "Explore", Description: "scan"}, Background: true})
	m.handleEvents([]agent.Event{agent.ChildFinished{Source: agent.Source{AgentID: "c1", Depth: 1, Description: "scan"}, Reason: agent.StopOK}})
	m.handleEvents([]agent.Event{agent.Done{Source: agent.Source{AgentID: agent.MainAgentID}, Reason: agent.StopOK}})
	mm, _ := m.Update(tea.BlurMsg{})
	m = mm.(Model)
	m.handleEvents([]agent.Event{agent.Done{Source: agent.Source{AgentID: agent.MainAgentID}, Reason: agent.StopOK}})
	p := &pendingApproval{req: permission.Request{Tool: toolname.Bash, Command: "make", Agent: "[Explore] scan"}, ctx: t.Context(), answer: make(chan permission.Verdict, 1), settled: make(chan struct{})}
	m.handleEvents([]agent.Event{approvalEvent{Source: agent.Source{AgentID: "c1"}, p: p}})
	want := "background_agent_done,idle_prompt,permission_prompt"
	if got := strings.Join(rung, ","); got != want {
		t.Errorf("moments %s, want %s", got, want)
	}
}

func TestHooksListing(t *testing.T) {
	got := hooksListing([]HookInfo{
		{Event: "PreToolUse", Matcher: "Bash", Command: "./guard.sh", Source: "~/.claude/settings.json", Timeout: "1m0s", Trusted: true},
		{Event: "PreToolUse", Command: "lint", Source: ".claude/settings.json", Timeout: "30s", Project: true},
		{Event: "Stop", Command: "notify-send done", Source: "agent reviewer", Timeout: "1m0s", Trusted: true},
	})
	for _, want := range []string{
		"  PreToolUse\n    Bash  ./guard.sh  (~/.claude/settings.json, 1m0s)",
		"    *  lint  (.claude/settings.json, 30s, not trusted: does not run)",
		"  Stop\n    *  notify-send done  (agent reviewer, 1m0s)",
		"/hooks trust",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("listing lacks %q:\n%s", want, got)
		}
	}
}

// TestBlockedPromptIsNotRetried: a prompt a UserPromptSubmit hook blocked
// ends its turn with the hook's reason and no retry offered: nothing was
// sent.
func TestBlockedPromptIsNotRetried(t *testing.T) {
	m := newModel(t.Context(), Options{})
	m.turn = &turn{id: 3, cancel: func() {}}
	m.handleTurnDone(turnDoneMsg{id: 3, err: fmt.Errorf("%w: no secrets", hooks.ErrPromptBlocked)})
	if m.lastFailed {
		t.Error("a blocked prompt offers a retry")
	}
	if v := m.tr.View(); !strings.Contains(v, "no secrets") {
		t.Errorf("the reason is not shown:\n%s", v)
	}
}
