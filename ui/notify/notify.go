// Package notify calls the user back through the terminal (a bell, a
// desktop notification) and the Notification hooks, for the moments the
// root model names.
package notify

import (
	"strings"
	"sync"

	"covey/internal/excerpt"
	"covey/permission"
)

// Moment is a moment the user is called back for.
type Moment int

// The moments.
const (
	// MomentApproval: an approval waits (the main agent's or a child's).
	MomentApproval Moment = iota
	// MomentBackground: a background child finished.
	MomentBackground
	// MomentTurnEnd: a turn ended while the terminal was not focused.
	MomentTurnEnd
)

// kind is the moment's notification_type, as Notification hooks read it
// (Claude Code's names where it has the moment).
func (m Moment) kind() string {
	switch m {
	case MomentApproval:
		return "permission_prompt"
	case MomentBackground:
		return "background_agent_done"
	}
	return "idle_prompt"
}

// Desktop notification protocols a terminal may understand.
const (
	// ProtoNone: the bell only.
	ProtoNone = ""
	// ProtoOSC9 is iTerm2's "ESC ] 9 ; text BEL" (also WezTerm, Ghostty,
	// Windows Terminal, ConEmu).
	ProtoOSC9 = "osc9"
	// ProtoOSC777 is "ESC ] 777 ; notify ; title ; text BEL" (VTE
	// terminals such as GNOME Terminal, foot, urxvt, WezTerm, Ghostty).
	ProtoOSC777 = "osc777"
	// ProtoOSC99 is kitty's "ESC ] 99 ; ; text ESC \".
	ProtoOSC99 = "osc99"
)

// DetectProtocol picks the desktop notification protocol of the terminal
// covey runs in from its environment (TERM, TERM_PROGRAM and the variables
// terminals set, which survive into tmux), and whether tmux sits between
// covey and that terminal. getenv is os.Getenv in production.
func DetectProtocol(getenv func(string) string) (proto string, tmux bool) {
	tmux = getenv("TMUX") != "" || strings.HasPrefix(getenv("TERM"), "tmux") || getenv("TERM_PROGRAM") == "tmux"
	prog := getenv("TERM_PROGRAM")
	term := getenv("TERM")
	switch {
	case prog == "iTerm.app" || getenv("LC_TERMINAL") == "iTerm2" || getenv("ITERM_SESSION_ID") != "":
		return ProtoOSC9, tmux
	case prog == "WezTerm" || getenv("WEZTERM_PANE") != "":
		return ProtoOSC777, tmux
	case prog == "ghostty" || getenv("GHOSTTY_RESOURCES_DIR") != "":
		return ProtoOSC777, tmux
	case strings.Contains(term, "kitty") || getenv("KITTY_WINDOW_ID") != "":
		return ProtoOSC99, tmux
	case getenv("WT_SESSION") != "" || getenv("ConEmuPID") != "":
		return ProtoOSC9, tmux
	case getenv("VTE_VERSION") != "" || strings.HasPrefix(term, "foot") || strings.HasPrefix(term, "rxvt-unicode"):
		return ProtoOSC777, tmux
	}
	return ProtoNone, tmux
}

// Notifier calls the user back through the terminal: a bell, and a desktop
// notification where the terminal understands one. It also fires the
// Notification hooks for the same moments. Safe for concurrent use; a nil
// Notifier does nothing.
type Notifier struct {
	// Bell and Desktop turn the two ways on; Moments says which moments
	// call the user back at all.
	Bell, Desktop bool
	Moments       map[Moment]bool
	// Protocol is the desktop protocol (ProtoOSC9, ...); Tmux wraps it in
	// tmux's passthrough (tmux 3.3+ needs set -g allow-passthrough on).
	Protocol string
	Tmux     bool
	// Hook runs the Notification hooks (kind, message); nil runs none.
	Hook func(kind, message string)

	mu    sync.Mutex
	write func(string) // the terminal; set by the UI once it owns it (SetWriter)
}

// SetWriter gives the notifier the terminal (the painter writes between
// frames, never inside one).
func (n *Notifier) SetWriter(w func(string)) {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.write = w
	n.mu.Unlock()
}

// Notify calls the user back for moment with message.
func (n *Notifier) Notify(moment Moment, message string) {
	if n == nil || !n.Moments[moment] {
		return
	}
	message = excerpt.Line(message)
	if n.Hook != nil {
		n.Hook(moment.kind(), message)
	}
	n.mu.Lock()
	w := n.write
	n.mu.Unlock()
	if w == nil {
		return
	}
	var b strings.Builder
	if n.Desktop {
		b.WriteString(n.desktopSeq(message))
	}
	if n.Bell {
		b.WriteString("\a")
	}
	if b.Len() > 0 {
		w(b.String())
	}
}

// desktopSeq is the notification's escape sequence; "" without a protocol.
func (n *Notifier) desktopSeq(message string) string {
	text := oscSafe(message)
	var seq string
	switch n.Protocol {
	case ProtoOSC9:
		seq = "\x1b]9;covey: " + text + "\a"
	case ProtoOSC777:
		seq = "\x1b]777;notify;covey;" + text + "\a"
	case ProtoOSC99:
		seq = "\x1b]99;;covey: " + text + "\x1b\\"
	default:
		return ""
	}
	if n.Tmux {
		// tmux's passthrough: the sequence with every ESC doubled, inside
		// a DCS addressed to tmux.
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// oscSafe drops what would end or break an OSC string: control characters
// and the separators OSC 777 reads.
func oscSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == ';' {
			if r == ';' {
				return ','
			}
			return -1
		}
		return r
	}, s)
}

// ApprovalMessage is the notification's text for a waiting approval.
func ApprovalMessage(req permission.Request) string {
	who := ""
	if req.Agent != "" {
		who = req.Agent + " "
	}
	var what string
	switch {
	case req.Question != nil:
		return who + "asks you: " + req.Question.Question
	case req.Tool == permission.ToolExitPlanMode:
		return who + "presents a plan for your approval"
	case req.Command != "":
		what = req.Tool + " " + req.Command
	case req.Path != "":
		what = req.Tool + " " + req.Path
	case req.URL != "":
		what = req.Tool + " " + req.URL
	default:
		what = req.Tool
	}
	return who + "waits for your approval: " + what
}
