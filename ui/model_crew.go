package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/ui/approval"
	"covey/ui/keys"
	"covey/ui/screens"
	"covey/ui/transcript"
)

// This file holds the root model's crew controls: the screens beside the
// conversation (the crew overview and a child's full-screen view), the
// keys that act on a child (open, message, pause, background, cancel), the
// input addressed to a child, and the crew commands (/crew, /diff, /cost).

// address is the child the input's next message goes to. It is the
// input's target, not a focus: the input has the keys (keys.FocusInput), and
// a waiting request may take them for a while and give them back.
type address struct {
	agentID, name string
	draft         string // what the input held before, given back on esc
}

// childSentMsg reports the outcome of a message sent to a child.
type childSentMsg struct {
	agentID, name, text string
	err                 error
}

// childPausedMsg reports the outcome of pausing or resuming a child.
type childPausedMsg struct {
	name   string
	paused bool
	ok     bool
}

// childBackgroundedMsg reports the outcome of moving a child to the
// background.
type childBackgroundedMsg struct {
	name string
	ok   bool
}

// chosenChild is the child the crew keys act on: the focused pane, the
// overview's selection, or the child shown full-screen (or a pane focused
// in its view).
func (m *Model) chosenChild() *transcript.SubagentBlock {
	if m.scr != nil {
		if c, ok := m.scr.(chooser); ok {
			return c.Chosen()
		}
		return nil
	}
	if m.focus != keys.FocusTranscript {
		return nil
	}
	b, _ := m.tr.Focused().(*transcript.SubagentBlock)
	return b
}

// childKeyState is what the chosen child allows, for the KeyMap.
func (m *Model) childKeyState() keys.Child {
	b := m.chosenChild()
	if b == nil {
		return keys.Child{}
	}
	return keys.Child{
		Any:        true,
		Running:    b.Running(),
		Foreground: b.Running() && !b.Background(),
		CanMessage: m.engine != nil && !b.IsShell(),
		Shell:      b.IsShell(),
	}
}

// handleChildKey runs a crew key on the chosen child; handled is false
// when k is none of them.
func (m *Model) handleChildKey(k tea.KeyMsg) (tea.Cmd, bool) {
	b := m.chosenChild()
	if b == nil {
		return nil, false
	}
	switch {
	case key.Matches(k, m.keys.ChildOpen):
		return m.openChild(b), true
	case key.Matches(k, m.keys.ChildMessage):
		m.startAddress(b)
		return nil, true
	case key.Matches(k, m.keys.ChildPause):
		return m.pauseChild(b), true
	case key.Matches(k, m.keys.ChildBackground):
		return m.backgroundChild(b), true
	case key.Matches(k, m.keys.CancelChild):
		m.armCancel(b) // a second x cancels (keyFlowFirst)
		return nil, true
	}
	return nil, m.explainChildKey(k, b)
}

// cancelChild cancels one running child; its siblings go on.
func (m *Model) cancelChild(b *transcript.SubagentBlock) tea.Cmd {
	if m.engine == nil || !b.Running() {
		return nil
	}
	id, engine := b.AgentID(), m.engine
	return func() tea.Msg { return childCancelledMsg{agentID: id, ok: engine.CancelChild(id)} }
}

// pauseChild pauses a running child, or resumes a paused one.
func (m *Model) pauseChild(b *transcript.SubagentBlock) tea.Cmd {
	if m.engine == nil || !b.Running() {
		return nil
	}
	id, name, engine, paused := b.AgentID(), b.Name(), m.engine, !b.Paused()
	return func() tea.Msg {
		return childPausedMsg{name: name, paused: paused, ok: engine.PauseChild(id, paused)}
	}
}

// backgroundChild moves a running foreground child to the background.
func (m *Model) backgroundChild(b *transcript.SubagentBlock) tea.Cmd {
	if m.engine == nil || !b.Running() || b.Background() {
		return nil
	}
	id, name, engine := b.AgentID(), b.Name(), m.engine
	return func() tea.Msg { return childBackgroundedMsg{name: name, ok: engine.BackgroundChild(id)} }
}

// startAddress points the input at b: the next message goes to it.
func (m *Model) startAddress(b *transcript.SubagentBlock) {
	if m.engine == nil {
		return
	}
	draft := m.input.Value()
	if m.addr != nil {
		draft = m.addr.draft
	}
	m.addr = &address{agentID: b.AgentID(), name: b.Name(), draft: draft}
	m.input.Reset()
	m.input.SetTarget(b.Name())
	m.comp.Filter("")
	if m.scr == nil {
		m.tr.Blur()
	}
	m.focus = keys.FocusInput
	m.input.Focus()
}

// showSent shows a message sent to a child as queued, at once, in its
// pane and in its full-screen view when open (sent false takes it back:
// the send failed). Its ChildMessage, when it enters the child's history,
// shows it read.
func (m *Model) showSent(agentID, text string, sent bool) {
	pane := m.rt.children[agentID]
	if pane == nil {
		return
	}
	if sent {
		pane.MarkSent(text)
	} else {
		pane.UnmarkSent(text)
	}
	m.tr.Touch(pane)
	if cv := m.shownChild(); cv != nil {
		cv.ShowSentTo(agentID, text, sent)
	}
}

// endAddress points the input back at the main agent, giving back the
// draft it held before when restore is set.
func (m *Model) endAddress(restore bool) {
	if m.addr == nil {
		return
	}
	draft := m.addr.draft
	m.addr = nil
	m.input.SetTarget("")
	m.input.Reset()
	if restore {
		m.input.SetValue(draft)
	}
	if m.scr != nil {
		m.focusBack() // the screen takes the keys again
	}
}

// handleAddressKey handles the input's keys while it is addressed to a
// child: Enter sends to the child, esc stops addressing.
func (m *Model) handleAddressKey(k tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(k, m.keys.AddressCancel):
		m.endAddress(true)
		return nil, true
	case key.Matches(k, m.keys.Send):
		text := strings.TrimSpace(m.input.Value())
		if text == "" {
			return nil, true
		}
		a := *m.addr
		m.input.Submit()
		m.endAddress(true)
		m.showSent(a.agentID, text, true)
		engine, ctx := m.engine, m.ctx
		return func() tea.Msg {
			return childSentMsg{agentID: a.agentID, name: a.name, text: text, err: engine.SendToChild(ctx, a.agentID, text)}
		}, true
	}
	return nil, false
}

// openChild shows b's whole transcript full-screen (a shell's: its
// command and whole output); esc comes back here.
func (m *Model) openChild(b *transcript.SubagentBlock) tea.Cmd {
	back := m.scr // the overview, or nil: the conversation
	if cv := m.shownChild(); cv != nil {
		back = cv.OpenedFrom()
	}
	m.openScreen(screens.NewChildView(b, m.rt.history(b), m.tr.Base(), m.keys, back,
		func(tr *transcript.Transcript, files *transcript.FilesBlock) screens.Router {
			rt := newRouter(tr)
			rt.root, rt.cost, rt.mainModel = b.AgentID(), m.cost, b.Model()
			rt.trailer = files
			return rt
		}))
	if b.IsShell() {
		return m.fetchShellOutput(b.AgentID())
	}
	return nil
}

// openCrew shows the crew overview, with the chosen child selected;
// opened from the conversation, it remembers the focused pane for esc.
func (m *Model) openCrew() {
	chosen := m.chosenChild()
	if m.scr == nil {
		var from transcript.Block
		if m.focus == keys.FocusTranscript {
			from = m.tr.Focused()
		}
		m.ov.SetFrom(from)
	}
	m.showCrew(chosen)
}

// showCrew shows the crew overview with sel (when not nil) selected.
func (m *Model) showCrew(sel *transcript.SubagentBlock) {
	m.openScreen(m.ov)
	m.ov.SetRows(m.rt.tree(), m.clock(), m.cost != nil)
	if sel != nil {
		m.ov.Select(sel)
	}
}

// closeScreen goes back from the screen shown to where the user was: a
// child's view to the overview or the pane it was opened from, the
// overview to the pane that had the focus, anything else to the input.
func (m *Model) closeScreen() {
	s := m.scr
	m.scr = nil
	switch s := s.(type) {
	case *screens.ChildView:
		pane := s.Pane()
		if s.OpenedFrom() != nil && s.OpenedFrom() == screens.Screen(m.ov) {
			m.showCrew(pane)
			return
		}
		if m.tr.IndexOf(pane) >= 0 {
			m.focusBlock(pane)
			return
		}
	case *screens.CrewOverview:
		if from := s.TakeFrom(); from != nil && m.tr.IndexOf(from) >= 0 {
			m.focusBlock(from)
			return
		}
	}
	m.focusInput()
}

// focusBlock gives the keys to b, a block of the conversation.
func (m *Model) focusBlock(b transcript.Block) {
	m.focus = keys.FocusTranscript
	m.input.Blur()
	m.tr.SetFocus(b)
}

// viewApproval is the waiting request when it comes from the child shown
// full-screen or one of its children, else nil.
func (m *Model) viewApproval() *approval.Block {
	cv := m.shownChild()
	if cv == nil || m.appr.cur == nil || m.appr.block == nil {
		return nil
	}
	p, ok := m.rt.children[m.appr.cur.req.AgentID]
	if !ok || !m.rt.within(p, cv.Pane()) {
		return nil
	}
	return m.appr.block
}

// routeToView hands a child's event to the open child's view when it
// belongs there.
func (m *Model) routeToView(ev agent.Event) {
	cv := m.shownChild()
	if cv == nil || !ev.From().IsChild() {
		return
	}
	if p, ok := m.rt.children[ev.From().AgentID]; ok && m.rt.within(p, cv.Pane()) {
		cv.Route(ev, m.rt.now)
	}
}

// updateCrew handles the outcomes of the crew commands.
func (m *Model) updateCrew(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case childSentMsg:
		if msg.err != nil {
			m.showSent(msg.agentID, msg.text, false)
			m.notice(transcript.NoticeError, fmt.Sprintf("message to %s: %v", msg.name, msg.err))
		}
	case childPausedMsg:
		if !msg.ok {
			m.notice(transcript.NoticeWarning, "subagent "+msg.name+" was not running")
		}
	case childBackgroundedMsg:
		if !msg.ok {
			m.notice(transcript.NoticeWarning, "subagent "+msg.name+" was not running in the foreground")
		}
	case childStartedByUserMsg:
		if msg.err != nil {
			m.notice(transcript.NoticeError, fmt.Sprintf("@%s: %v", msg.typ, msg.err))
		}
	case shellOutputMsg:
		m.showShellOutput(msg)
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) cmdCrew(string) tea.Cmd {
	m.openCrew()
	return nil
}

func (m *Model) cmdDiff(arg string) tea.Cmd {
	if arg == "" {
		// The whole session: the main agent's and every child's changes.
		m.tr.Append(transcript.NewSessionFiles(m.tr.Blocks(), m.rt.tree(), "Files changed in this session"))
		m.tr.Bottom()
		return nil
	}
	b := m.rt.find(arg)
	if b == nil {
		m.notice(transcript.NoticeError, "no subagent named "+arg+"; "+keys.Name(m.keys.Crew)+" lists them")
		return nil
	}
	m.tr.Append(transcript.NewFilesSnapshot(b, "Files changed by "+b.Name()))
	m.tr.Bottom()
	return nil
}

// cancelBackgroundTurn cancels the main agent's turn a background
// child's result started (the UI did not start it, so it holds no context
// of it); nil when there is none.
func (m *Model) cancelBackgroundTurn() tea.Cmd {
	if m.turn != nil || !m.bgTurn || m.engine == nil {
		return nil
	}
	engine := m.engine
	m.status.SetNote("cancelling…")
	return func() tea.Msg {
		engine.CancelTurn()
		return nil
	}
}
