package ui

import (
	"time"

	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/screens"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
)

// This file holds the rules that keep a key from doing what the user did
// not mean: the full help's pages, the second x that confirms a cancel,
// the word that says why a key does nothing here, the grace before an
// approval takes keys, and where esc goes back to (docs/ui.md, "Keys").

// DefaultApprovalGrace is how long the keyboard must be quiet after a
// request appears before its keys answer it (config approval_grace): keys
// typed for something else (a message, a command) must not answer a
// question the user has not read.
const DefaultApprovalGrace = 425 * time.Millisecond

// keyFlow is the state of those rules.
type keyFlow struct {
	helpPage int // the full help's page shown

	// armID is the child a first x armed to cancel; the next key
	// either confirms (x again) or disarms.
	armID, armName string

	// passing: the status hint is a passing word the next key clears.
	passing bool

	// grace runs after a request appears (and again after every key
	// typed during it); graceID tags its tick so an older one is stale.
	// graceFor is Options.ApprovalGrace; 0 answers at once.
	grace    bool
	graceID  int
	graceFor time.Duration
	graceCmd tea.Cmd // the tick to start, taken by step
}

// graceMsg ends an approval's grace, unless a newer key restarted it.
type graceMsg struct{ id int }

// toggleHelp opens the full help, turns its page, or closes it after
// the last one.
func (m *Model) toggleHelp() {
	switch {
	case !m.fullHelp:
		m.fullHelp, m.kx.helpPage = true, 0
	case m.kx.helpPage < len(m.helpPages())-1:
		m.kx.helpPage++
	default:
		m.fullHelp, m.kx.helpPage = false, 0
	}
}

// say shows a passing word in the status bar; the next key clears it.
func (m *Model) say(s string) {
	m.status.SetHint(s)
	m.kx.passing = true
}

// keyFlowFirst runs before any other handling of k but ctrl+c: it clears
// a passing word, settles an armed cancel, and holds keys back during an
// approval's grace. done says k needs nothing more.
func (m *Model) keyFlowFirst(k tea.KeyMsg) (tea.Cmd, bool) {
	if m.kx.passing {
		m.kx.passing = false
		m.status.SetHint("")
	}
	if m.kx.armID != "" {
		id := m.kx.armID
		m.kx.armID, m.kx.armName = "", ""
		m.status.SetHint("")
		b := m.chosenChild()
		if keys.MatchesAny(k, m.keys.CancelChild) && b != nil && b.AgentID() == id {
			return m.cancelChild(b), true
		}
		if keys.MatchesAny(k, m.keys.ViewBack) {
			return nil, true // esc keeps it
		}
	}
	if m.kx.grace && m.focus == keys.FocusApproval && m.appr.block != nil {
		// A key in flight: the request waits until the typing stops.
		return m.restartGrace(), true
	}
	return nil, false
}

// armCancel is the first x: it asks for a second one.
func (m *Model) armCancel(b *transcript.SubagentBlock) {
	m.kx.armID, m.kx.armName = b.AgentID(), b.Name()
	verb := "cancel"
	if b.IsShell() {
		verb = "kill"
	}
	m.status.SetHint(keys.Name(m.keys.CancelChild) + " again to " + verb + " " + cells.OneLine(b.Name()) + " · " +
		keys.Name(m.keys.ViewBack) + " keeps it")
}

// startGrace starts the grace of a request just shown.
func (m *Model) startGrace() {
	if m.kx.graceFor <= 0 || m.appr.block == nil {
		return
	}
	m.kx.grace = true
	m.appr.block.SetSettling(true)
	m.kx.graceCmd = m.restartGrace()
}

// restartGrace starts the grace's clock again.
func (m *Model) restartGrace() tea.Cmd {
	m.kx.graceID++
	id := m.kx.graceID
	return tea.Tick(m.kx.graceFor, func(time.Time) tea.Msg { return graceMsg{id: id} })
}

// takeGraceCmd is the grace tick startGrace asked for, once.
func (m *Model) takeGraceCmd() tea.Cmd {
	c := m.kx.graceCmd
	m.kx.graceCmd = nil
	return c
}

// endGrace ends the grace when msg is its newest tick.
func (m *Model) endGrace(msg graceMsg) {
	if msg.id != m.kx.graceID || !m.kx.grace {
		return
	}
	m.kx.grace = false
	if m.appr.block != nil {
		m.appr.block.SetSettling(false)
	}
}

// explainChildKey says why a crew key does nothing on b now, so the key
// neither falls into the input nor vanishes; false when k is none of
// them.
func (m *Model) explainChildKey(k tea.KeyMsg, b *transcript.SubagentBlock) bool {
	name := cells.OneLine(b.Name())
	// "has ended (cancelled)": a cancelled child did not finish its work.
	ended := name + " has ended (" + b.StateName() + ")"
	why := ""
	switch {
	case keys.MatchesAny(k, m.keys.ChildPause):
		switch {
		case b.IsShell():
			why = "a background shell cannot be paused"
		case !b.Running():
			why = ended + ": nothing to pause"
		}
	case keys.MatchesAny(k, m.keys.ChildBackground):
		switch {
		case !b.Running():
			why = ended + ": nothing to move to the background"
		case b.Background():
			why = name + " already runs in the background"
		}
	case keys.MatchesAny(k, m.keys.CancelChild):
		if !b.Running() {
			why = ended + ": nothing to cancel"
		}
	case keys.MatchesAny(k, m.keys.ChildMessage):
		switch {
		case b.IsShell():
			why = "a background shell takes no messages"
		case m.engine == nil:
			why = "no engine to send a message through"
		}
	default:
		return false
	}
	if why == "" {
		return false
	}
	m.say(why)
	return true
}

// backTo names where esc goes back to from the current focus, for the
// help's "esc back to …".
func (m *Model) backTo() string {
	switch s := m.scr.(type) {
	case *screens.ChildView:
		switch {
		case s.BlockFocused():
			return "the view"
		case s.OpenedFrom() != nil && s.OpenedFrom() == screens.Screen(m.ov):
			return "the overview"
		case m.tr.IndexOf(s.Pane()) >= 0:
			return "the pane"
		}
	case *screens.CrewOverview:
		if from := s.From(); from != nil && m.tr.IndexOf(from) >= 0 {
			return "the pane"
		}
	case nil:
		if m.focus == keys.FocusTranscript && m.appr.block != nil {
			return "the request"
		}
	}
	return "the input"
}

// viewBarShown reports whether the view bar stands where the input does:
// the screen shown has the keys.
func (m *Model) viewBarShown() bool {
	return m.focus == keys.FocusScreen
}

// inputHeight is the height of the input, or of the view bar in its
// place.
func (m *Model) inputHeight() int {
	if m.viewBarShown() || m.play != nil {
		return 2 // the rule and the bar
	}
	return m.input.Height()
}
