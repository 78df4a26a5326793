package ui

import (
	"strings"
	"time"

	"covey/ui/keys"
	"covey/ui/screens"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// This file holds the root model's key and mouse handling: which part of
// the screen a key goes to, and what it does there.

// handleMouse scrolls the transcript with the wheel.
func (m *Model) handleMouse(msg tea.MouseMsg) {
	if msg.Action != tea.MouseActionPress {
		return
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.tr.ScrollBy(-3)
	case tea.MouseButtonWheelDown:
		m.tr.ScrollBy(3)
	}
}

// handleKey routes a key: global keys first, then to where the focus is.
func (m *Model) handleKey(k tea.KeyMsg) tea.Cmd {
	if m.play != nil {
		if cmd, done := m.handleReplayKey(k); done {
			return cmd
		}
	}
	if key.Matches(k, m.keys.Quit) {
		return m.ctrlC()
	}
	// Any other key means the user is not leaving.
	m.disarmQuit()
	if !key.Matches(k, m.keys.Rewind) {
		m.disarmRewind()
	}
	if cmd, done := m.keyFlowFirst(k); done {
		return cmd
	}
	if m.focus == keys.FocusApproval {
		if cmd, handled := m.handleApprovalKey(k); handled {
			return cmd
		}
	}
	if key.Matches(k, m.keys.Crew) {
		if m.scr != nil && m.scr == screens.Screen(m.ov) {
			m.closeScreen()
		} else {
			m.openCrew()
		}
		return nil
	}
	switch {
	case m.focus == keys.FocusScreen:
		return m.handleScreenKey(k)
	case m.focus == keys.FocusInput && m.addr != nil:
		if cmd, ok := m.handleAddressKey(k); ok {
			return cmd
		}
		if m.scr != nil {
			return m.handleInputKey(k)
		}
	}
	return m.handleMainKey(k)
}

// handleScreenKey handles a key while the screen shown has the focus:
// the few global keys, a crew key on the child it chooses, then the
// screen's own.
func (m *Model) handleScreenKey(k tea.KeyMsg) tea.Cmd {
	if m.handleEverywhereKey(k) {
		return nil
	}
	if key.Matches(k, m.keys.FocusApproval) {
		m.focusApproval()
		return nil
	}
	if cmd, ok := m.handleChildKey(k); ok {
		return cmd
	}
	return m.updateScreen(k)
}

// handleMainKey handles a key on the conversation: the keys that work
// from the input, a block and the request alike, then the focused one's.
func (m *Model) handleMainKey(k tea.KeyMsg) tea.Cmd {
	if m.handleEverywhereKey(k) {
		return nil
	}
	switch {
	case key.Matches(k, m.keys.Retry):
		return m.retry()
	case key.Matches(k, m.keys.ToggleAll):
		m.tr.SetAllExpanded(!m.anyExpanded())
		return nil
	case key.Matches(k, m.keys.PageUp):
		m.tr.PageUp()
		return nil
	case key.Matches(k, m.keys.PageDown):
		m.tr.PageDown()
		return nil
	case key.Matches(k, m.keys.Top):
		m.tr.Top()
		return nil
	case key.Matches(k, m.keys.Bottom):
		m.tr.Bottom()
		return nil
	}
	switch m.focus {
	case keys.FocusApproval:
		return nil // the approval's keys only: typing must not reach the input
	case keys.FocusTranscript:
		return m.handleTranscriptKey(k)
	}
	return m.handleInputKey(k)
}

// handleEverywhereKey runs the keys that work wherever the focus is
// (but on a request, which answers or lets them through first): the
// permission mode and the help. False when k is neither.
func (m *Model) handleEverywhereKey(k tea.KeyMsg) bool {
	switch {
	case key.Matches(k, m.keys.CycleMode):
		m.cycleMode()
	case key.Matches(k, m.keys.Help):
		m.toggleHelp()
	default:
		return false
	}
	return true
}

// ctrlC interrupts a running turn first (the draft stays), as esc does;
// then it clears a draft; on an empty input it asks for a second press,
// which quits if it comes within quitWindow.
func (m *Model) ctrlC() tea.Cmd {
	if m.turn != nil && !m.turn.cancelling {
		m.disarmQuit()
		m.cancelTurn()
		return nil
	}
	if m.input.Value() != "" {
		m.input.Reset()
		m.comp.Filter("")
		m.disarmQuit()
		return nil
	}
	if m.quitArmed {
		return m.quit()
	}
	m.quitArmed = true
	m.quitID++
	m.status.SetHint("press " + m.keys.Quit.Help().Key + " again to quit")
	id := m.quitID
	return tea.Tick(m.quitAfter, func(time.Time) tea.Msg { return quitExpiredMsg{id: id} })
}

// disarmQuit ends the window of a second ctrl+c.
func (m *Model) disarmQuit() {
	if m.quitArmed {
		m.quitArmed = false
		m.status.SetHint("")
	}
}

func (m *Model) anyExpanded() bool {
	for i := range m.tr.Len() {
		if b := m.tr.At(i); b.Focusable() && b.Expanded() {
			return true
		}
	}
	return false
}

func (m *Model) handleInputKey(k tea.KeyMsg) tea.Cmd {
	if m.comp.Open() {
		switch {
		case key.Matches(k, m.keys.CompletePrev), key.Matches(k, m.keys.CompleteNext):
			var cmd tea.Cmd
			m.comp, cmd = m.comp.Update(k)
			return cmd
		case key.Matches(k, m.keys.Dismiss):
			m.comp.Close()
			return nil
		case key.Matches(k, m.keys.Complete), key.Matches(k, m.keys.Accept):
			full, sel := m.comp.Complete(m.input.Value())
			m.input.SetValue(full)
			m.comp.Filter(full)
			// Tab only completes, and so does Enter on a path or on a
			// command that needs an argument; Enter runs any other
			// command (one whose argument is optional, [like this], too)
			// at once.
			if key.Matches(k, m.keys.Complete) || sel.Path || (sel.Args != "" && !strings.HasPrefix(sel.Args, "[")) {
				return nil
			}
			return m.sendInput()
		}
	}
	switch {
	case key.Matches(k, m.keys.FocusApproval):
		m.focusApproval()
		return nil
	case key.Matches(k, m.keys.Rewind) && m.input.Value() == "":
		return m.escRewind()
	case key.Matches(k, m.keys.PasteClipboard):
		return pasteClipboard()
	case key.Matches(k, m.keys.Cancel):
		if m.turn == nil {
			return m.cancelBackgroundTurn()
		}
		m.cancelTurn()
		return nil
	case key.Matches(k, m.keys.Send):
		return m.sendInput()
	case key.Matches(k, m.keys.FocusNext), key.Matches(k, m.keys.FocusPrev):
		if m.tr.MoveFocus(-1) {
			m.focus = keys.FocusTranscript
			m.input.Blur()
		}
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.comp.Filter(m.input.Value())
	return tea.Batch(cmd, m.listFilesIfWanted())
}

// sendInput takes the input's text and submits it.
func (m *Model) sendInput() tea.Cmd {
	text := m.input.Submit()
	m.comp.Filter("")
	if text == "" {
		return nil
	}
	return m.submit(text)
}

func (m *Model) handleTranscriptKey(k tea.KeyMsg) tea.Cmd {
	if cmd, ok := m.handleChildKey(k); ok {
		return cmd
	}
	switch {
	case key.Matches(k, m.keys.Back):
		if m.appr.block != nil {
			m.focusApproval()
			return nil
		}
		m.focusInput()
	case key.Matches(k, m.keys.FocusNext):
		m.tr.MoveFocus(1)
	case key.Matches(k, m.keys.FocusPrev):
		m.tr.MoveFocus(-1)
	case key.Matches(k, m.keys.Toggle):
		m.tr.Toggle()
	case key.Matches(k, m.keys.LineUp):
		m.tr.ScrollBy(-1)
	case key.Matches(k, m.keys.LineDown):
		m.tr.ScrollBy(1)
	case k.Type == tea.KeyRunes && !k.Alt:
		// Typing goes to the input, never to the transcript.
		m.focusInput()
		return m.handleInputKey(k)
	}
	return nil
}

func (m *Model) focusInput() {
	m.focus = keys.FocusInput
	m.tr.Blur()
	m.input.Focus()
}
