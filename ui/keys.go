package ui

import (
	"covey/ui/approval"

	"github.com/charmbracelet/bubbles/key"
)

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
	// view (CancelChild above works in all three). A screen's own keys
	// are beside it (crewOverviewKeys, mcpPanelKeys); ViewBack leaves any
	// screen.
	ChildOpen       key.Binding
	ChildMessage    key.Binding
	ChildPause      key.Binding
	ChildBackground key.Binding
	ViewBack        key.Binding
	AddressCancel   key.Binding
	Crew            key.Binding

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
		ViewBack:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		AddressCancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop addressing the subagent")),
		Crew:            key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "crew overview")),

		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel turn")),
		Quit:      key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "clear/quit")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		CycleMode: key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "permission mode")),
		Retry:     key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "retry last message")),
	}
}

// ShortHelp implements help.KeyMap: the keys that matter most right now,
// the focused context's own first (the request's, the addressed input's,
// the popup's, the chosen child's), so a narrow hint line cuts the
// general ones. A screen's own keys are on its view bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{
		k.ApproveYes, k.ApproveSession, k.ApproveNo, k.ApproveFeedback, k.ApproveEdit, k.ApproveLayout,
		k.ApproveHunkToggle, k.ApproveAttemptNext, k.FeedbackSend, k.FeedbackBack, k.ApproveToInput, k.FocusApproval,
		k.AddressCancel, k.Send, k.ExpandPaste, k.Complete, k.Accept, k.Dismiss,
		k.ChildOpen, k.ChildMessage, k.ChildPause, k.ChildBackground, k.CancelChild,
		k.Toggle, k.Back, k.ViewBack, k.FocusNext, k.ToggleAll, k.Cancel, k.Retry, k.Quit, k.Crew, k.Help,
	}
}

// FullHelp implements help.KeyMap: every key, in groups, the focused
// context's first. The help (help.go) shows the enabled ones, after the
// focused screen's groups, and adds any enabled binding no group names.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.ApproveYes, k.ApproveSession, k.ApproveNo, k.ApproveFeedback, k.ApproveEdit, k.ApproveLayout,
			k.ApproveUp, k.ApproveDown, k.ApprovePageUp, k.ApprovePageDown, k.ApproveLeft, k.ApproveRight, k.ApproveToInput,
			k.ApproveFileToggle, k.ApproveFileNext, k.ApproveFilePrev, k.ApproveKeep,
			k.ApproveHunkToggle, k.ApproveHunkNext, k.ApproveHunkPrev, k.ApproveAttemptNext, k.ApproveAttemptPrev,
			k.FeedbackSend, k.FeedbackBack},
		{k.ChildOpen, k.ChildMessage, k.ChildPause, k.ChildBackground, k.CancelChild, k.ViewBack, k.AddressCancel},
		{k.FocusNext, k.FocusPrev, k.Toggle, k.ToggleAll, k.Back},
		{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext, k.ExpandPaste, k.Complete, k.Accept, k.Dismiss, k.CompletePrev, k.CompleteNext},
		{k.Cancel, k.CycleMode, k.Retry, k.Crew, k.Quit, k.Help, k.FocusApproval},
		{k.LineUp, k.LineDown, k.PageUp, k.PageDown, k.Top, k.Bottom},
	}
}

// keyState is what decides which bindings apply.
type keyState struct {
	focus         focus
	inputEmpty    bool
	completing    bool // the command popup is open
	completingAt  bool // ... on an "@" word: enter completes, runs nothing
	running       bool // a turn is running
	historyAtEdge bool // the input has history to walk
	pasted        bool // the input holds a collapsed paste
	shell         bool // the input is a "!" shell command
	approval      approvalKeys
	canGrant      bool // there is a policy to grant through
	canCycle      bool // there is a policy whose mode can change
	canRetry      bool // the last turn ended in an error
	addressing    bool // the input is addressed to a child
	// screen is the screen shown; child what the chosen child (the
	// focused pane, the overview's selection or the child shown
	// full-screen) allows.
	screen screenKeys
	child  childKeys
	// backTo is where esc goes back to ("the input", "the pane", ...).
	backTo string
}

// approvalKeys is what the waiting request allows.
type approvalKeys struct {
	pending  bool // a request waits for an answer
	feedback bool // the denial's reason is being typed
	editable bool // the waiting request is a write
	oneSided bool // its diff only adds or only removes: no layout to choose
	wideDiff bool // its diff is wider than the screen: it scrolls sideways
	merge    bool // the waiting request is a child's worktree merge
	hunks    bool // the waiting request's hunks can be chosen
	trimmed  bool // some of its hunks (or files) are dropped
	attempts bool // the waiting request chooses among attempts
}

// approvalKeyState is what ab, the waiting request (nil: none), allows.
func approvalKeyState(ab *approval.Block) approvalKeys {
	if ab == nil {
		return approvalKeys{}
	}
	return approvalKeys{
		pending:  true,
		feedback: ab.FeedbackOpen(),
		editable: ab.Editable(),
		oneSided: ab.OneSided(),
		wideDiff: ab.MaxShift() > 0,
		merge:    ab.IsMerge(),
		hunks:    ab.ChoosesHunks(),
		trimmed:  ab.Trimmed(),
		attempts: ab.IsPick(),
	}
}

// childKeys is what the chosen child allows.
type childKeys struct {
	any        bool // a child is chosen
	running    bool
	foreground bool // running, not in the background
	canMessage bool // the engine takes messages
	shell      bool // a background shell: no pause
}

// blockFocused reports whether a block has the keys: one of the
// conversation, or one of the screen shown.
func (s keyState) blockFocused() bool {
	return s.focus == focusTranscript || (s.focus == focusScreen && s.screen.focused)
}

// apply enables exactly the bindings that make sense in s, context by
// context.
func (k *KeyMap) apply(s keyState) {
	k.applyInput(s)
	k.applyTranscript(s)
	k.applyCrew(s)
	k.applyApproval(s)
	k.applyGlobal(s)
}

// applyInput sets the input's and the completion popup's keys.
func (k *KeyMap) applyInput(s keyState) {
	inInput := s.focus == focusInput
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
}

// applyTranscript sets the keys that move through and scroll the
// conversation (or the transcript of the screen shown).
func (k *KeyMap) applyTranscript(s keyState) {
	blocks := s.blockFocused()
	inView := s.focus == focusScreen
	// From the input, tab goes back to a waiting request first.
	tabs := !s.completing && !s.addressing &&
		(s.focus == focusInput || s.focus == focusTranscript || (inView && s.screen.blocks && s.screen.focusable))
	k.FocusNext.SetEnabled(tabs && !(s.focus == focusInput && s.approval.pending))
	k.FocusPrev.SetEnabled(tabs)
	k.Toggle.SetEnabled(blocks)
	k.Back.SetHelp(keyName(k.Back), "back to "+s.backTo)
	k.ViewBack.SetHelp(keyName(k.ViewBack), "back to "+s.backTo)
	k.Back.SetEnabled(blocks)
	k.LineUp.SetEnabled(blocks || (inView && s.screen.blocks))
	k.LineDown.SetEnabled(blocks || (inView && s.screen.blocks))
	k.ToggleAll.SetEnabled(!s.screen.open && !s.addressing)
	k.Top.SetEnabled(blocks || s.inputEmpty || inView)
	k.Bottom.SetEnabled(blocks || s.inputEmpty || inView)
	k.PageUp.SetEnabled(s.focus != focusApproval)
	k.PageDown.SetEnabled(s.focus != focusApproval)
}

// applyCrew sets a child's keys: they apply to the focused pane, the
// overview's selection and the child shown full-screen, while no text is
// being typed.
func (k *KeyMap) applyCrew(s keyState) {
	onChild := s.child.any && (s.focus == focusTranscript || s.focus == focusScreen)
	k.CancelChild.SetEnabled(onChild && s.child.running)
	if s.child.shell {
		k.CancelChild.SetHelp(keyName(k.CancelChild), "kill")
	} else {
		k.CancelChild.SetHelp(keyName(k.CancelChild), "cancel")
	}
	k.ChildOpen.SetEnabled(onChild && !s.screen.blocks)
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
	k.ViewBack.SetEnabled(s.focus == focusScreen && !s.screen.focused)
	k.AddressCancel.SetEnabled(s.addressing && s.focus != focusApproval)
	k.Crew.SetEnabled(s.focus != focusApproval && !s.approval.feedback)
}

// applyApproval sets the waiting request's keys, and their words: a
// merge is applied or discarded, not allowed or denied.
func (k *KeyMap) applyApproval(s keyState) {
	a := s.approval
	answering := s.focus == focusApproval && !a.feedback
	k.ApproveYes.SetEnabled(answering)
	k.ApproveSession.SetEnabled(answering && s.canGrant && !a.merge && !a.trimmed) // a grant allows whole changes
	k.ApproveNo.SetEnabled(answering)
	k.ApproveFeedback.SetEnabled(answering)
	k.ApproveLayout.SetEnabled(answering && (a.editable || a.merge) && !a.oneSided)
	k.setApprovalWords(a)
	k.ApproveEdit.SetEnabled(answering && a.editable && !a.trimmed)
	k.ApproveHunkToggle.SetEnabled(answering && a.hunks)
	k.ApproveHunkNext.SetEnabled(answering && a.hunks)
	k.ApproveHunkPrev.SetEnabled(answering && a.hunks)
	k.ApproveAttemptNext.SetEnabled(answering && a.attempts)
	k.ApproveAttemptPrev.SetEnabled(answering && a.attempts)
	k.ApproveFileToggle.SetEnabled(answering && a.merge)
	k.ApproveFileNext.SetEnabled(answering && a.merge)
	k.ApproveFilePrev.SetEnabled(answering && a.merge)
	k.ApproveKeep.SetEnabled(answering && a.merge)
	k.ApproveUp.SetEnabled(answering)
	k.ApproveDown.SetEnabled(answering)
	k.ApprovePageUp.SetEnabled(answering)
	k.ApprovePageDown.SetEnabled(answering)
	k.ApproveLeft.SetEnabled(answering && a.wideDiff)
	k.ApproveRight.SetEnabled(answering && a.wideDiff)
	k.ApproveToInput.SetEnabled(answering)
	k.FeedbackSend.SetEnabled(s.focus == focusApproval && a.feedback)
	k.FeedbackBack.SetEnabled(s.focus == focusApproval && a.feedback)
	k.FocusApproval.SetEnabled((s.focus == focusInput || s.focus == focusScreen) && a.pending && !s.completing)
}

// setApprovalWords says what y, n, d and l do for the request a is: the
// request's own hints' words (approval.AnswerWords), so the two never differ.
func (k *KeyMap) setApprovalWords(a approvalKeys) {
	yes, no, note := approval.AnswerWords(a.merge, a.attempts, a.trimmed)
	k.ApproveYes.SetHelp("y", yes)
	k.ApproveNo.SetHelp("n", no)
	k.ApproveFeedback.SetHelp("d", note)
	if a.attempts {
		k.ApproveKeep.SetHelp("l", "keep all for later")
	} else {
		k.ApproveKeep.SetHelp("l", "keep for later")
	}
}

// applyGlobal sets the keys that work from most places.
func (k *KeyMap) applyGlobal(s keyState) {
	answering := s.focus == focusApproval && !s.approval.feedback
	k.Cancel.SetEnabled((s.focus == focusInput && !s.screen.open && !s.addressing && s.running && !s.completing) || answering)
	k.Help.SetEnabled(s.blockFocused() || s.inputEmpty || answering)
	k.CycleMode.SetEnabled(s.canCycle && !s.approval.feedback)
	k.Retry.SetEnabled(s.canRetry && !s.running && !s.approval.feedback)
}
