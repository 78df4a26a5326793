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
)

func TestDetectProtocol(t *testing.T) {
	tests := map[string]struct {
		env   map[string]string
		proto string
		tmux  bool
	}{
		"plain xterm":          {map[string]string{"TERM": "xterm-256color"}, ProtoNone, false},
		"iTerm2":               {map[string]string{"TERM_PROGRAM": "iTerm.app"}, ProtoOSC9, false},
		"iTerm2 inside tmux":   {map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/x,1,0", "TERM_PROGRAM": "tmux", "LC_TERMINAL": "iTerm2"}, ProtoOSC9, true},
		"WezTerm":              {map[string]string{"TERM_PROGRAM": "WezTerm"}, ProtoOSC777, false},
		"ghostty":              {map[string]string{"TERM_PROGRAM": "ghostty"}, ProtoOSC777, false},
		"kitty":                {map[string]string{"TERM": "xterm-kitty"}, ProtoOSC99, false},
		"GNOME Terminal (VTE)": {map[string]string{"VTE_VERSION": "7200"}, ProtoOSC777, false},
		"foot":                 {map[string]string{"TERM": "foot"}, ProtoOSC777, false},
		"Windows Terminal":     {map[string]string{"WT_SESSION": "x"}, ProtoOSC9, false},
		"unknown in tmux":      {map[string]string{"TERM": "screen-256color", "TMUX": "/tmp/x"}, ProtoNone, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, tm := DetectProtocol(func(k string) string { return tc.env[k] })
			if p != tc.proto || tm != tc.tmux {
				t.Errorf("got %q tmux %v, want %q tmux %v", p, tm, tc.proto, tc.tmux)
			}
		})
	}
}

func TestNotifier(t *testing.T) {
	all := map[Moment]bool{MomentApproval: true, MomentBackground: true, MomentTurnEnd: true}
	tests := map[string]struct {
		n    *Notifier
		want string
	}{
		"bell only":        {&Notifier{Bell: true, Desktop: true, Moments: all}, "\a"},
		"osc 9":            {&Notifier{Bell: true, Desktop: true, Moments: all, Protocol: ProtoOSC9}, "\x1b]9;covey: hi, there]\a\a"},
		"osc 777":          {&Notifier{Desktop: true, Moments: all, Protocol: ProtoOSC777}, "\x1b]777;notify;covey;hi, there]\a"},
		"osc 99":           {&Notifier{Desktop: true, Moments: all, Protocol: ProtoOSC99}, "\x1b]99;;covey: hi, there]\x1b\\"},
		"tmux passthrough": {&Notifier{Desktop: true, Moments: all, Protocol: ProtoOSC99, Tmux: true}, "\x1bPtmux;\x1b\x1b]99;;covey: hi, there]\x1b\x1b\\\x1b\\"},
		"moment off":       {&Notifier{Bell: true, Moments: map[Moment]bool{MomentApproval: false}}, ""},
		"both ways off":    {&Notifier{Moments: all, Protocol: ProtoOSC9}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got strings.Builder
			var hooked []string
			n := tc.n
			n.Hook = func(kind, msg string) { hooked = append(hooked, kind+": "+msg) }
			n.setWriter(func(s string) { got.WriteString(s) })
			n.Notify(MomentApproval, "hi; there\x1b]")
			if got.String() != tc.want {
				t.Errorf("wrote %q, want %q", got.String(), tc.want)
			}
			if on := n.Moments[MomentApproval]; on != (len(hooked) == 1) {
				t.Errorf("hooks ran %v with the moment on %v", hooked, on)
			}
		})
	}
	var nilN *Notifier
	nilN.Notify(MomentApproval, "x") // a nil notifier does nothing
}

// TestNotifyMoments: the model calls the user back when an approval waits,
// when a background child finishes, and when a turn ends while the terminal
// is not focused, and not when it is.
func TestNotifyMoments(t *testing.T) {
	var rung []string
	n := &Notifier{Bell: true, Moments: map[Moment]bool{MomentApproval: true, MomentBackground: true, MomentTurnEnd: true}}
	n.setWriter(func(string) {})
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
