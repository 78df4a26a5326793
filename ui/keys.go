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
	// ExpandPaste puts a collapsed paste's text into the input.
	ExpandPaste key.Binding

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

	// Approval (while a request waits and has the keyboard).
	ApproveYes      key.Binding
	ApproveSession  key.Binding
	ApproveNo       key.Binding
	ApproveFeedback key.Binding
	ApproveEdit     key.Binding
	ApproveLayout   key.Binding
	ApproveUp       key.Binding
	ApproveDown     key.Binding
	ApprovePageUp   key.Binding
	ApprovePageDown key.Binding
	// A diff wider than the screen scrolls sideways.
	ApproveLeft    key.Binding
	ApproveRight   key.Binding
	ApproveToInput key.Binding
	// A worktree merge's per-file choice.
	ApproveFileToggle key.Binding
	ApproveFileNext   key.Binding
	ApproveFilePrev   key.Binding
	ApproveKeep       key.Binding
	// Review by hunk: take or drop the hunk under the cursor, move it.
	ApproveHunkToggle key.Binding
	ApproveHunkNext   key.Binding
	ApproveHunkPrev   key.Binding
	// A best-of-N review: the attempt shown.
	ApproveAttemptNext key.Binding
	ApproveAttemptPrev key.Binding
	FeedbackSend       key.Binding
	FeedbackBack       key.Binding
	// FocusApproval gives the keyboard back to a waiting request.
	FocusApproval key.Binding

	// Crew: a focused pane, the crew overview or a child's full-screen
	// view (CancelChild above works in all three).
	ChildOpen       key.Binding
	ChildMessage    key.Binding
	ChildPause      key.Binding
	ChildBackground key.Binding
	CrewUp          key.Binding
	CrewDown        key.Binding
	CrewOpen        key.Binding
	ViewBack        key.Binding
	AddressCancel   key.Binding
	Crew            key.Binding

	// MCP: the /mcp screen.
	MCPUp        key.Binding
	MCPDown      key.Binding
	MCPReconnect key.Binding
	MCPTrust     key.Binding

	// Global.
	Cancel    key.Binding
	Quit      key.Binding
	Help      key.Binding
	CycleMode key.Binding
	Retry     key.Binding
}

// DefaultKeyMap returns covey's default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Send:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:     key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter/ctrl+j", "newline")),
		HistoryPrev: key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous message")),
		HistoryNext: key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next message")),
		ExpandPaste: key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "expand pasted text")),

		Complete:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		Accept:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run command")),
		Dismiss:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close menu")),
		CompletePrev: key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "previous command")),
		CompleteNext: key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "next command")),

		FocusNext:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus next block")),
		FocusPrev:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "focus previous block")),
		Toggle:      key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter/space", "expand/collapse")),
		ToggleAll:   key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "expand/collapse all")),
		CancelChild: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to input")),
		LineUp:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		LineDown:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),

		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "bottom")),

		ApproveYes:         key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "allow")),
		ApproveSession:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "allow for this session")),
		ApproveNo:          key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "deny")),
		ApproveFeedback:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "deny with feedback")),
		ApproveEdit:        key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit in $EDITOR")),
		ApproveLayout:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "unified/side by side")),
		ApproveUp:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll diff up")),
		ApproveDown:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll diff down")),
		ApprovePageUp:      key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "diff page up")),
		ApprovePageDown:    key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "diff page down")),
		ApproveLeft:        key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "diff left")),
		ApproveRight:       key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "diff right")),
		ApproveToInput:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "type in the input")),
		ApproveFileToggle:  key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "choose/drop file")),
		ApproveFileNext:    key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next file")),
		ApproveFilePrev:    key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous file")),
		ApproveKeep:        key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "keep for later")),
		ApproveHunkToggle:  key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "take/drop hunk")),
		ApproveHunkNext:    key.NewBinding(key.WithKeys("}"), key.WithHelp("}", "next hunk")),
		ApproveHunkPrev:    key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "previous hunk")),
		ApproveAttemptNext: key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "next attempt")),
		ApproveAttemptPrev: key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous attempt")),
		FeedbackSend:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "deny with this reason")),
		FeedbackBack:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the request")),
		FocusApproval:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "answer the waiting request")),

		ChildOpen:       key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open full-screen")),
		ChildMessage:    key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "message")),
		ChildPause:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause/resume")),
		ChildBackground: key.NewBinding(key.WithKeys("ctrl+b"), key.WithHelp("ctrl+b", "background")),
		CrewUp:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous subagent")),
		CrewDown:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next subagent")),
		CrewOpen:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		ViewBack:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		AddressCancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop addressing the subagent")),
		Crew:            key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "crew overview")),

		MCPUp:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous server")),
		MCPDown:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next server")),
		MCPReconnect: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reconnect server")),
		MCPTrust:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "trust project servers")),

		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel turn")),
		Quit:      key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "clear/quit")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		CycleMode: key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "permission mode")),
		Retry:     key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "retry last message")),
	}
}

// ShortHelp implements help.KeyMap: the keys that matter most right now,
// the focused context's own first (the request's, the addressed input's,
// the popup's, the chosen child's, a screen's), so a narrow hint line
// cuts the general ones.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{
		k.ApproveYes, k.ApproveSession, k.ApproveNo, k.ApproveFeedback, k.ApproveEdit, k.ApproveLayout,
		k.ApproveHunkToggle, k.ApproveAttemptNext, k.FeedbackSend, k.FeedbackBack, k.ApproveToInput, k.FocusApproval,
		k.AddressCancel, k.Send, k.ExpandPaste, k.Complete, k.Accept, k.Dismiss,
		k.CrewOpen, k.ChildOpen, k.ChildMessage, k.ChildPause, k.ChildBackground, k.CancelChild,
		k.MCPReconnect, k.MCPTrust,
		k.Toggle, k.Back, k.ViewBack, k.FocusNext, k.ToggleAll, k.Cancel, k.Retry, k.Quit, k.Crew, k.Help,
	}
}

// FullHelp implements help.KeyMap: every key, in groups, the focused
// context's first. The help (help.go) shows the enabled ones and adds any
// enabled binding no group names.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.ApproveYes, k.ApproveSession, k.ApproveNo, k.ApproveFeedback, k.ApproveEdit, k.ApproveLayout,
			k.ApproveUp, k.ApproveDown, k.ApprovePageUp, k.ApprovePageDown, k.ApproveLeft, k.ApproveRight, k.ApproveToInput,
			k.ApproveFileToggle, k.ApproveFileNext, k.ApproveFilePrev, k.ApproveKeep,
			k.ApproveHunkToggle, k.ApproveHunkNext, k.ApproveHunkPrev, k.ApproveAttemptNext, k.ApproveAttemptPrev,
			k.FeedbackSend, k.FeedbackBack},
		{k.CrewUp, k.CrewDown, k.CrewOpen, k.ChildOpen, k.ChildMessage, k.ChildPause, k.ChildBackground,
			k.CancelChild, k.ViewBack, k.AddressCancel, k.MCPUp, k.MCPDown, k.MCPReconnect, k.MCPTrust},
		{k.FocusNext, k.FocusPrev, k.Toggle, k.ToggleAll, k.Back},
		{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext, k.ExpandPaste, k.Complete, k.Accept, k.Dismiss, k.CompletePrev, k.CompleteNext},
		{k.Cancel, k.CycleMode, k.Retry, k.Crew, k.Quit, k.Help, k.FocusApproval},
		{k.LineUp, k.LineDown, k.PageUp, k.PageDown, k.Top, k.Bottom},
	}
}

// keyState is what decides which bindings apply.
type keyState struct {
	transcriptFocus bool // focus is on a block, not the input
	inputEmpty      bool
	completing      bool // the command popup is open
	completingAt    bool // ... on an "@" word: enter completes, runs nothing
	running         bool // a turn is running
	childFocused    bool // the focused block is a running subagent pane
	historyAtEdge   bool // the input has history to walk
	pasted          bool // the input holds a collapsed paste
	shell           bool // the input is a "!" shell command
	approval        bool // a waiting request has the keyboard
	approvalPending bool // a request waits for an answer
	feedback        bool // the denial's reason is being typed
	editable        bool // the waiting request is a write
	oneSided        bool // its diff only adds or only removes: no layout to choose
	wideDiff        bool // its diff is wider than the screen: it scrolls sideways
	merge           bool // the waiting request is a child's worktree merge
	hunks           bool // the waiting request's hunks can be chosen
	trimmed         bool // some of its hunks (or files) are dropped
	attempts        bool // the waiting request chooses among attempts
	canGrant        bool // there is a policy to grant through
	canCycle        bool // there is a policy whose mode can change
	canRetry        bool // the last turn ended in an error

	// Crew state: which screen shows, and what the chosen child (the
	// focused pane, the overview's selection or the child shown
	// full-screen) allows.
	view       screen
	addressing bool // the input is addressed to a child
	// mcpUntrusted: the /mcp screen lists project servers not trusted yet.
	mcpUntrusted bool
	child        childKeys
	// backTo is where esc goes back to ("the input", "the pane", ...).
	backTo string
	// childViewFocusable: the child shown full-screen has a block tab can
	// focus (a long tool output, an answer's reasoning).
	childViewFocusable bool
}

// childKeys is what the chosen child allows.
type childKeys struct {
	any        bool // a child is chosen
	running    bool
	foreground bool // running, not in the background
	canMessage bool // the engine takes messages
	shell      bool // a background shell: no pause
}

// apply enables exactly the bindings that make sense in s.
func (k *KeyMap) apply(s keyState) {
	// In the overview and a child's view the keys go to the view, unless
	// a message to a child is being typed.
	inInput := !s.transcriptFocus && !s.approval && (s.view == screenMain || s.addressing)
	k.Send.SetEnabled(inInput && !s.completing)
	if s.shell {
		k.Send.SetHelp(keyName(k.Send), "run command") // runs it here, sends nothing to the model
	} else {
		k.Send.SetHelp(keyName(k.Send), "send")
	}
	k.Newline.SetEnabled(inInput)
	k.HistoryPrev.SetEnabled(inInput && !s.completing && s.historyAtEdge)
	k.HistoryNext.SetEnabled(inInput && !s.completing && s.historyAtEdge)
	k.ExpandPaste.SetEnabled(inInput && s.pasted)

	k.Complete.SetEnabled(inInput && s.completing)
	k.Accept.SetEnabled(inInput && s.completing)
	if s.completingAt {
		k.Accept.SetHelp("enter", "complete")
	} else {
		k.Accept.SetHelp("enter", "run command")
	}
	k.Dismiss.SetEnabled(inInput && s.completing)
	k.CompletePrev.SetEnabled(inInput && s.completing)
	k.CompleteNext.SetEnabled(inInput && s.completing)

	// From the input, tab goes back to a waiting request first.
	inView := s.view != screenMain && !s.approval && !s.addressing
	noChildFocus := s.view == screenChild && !s.childViewFocusable
	k.FocusNext.SetEnabled(!s.completing && !s.approval && !(inInput && s.approvalPending) &&
		s.view != screenCrew && s.view != screenMCP && !s.addressing && !noChildFocus)
	k.FocusPrev.SetEnabled(!s.completing && !s.approval && s.view != screenCrew && s.view != screenMCP && !s.addressing &&
		!noChildFocus)
	k.Toggle.SetEnabled(s.transcriptFocus)
	k.Back.SetHelp(keyName(k.Back), "back to "+s.backTo)
	k.ViewBack.SetHelp(keyName(k.ViewBack), "back to "+s.backTo)
	k.Back.SetEnabled(s.transcriptFocus)
	k.LineUp.SetEnabled(s.transcriptFocus || (inView && s.view == screenChild))
	k.LineDown.SetEnabled(s.transcriptFocus || (inView && s.view == screenChild))

	// A child's keys apply to the focused pane, the overview's selection
	// and the child shown full-screen, while no text is being typed.
	onChild := !s.approval && !s.addressing && s.child.any &&
		(s.transcriptFocus || s.view != screenMain)
	k.CancelChild.SetEnabled(onChild && s.child.running)
	if s.child.shell {
		k.CancelChild.SetHelp(keyName(k.CancelChild), "kill")
	} else {
		k.CancelChild.SetHelp(keyName(k.CancelChild), "cancel")
	}
	k.ChildOpen.SetEnabled(onChild && s.view != screenChild)
	k.ChildMessage.SetEnabled(onChild && s.child.canMessage)
	// A message to an ended (finished, cancelled) child resumes it in
	// the background: the hint says so, not just "message".
	if s.child.running || !s.child.any {
		k.ChildMessage.SetHelp(keyName(k.ChildMessage), "message")
	} else {
		k.ChildMessage.SetHelp(keyName(k.ChildMessage), "message to resume")
	}
	k.ChildPause.SetEnabled(onChild && s.child.running && !s.child.shell)
	k.ChildBackground.SetEnabled(onChild && s.child.foreground)
	inCrew := inView && s.view == screenCrew
	k.CrewUp.SetEnabled(inCrew)
	k.CrewDown.SetEnabled(inCrew)
	k.CrewOpen.SetEnabled(inCrew && s.child.any)
	k.ViewBack.SetEnabled(s.view != screenMain && !s.transcriptFocus && !s.approval && !s.addressing)
	k.AddressCancel.SetEnabled(s.addressing && !s.approval)
	k.Crew.SetEnabled(!s.approval && !s.feedback)
	k.ToggleAll.SetEnabled(s.view == screenMain && !s.addressing)
	inMCP := inView && s.view == screenMCP
	k.MCPUp.SetEnabled(inMCP)
	k.MCPDown.SetEnabled(inMCP)
	k.MCPReconnect.SetEnabled(inMCP)
	k.MCPTrust.SetEnabled(inMCP && s.mcpUntrusted)

	k.Top.SetEnabled(s.transcriptFocus || s.inputEmpty || inView)
	k.Bottom.SetEnabled(s.transcriptFocus || s.inputEmpty || inView)

	k.PageUp.SetEnabled(!s.approval)
	k.PageDown.SetEnabled(!s.approval)

	answering := s.approval && !s.feedback
	k.ApproveYes.SetEnabled(answering)
	k.ApproveSession.SetEnabled(answering && s.canGrant && !s.merge && !s.trimmed) // a grant allows whole changes
	k.ApproveNo.SetEnabled(answering)
	k.ApproveFeedback.SetEnabled(answering)
	k.ApproveEdit.SetEnabled(answering && s.editable)
	k.ApproveLayout.SetEnabled(answering && (s.editable || s.merge) && !s.oneSided)
	// A merge is applied or discarded, not allowed or denied.
	if s.merge {
		k.ApproveYes.SetHelp("y", "apply chosen files")
		k.ApproveNo.SetHelp("n", "discard")
		k.ApproveFeedback.SetHelp("d", "discard with feedback")
	} else {
		k.ApproveYes.SetHelp("y", "allow")
		k.ApproveNo.SetHelp("n", "deny")
		k.ApproveFeedback.SetHelp("d", "deny with feedback")
	}
	if s.attempts {
		k.ApproveYes.SetHelp("y", "apply this attempt")
		k.ApproveNo.SetHelp("n", "apply none")
		k.ApproveFeedback.SetHelp("d", "apply none, with feedback")
		k.ApproveKeep.SetHelp("l", "keep all for later")
	} else {
		k.ApproveKeep.SetHelp("l", "keep for later")
	}
	if s.trimmed {
		k.ApproveYes.SetHelp("y", map[bool]string{true: "apply the chosen", false: "allow the hunks taken"}[s.merge])
		k.ApproveFeedback.SetHelp("d", "take the chosen, with a note")
	}
	k.ApproveEdit.SetEnabled(answering && s.editable && !s.trimmed)
	k.ApproveHunkToggle.SetEnabled(answering && s.hunks)
	k.ApproveHunkNext.SetEnabled(answering && s.hunks)
	k.ApproveHunkPrev.SetEnabled(answering && s.hunks)
	k.ApproveAttemptNext.SetEnabled(answering && s.attempts)
	k.ApproveAttemptPrev.SetEnabled(answering && s.attempts)
	k.ApproveFileToggle.SetEnabled(answering && s.merge)
	k.ApproveFileNext.SetEnabled(answering && s.merge)
	k.ApproveFilePrev.SetEnabled(answering && s.merge)
	k.ApproveKeep.SetEnabled(answering && s.merge)
	k.ApproveUp.SetEnabled(answering)
	k.ApproveDown.SetEnabled(answering)
	k.ApprovePageUp.SetEnabled(answering)
	k.ApprovePageDown.SetEnabled(answering)
	k.ApproveLeft.SetEnabled(answering && s.wideDiff)
	k.ApproveRight.SetEnabled(answering && s.wideDiff)
	k.ApproveToInput.SetEnabled(answering)
	k.FeedbackSend.SetEnabled(s.approval && s.feedback)
	k.FeedbackBack.SetEnabled(s.approval && s.feedback)
	k.FocusApproval.SetEnabled((inInput || inView) && s.approvalPending && !s.completing)

	k.Cancel.SetEnabled((inInput && s.view == screenMain && !s.addressing && s.running && !s.completing) || answering)
	k.Help.SetEnabled(s.transcriptFocus || s.inputEmpty || answering)
	k.CycleMode.SetEnabled(s.canCycle && !s.feedback)
	k.Retry.SetEnabled(s.canRetry && !s.running && !s.feedback)
}
