package notify

import (
	"strings"
	"testing"

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
			n.SetWriter(func(s string) { got.WriteString(s) })
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

func TestApprovalMessage(t *testing.T) {
	got := ApprovalMessage(permission.Request{Tool: toolname.Bash, Command: "make", Agent: "[Explore] scan"})
	if want := "[Explore] scan waits for your approval: bash make"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
