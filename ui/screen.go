package ui

import (
	"covey/ui/keys"
	"covey/ui/screens"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
)

// This file holds what decides where a key goes: the one focus value
// (keys.Focus), and the screens that fill the area above the input in place of the
// conversation (the crew overview, a child's full-screen view, /mcp).

// chooser is a screen that chooses a child the crew keys act on (o, m, p,
// ctrl+b, x): the overview's selection, the child shown full-screen.
type chooser interface {
	Chosen() *transcript.SubagentBlock
}

// blockScreen is a screen that shows a transcript of blocks (a child's
// view): it takes the transcript's keys (scrolling, tab to a block, esc
// back from one).
type blockScreen interface {
	HasFocusable() bool
	BlockFocused() bool
}

// screenKeyState describes the screen shown for the KeyMap.
func (m *Model) screenKeyState() keys.Screen {
	if m.scr == nil {
		return keys.Screen{}
	}
	s := keys.Screen{Open: true}
	if b, ok := m.scr.(blockScreen); ok {
		s.Blocks, s.Focusable, s.Focused = true, b.HasFocusable(), b.BlockFocused()
	}
	return s
}

// openScreen shows s in place of the conversation and gives it the keys,
// unless a message to a child is being typed: the input keeps them.
func (m *Model) openScreen(s screens.Screen) {
	m.scr = s
	m.focus = keys.FocusScreen
	if m.addr != nil {
		m.focus = keys.FocusInput
	}
	m.tr.Blur()
	m.input.Blur()
}

// runAction does what a screen's key asked.
func (m *Model) runAction(a screens.Action) tea.Cmd {
	switch a := a.(type) {
	case screens.Back:
		m.closeScreen()
	case screens.OpenChild:
		return m.openChild(a.Child)
	case screens.MCPChanged:
		m.refreshMCP()
	case screens.RewindTo:
		return m.runRewind(a)
	}
	return nil
}

// updateScreen hands msg to the screen shown, if any, and runs what it
// asks.
func (m *Model) updateScreen(msg tea.Msg) tea.Cmd {
	if m.scr == nil {
		return nil
	}
	a, cmd := m.scr.Update(msg)
	return tea.Batch(cmd, m.runAction(a))
}

// focusBack gives the keys back after the request or the addressed input
// had them: to the screen shown, unless a message to a child is being
// typed there, else to the input.
func (m *Model) focusBack() {
	if m.scr != nil && m.addr == nil {
		m.focus = keys.FocusScreen
		m.input.Blur()
		return
	}
	m.focus = keys.FocusInput
	m.input.Focus()
}

// shownChild is the child's full-screen view when it is the screen
// shown, else nil.
func (m *Model) shownChild() *screens.ChildView {
	cv, _ := m.scr.(*screens.ChildView)
	return cv
}
