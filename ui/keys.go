package ui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every key the TUI reacts to. Bindings that do not apply in the
// current state are disabled (SetEnabled) so the help line shows only what
// works right now.
type KeyMap struct {
	// Input.
	Send        key.Binding
	Newline     key.Binding
	HistoryPrev key.Binding
	HistoryNext key.Binding

	// Completion popup.
	Complete     key.Binding
	Accept       key.Binding
	Dismiss      key.Binding
	CompletePrev key.Binding
	CompleteNext key.Binding

	// Transcript focus.
	FocusNext   key.Binding
	FocusPrev   key.Binding
	Toggle      key.Binding
	ToggleAll   key.Binding
	CancelChild key.Binding
	Back        key.Binding
	LineUp      key.Binding
	LineDown    key.Binding

	// Scrolling (any focus).
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding

	// Global.
	Cancel key.Binding
	Quit   key.Binding
	Help   key.Binding
}

// DefaultKeyMap returns covey's default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Send:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:     key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter/ctrl+j", "newline")),
		HistoryPrev: key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous message")),
		HistoryNext: key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next message")),

		Complete:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		Accept:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run command")),
		Dismiss:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close menu")),
		CompletePrev: key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "previous command")),
		CompleteNext: key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "next command")),

		FocusNext:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus next block")),
		FocusPrev:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "focus previous block")),
		Toggle:      key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter/space", "expand/collapse")),
		ToggleAll:   key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "expand/collapse all")),
		CancelChild: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel subagent")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to input")),
		LineUp:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		LineDown:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),

		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "bottom")),

		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel turn")),
		Quit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "clear/quit")),
		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
	}
}

// ShortHelp implements help.KeyMap: the keys that matter most right now.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{
		k.Send, k.Complete, k.Accept, k.Dismiss, k.Toggle, k.CancelChild, k.Back, k.FocusNext,
		k.ToggleAll, k.Cancel, k.Quit, k.Help,
	}
}

// FullHelp implements help.KeyMap: every enabled key, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext, k.Complete, k.Accept, k.Dismiss, k.CompletePrev, k.CompleteNext},
		{k.FocusNext, k.FocusPrev, k.Toggle, k.ToggleAll, k.CancelChild, k.Back},
		{k.LineUp, k.LineDown, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Cancel, k.Quit, k.Help},
	}
}

// keyState is what decides which bindings apply.
type keyState struct {
	transcriptFocus bool // focus is on a block, not the input
	inputEmpty      bool
	completing      bool // the command popup is open
	running         bool // a turn is running
	childFocused    bool // the focused block is a running subagent pane
	historyAtEdge   bool // the input has history to walk
}

// apply enables exactly the bindings that make sense in s.
func (k *KeyMap) apply(s keyState) {
	inInput := !s.transcriptFocus
	k.Send.SetEnabled(inInput && !s.completing)
	k.Newline.SetEnabled(inInput)
	k.HistoryPrev.SetEnabled(inInput && !s.completing && s.historyAtEdge)
	k.HistoryNext.SetEnabled(inInput && !s.completing && s.historyAtEdge)

	k.Complete.SetEnabled(inInput && s.completing)
	k.Accept.SetEnabled(inInput && s.completing)
	k.Dismiss.SetEnabled(inInput && s.completing)
	k.CompletePrev.SetEnabled(inInput && s.completing)
	k.CompleteNext.SetEnabled(inInput && s.completing)

	k.FocusNext.SetEnabled(!s.completing)
	k.FocusPrev.SetEnabled(!s.completing)
	k.Toggle.SetEnabled(s.transcriptFocus)
	k.CancelChild.SetEnabled(s.transcriptFocus && s.childFocused)
	k.Back.SetEnabled(s.transcriptFocus)
	k.LineUp.SetEnabled(s.transcriptFocus)
	k.LineDown.SetEnabled(s.transcriptFocus)

	k.Top.SetEnabled(s.transcriptFocus || s.inputEmpty)
	k.Bottom.SetEnabled(s.transcriptFocus || s.inputEmpty)

	k.Cancel.SetEnabled(inInput && s.running && !s.completing)
	k.Help.SetEnabled(s.transcriptFocus || s.inputEmpty)
}
