// Package keys is the TUI's KeyMap: every binding with its help text, the
// defaults, which bindings apply in a State the root model fills, and the
// help drawn from them (the hint line, the full help, a screen's view
// bar). Screens and blocks import it to match and name keys without
// importing ui.
package keys

import (
	"fmt"

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
	// PasteClipboard pastes the clipboard: an image (attached when the
	// message is sent) or text.
	PasteClipboard key.Binding

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
	// A question of the model's (ask_user): its number picks an option,
	// enter the one under the cursor (ApproveUp/ApproveDown move it),
	// space marks one of several.
	QuestionNumber key.Binding
	QuestionPick   key.Binding
	QuestionToggle key.Binding

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
	// Rewind is esc twice on an empty input while nothing runs: /rewind.
	Rewind key.Binding

	// Replay (covey replay): the player's keys. While a session plays
	// back, every key that would send, answer or change anything is off.
	ReplayPause     key.Binding
	ReplayStep      key.Binding
	ReplayFaster    key.Binding
	ReplaySlower    key.Binding
	ReplayNextEdit  key.Binding
	ReplayNextError key.Binding
	ReplayNextAsk   key.Binding
	ReplayQuit      key.Binding
}

// Default returns covey's default bindings.
func Default() KeyMap {
	return KeyMap{
		Send:           key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:        key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter/ctrl+j", "newline")),
		HistoryPrev:    key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous message")),
		HistoryNext:    key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next message")),
		ExpandPaste:    key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "expand pasted text")),
		PasteClipboard: key.NewBinding(key.WithKeys("ctrl+v"), key.WithHelp("ctrl+v", "paste an image (or text)")),

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
		QuestionNumber:     key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "pick")),
		QuestionPick:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
		QuestionToggle:     key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "mark/unmark")),

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
		Rewind:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc esc", "rewind")),

		ReplayPause:     key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause/play")),
		ReplayStep:      key.NewBinding(key.WithKeys(".", "n"), key.WithHelp("./n", "step")),
		ReplayFaster:    key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		ReplaySlower:    key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "slower")),
		ReplayNextEdit:  key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "next edit")),
		ReplayNextError: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "next error")),
		ReplayNextAsk:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "next question/approval")),
		ReplayQuit:      key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp implements help.KeyMap: the keys that matter most right now,
// the focused context's own first (the request's, the addressed input's,
// the popup's, the chosen child's), so a narrow hint line cuts the
// general ones. A screen's own keys are on its view bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{
		k.ReplayPause, k.ReplayStep, k.ReplayFaster, k.ReplaySlower, k.ReplayNextEdit, k.ReplayNextError, k.ReplayNextAsk, k.ReplayQuit,
		k.ApproveYes, k.ApproveSession, k.ApproveNo, k.ApproveFeedback, k.ApproveEdit, k.ApproveLayout,
		k.ApproveHunkToggle, k.ApproveAttemptNext, k.QuestionNumber, k.QuestionPick, k.QuestionToggle,
		k.FeedbackSend, k.FeedbackBack, k.ApproveToInput, k.FocusApproval,
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
			k.FeedbackSend, k.FeedbackBack, k.QuestionNumber, k.QuestionPick, k.QuestionToggle},
		{k.ChildOpen, k.ChildMessage, k.ChildPause, k.ChildBackground, k.CancelChild, k.ViewBack, k.AddressCancel},
		{k.FocusNext, k.FocusPrev, k.Toggle, k.ToggleAll, k.Back},
		{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext, k.ExpandPaste, k.PasteClipboard, k.Complete, k.Accept, k.Dismiss, k.CompletePrev, k.CompleteNext},
		{k.Cancel, k.CycleMode, k.Retry, k.Rewind, k.Crew, k.Quit, k.Help, k.FocusApproval},
		{k.LineUp, k.LineDown, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.ReplayPause, k.ReplayStep, k.ReplayFaster, k.ReplaySlower, k.ReplayNextEdit, k.ReplayNextError, k.ReplayNextAsk, k.ReplayQuit},
	}
}

// Focus is where the keys go. There is exactly one: the input (which may
// be addressed to a child), a block of the conversation, the waiting
// request, or the screen shown.
type Focus uint8

// The places the keys can go.
const (
	FocusInput      Focus = iota // the input
	FocusTranscript              // a block of the conversation
	FocusApproval                // the waiting request
	FocusScreen                  // the screen shown
)

// State is what decides which bindings apply: plain data the root model
// fills from its components on every layout.
type State struct {
	Focus         Focus
	InputEmpty    bool
	Completing    bool // the command popup is open
	CompletingAt  bool // ... on an "@" word: enter completes, runs nothing
	Running       bool // a turn is running
	HistoryAtEdge bool // the input has history to walk
	Pasted        bool // the input holds a collapsed paste
	Shell         bool // the input is a "!" shell command
	Approval      Approval
	CanGrant      bool // there is a policy to grant through
	CanCycle      bool // there is a policy whose mode can change
	CanRetry      bool // the last turn ended in an error
	Addressing    bool // the input is addressed to a child
	// Screen is the screen shown; Child what the chosen child (the
	// focused pane, the overview's selection or the child shown
	// full-screen) allows.
	Screen Screen
	Child  Child
	// BackTo is where esc goes back to ("the input", "the pane", ...).
	BackTo string
	// Replay: a recorded session plays back (covey replay), read-only.
	Replay bool
}

// Approval is what the waiting request allows.
type Approval struct {
	Pending  bool // a request waits for an answer
	Feedback bool // the denial's reason is being typed
	Editable bool // the waiting request is a write
	OneSided bool // its diff only adds or only removes: no layout to choose
	WideDiff bool // its diff is wider than the screen: it scrolls sideways
	Merge    bool // the waiting request is a child's worktree merge
	Hunks    bool // the waiting request's hunks can be chosen
	Trimmed  bool // some of its hunks (or files) are dropped
	Attempts bool // the waiting request chooses among attempts
	Question bool // the waiting request is the model's question (ask_user)
	Multi    bool // ... of which several options may be marked
	Options  int  // ... with this many rows to pick (its options and "type an answer")
	Plan     bool // the waiting request is a plan to approve (exit_plan_mode)
}

// Child is what the chosen child allows.
type Child struct {
	Any        bool // a child is chosen
	Running    bool
	Foreground bool // running, not in the background
	CanMessage bool // the engine takes messages
	Shell      bool // a background shell: no pause
}

// Screen is what the keys need to know of the screen shown.
type Screen struct {
	Open      bool // a screen stands in for the conversation
	Blocks    bool // it shows a child's transcript
	Focusable bool // ... with a block tab can focus
	Focused   bool // ... and a block of it has the focus
}

// BlockFocused reports whether a block has the keys: one of the
// conversation, or one of the screen shown.
func (s State) BlockFocused() bool {
	return s.Focus == FocusTranscript || (s.Focus == FocusScreen && s.Screen.Focused)
}

// Apply enables exactly the bindings that make sense in s, context by
// context.
func (k *KeyMap) Apply(s State) {
	k.applyInput(s)
	k.applyTranscript(s)
	k.applyCrew(s)
	k.applyApproval(s)
	k.applyGlobal(s)
	k.applyReplay(s)
}

// applyReplay turns the player's keys on while a session plays back, and
// off every key that would type, send, answer or change anything: a
// replay is read-only. Space pauses there, so it no longer toggles.
func (k *KeyMap) applyReplay(s State) {
	for _, b := range []*key.Binding{&k.ReplayPause, &k.ReplayStep, &k.ReplayFaster, &k.ReplaySlower,
		&k.ReplayNextEdit, &k.ReplayNextError, &k.ReplayNextAsk, &k.ReplayQuit} {
		b.SetEnabled(s.Replay)
	}
	if !s.Replay {
		k.Toggle.SetKeys("enter", " ")
		k.Toggle.SetHelp("enter/space", "expand/collapse")
		return
	}
	k.Toggle.SetKeys("enter")
	k.Toggle.SetHelp("enter", "expand/collapse")
	for _, b := range []*key.Binding{&k.Send, &k.Newline, &k.HistoryPrev, &k.HistoryNext, &k.ExpandPaste, &k.PasteClipboard,
		&k.Complete, &k.Accept, &k.Dismiss, &k.CompletePrev, &k.CompleteNext,
		&k.CancelChild, &k.ChildMessage, &k.ChildPause, &k.ChildBackground, &k.AddressCancel, &k.FocusApproval,
		&k.Cancel, &k.Quit, &k.CycleMode, &k.Retry, &k.Rewind} {
		b.SetEnabled(false)
	}
}

// applyInput sets the input's and the completion popup's keys.
func (k *KeyMap) applyInput(s State) {
	inInput := s.Focus == FocusInput
	k.Send.SetEnabled(inInput && !s.Completing)
	if s.Shell {
		k.Send.SetHelp(Name(k.Send), "run command") // runs it here, sends nothing to the model
	} else {
		k.Send.SetHelp(Name(k.Send), "send")
	}
	k.Newline.SetEnabled(inInput)
	k.HistoryPrev.SetEnabled(inInput && !s.Completing && s.HistoryAtEdge)
	k.HistoryNext.SetEnabled(inInput && !s.Completing && s.HistoryAtEdge)
	k.ExpandPaste.SetEnabled(inInput && s.Pasted)
	k.PasteClipboard.SetEnabled(inInput)

	k.Complete.SetEnabled(inInput && s.Completing)
	k.Accept.SetEnabled(inInput && s.Completing)
	if s.CompletingAt {
		k.Accept.SetHelp("enter", "complete")
	} else {
		k.Accept.SetHelp("enter", "run command")
	}
	k.Dismiss.SetEnabled(inInput && s.Completing)
	k.CompletePrev.SetEnabled(inInput && s.Completing)
	k.CompleteNext.SetEnabled(inInput && s.Completing)
}

// applyTranscript sets the keys that move through and scroll the
// conversation (or the transcript of the screen shown).
func (k *KeyMap) applyTranscript(s State) {
	blocks := s.BlockFocused()
	inView := s.Focus == FocusScreen
	// From the input, tab goes back to a waiting request first.
	tabs := !s.Completing && !s.Addressing &&
		(s.Focus == FocusInput || s.Focus == FocusTranscript || (inView && s.Screen.Blocks && s.Screen.Focusable))
	k.FocusNext.SetEnabled(tabs && !(s.Focus == FocusInput && s.Approval.Pending))
	k.FocusPrev.SetEnabled(tabs)
	k.Toggle.SetEnabled(blocks)
	k.Back.SetHelp(Name(k.Back), "back to "+s.BackTo)
	k.ViewBack.SetHelp(Name(k.ViewBack), "back to "+s.BackTo)
	k.Back.SetEnabled(blocks)
	k.LineUp.SetEnabled(blocks || (inView && s.Screen.Blocks))
	k.LineDown.SetEnabled(blocks || (inView && s.Screen.Blocks))
	k.ToggleAll.SetEnabled(!s.Screen.Open && !s.Addressing)
	k.Top.SetEnabled(blocks || s.InputEmpty || inView)
	k.Bottom.SetEnabled(blocks || s.InputEmpty || inView)
	k.PageUp.SetEnabled(s.Focus != FocusApproval)
	k.PageDown.SetEnabled(s.Focus != FocusApproval)
}

// applyCrew sets a child's keys: they apply to the focused pane, the
// overview's selection and the child shown full-screen, while no text is
// being typed.
func (k *KeyMap) applyCrew(s State) {
	onChild := s.Child.Any && (s.Focus == FocusTranscript || s.Focus == FocusScreen)
	k.CancelChild.SetEnabled(onChild && s.Child.Running)
	if s.Child.Shell {
		k.CancelChild.SetHelp(Name(k.CancelChild), "kill")
	} else {
		k.CancelChild.SetHelp(Name(k.CancelChild), "cancel")
	}
	k.ChildOpen.SetEnabled(onChild && !s.Screen.Blocks)
	k.ChildMessage.SetEnabled(onChild && s.Child.CanMessage)
	// A message to an ended (finished, cancelled) child resumes it in
	// the background: the hint says so, not just "message".
	if s.Child.Running || !s.Child.Any {
		k.ChildMessage.SetHelp(Name(k.ChildMessage), "message")
	} else {
		k.ChildMessage.SetHelp(Name(k.ChildMessage), "message to resume")
	}
	k.ChildPause.SetEnabled(onChild && s.Child.Running && !s.Child.Shell)
	k.ChildBackground.SetEnabled(onChild && s.Child.Foreground)
	k.ViewBack.SetEnabled(s.Focus == FocusScreen && !s.Screen.Focused)
	k.AddressCancel.SetEnabled(s.Addressing && s.Focus != FocusApproval)
	k.Crew.SetEnabled(s.Focus != FocusApproval && !s.Approval.Feedback)
}

// applyApproval sets the waiting request's keys, and their words: a
// merge is applied or discarded, not allowed or denied.
func (k *KeyMap) applyApproval(s State) {
	a := s.Approval
	answering := s.Focus == FocusApproval && !a.Feedback
	if a.Question {
		k.applyQuestion(s)
		return
	}
	k.QuestionNumber.SetEnabled(false)
	k.QuestionPick.SetEnabled(false)
	k.QuestionToggle.SetEnabled(false)
	k.ApproveYes.SetEnabled(answering)
	// A grant allows whole changes; on a plan, a approves it with edits
	// accepted.
	k.ApproveSession.SetEnabled(answering && ((s.CanGrant && !a.Merge && !a.Trimmed) || a.Plan))
	k.ApproveNo.SetEnabled(answering)
	k.ApproveFeedback.SetEnabled(answering)
	k.ApproveLayout.SetEnabled(answering && (a.Editable || a.Merge) && !a.OneSided)
	k.setApprovalWords(a)
	k.ApproveEdit.SetEnabled(answering && a.Editable && !a.Trimmed)
	k.ApproveHunkToggle.SetEnabled(answering && a.Hunks)
	k.ApproveHunkNext.SetEnabled(answering && a.Hunks)
	k.ApproveHunkPrev.SetEnabled(answering && a.Hunks)
	k.ApproveAttemptNext.SetEnabled(answering && a.Attempts)
	k.ApproveAttemptPrev.SetEnabled(answering && a.Attempts)
	k.ApproveFileToggle.SetEnabled(answering && a.Merge)
	k.ApproveFileNext.SetEnabled(answering && a.Merge)
	k.ApproveFilePrev.SetEnabled(answering && a.Merge)
	k.ApproveKeep.SetEnabled(answering && a.Merge)
	k.ApproveUp.SetEnabled(answering)
	k.ApproveDown.SetEnabled(answering)
	k.ApprovePageUp.SetEnabled(answering)
	k.ApprovePageDown.SetEnabled(answering)
	k.ApproveLeft.SetEnabled(answering && a.WideDiff)
	k.ApproveRight.SetEnabled(answering && a.WideDiff)
	k.ApproveToInput.SetEnabled(answering)
	k.FeedbackSend.SetEnabled(s.Focus == FocusApproval && a.Feedback)
	k.FeedbackBack.SetEnabled(s.Focus == FocusApproval && a.Feedback)
	k.FocusApproval.SetEnabled((s.Focus == FocusInput || s.Focus == FocusScreen) && a.Pending && !s.Completing)
}

// applyQuestion sets the keys of the model's question: a number or the
// cursor and enter answer, tab gives the input the keys, esc declines.
func (k *KeyMap) applyQuestion(s State) {
	a := s.Approval
	answering := s.Focus == FocusApproval && !a.Feedback
	for _, b := range []*key.Binding{&k.ApproveYes, &k.ApproveSession, &k.ApproveNo, &k.ApproveFeedback, &k.ApproveEdit,
		&k.ApproveLayout, &k.ApproveHunkToggle, &k.ApproveHunkNext, &k.ApproveHunkPrev, &k.ApproveAttemptNext,
		&k.ApproveAttemptPrev, &k.ApproveFileToggle, &k.ApproveFileNext, &k.ApproveFilePrev, &k.ApproveKeep,
		&k.ApprovePageUp, &k.ApprovePageDown, &k.ApproveLeft, &k.ApproveRight} {
		b.SetEnabled(false)
	}
	k.ApproveUp.SetEnabled(answering)
	k.ApproveDown.SetEnabled(answering)
	k.ApproveUp.SetHelp(Name(k.ApproveUp), "previous option")
	k.ApproveDown.SetHelp(Name(k.ApproveDown), "next option")
	k.QuestionNumber.SetEnabled(answering)
	k.QuestionNumber.SetHelp(fmt.Sprintf("1-%d", max(a.Options, 1)), "pick")
	k.QuestionPick.SetEnabled(answering)
	k.QuestionToggle.SetEnabled(answering && a.Multi)
	k.ApproveToInput.SetEnabled(answering)
	k.FeedbackSend.SetEnabled(s.Focus == FocusApproval && a.Feedback)
	k.FeedbackSend.SetHelp(Name(k.FeedbackSend), "send this answer")
	k.FeedbackBack.SetEnabled(s.Focus == FocusApproval && a.Feedback)
	k.FeedbackBack.SetHelp(Name(k.FeedbackBack), "back to the options")
	k.FocusApproval.SetEnabled((s.Focus == FocusInput || s.Focus == FocusScreen) && a.Pending && !s.Completing)
}

// setApprovalWords says what y, n, d and l do for the request a is: the
// request's own hints' words (AnswerWords), so the two never differ.
func (k *KeyMap) setApprovalWords(a Approval) {
	yes, no, note := AnswerWords(a.Merge, a.Attempts, a.Trimmed)
	session, send := "allow for this session", "deny with this reason"
	if a.Plan {
		yes, session, no, note, send = PlanWords()
	}
	k.ApproveYes.SetHelp("y", yes)
	k.ApproveSession.SetHelp("a", session)
	k.ApproveNo.SetHelp("n", no)
	k.ApproveFeedback.SetHelp("d", note)
	k.FeedbackSend.SetHelp(Name(k.FeedbackSend), send)
	k.FeedbackBack.SetHelp(Name(k.FeedbackBack), "back to the request")
	k.ApproveUp.SetHelp(Name(k.ApproveUp), "scroll diff up")
	k.ApproveDown.SetHelp(Name(k.ApproveDown), "scroll diff down")
	if a.Attempts {
		k.ApproveKeep.SetHelp("l", "keep all for later")
	} else {
		k.ApproveKeep.SetHelp("l", "keep for later")
	}
}

// applyGlobal sets the keys that work from most places.
func (k *KeyMap) applyGlobal(s State) {
	answering := s.Focus == FocusApproval && !s.Approval.Feedback
	k.Cancel.SetEnabled((s.Focus == FocusInput && !s.Screen.Open && !s.Addressing && s.Running && !s.Completing) || answering)
	// ? is text only where text is typed: in a draft in the input. On a
	// screen or a block, letters are keys, draft or not.
	k.Help.SetEnabled(s.Focus == FocusScreen || s.BlockFocused() || s.InputEmpty || answering)
	k.CycleMode.SetEnabled(s.CanCycle && !s.Approval.Feedback)
	k.Retry.SetEnabled(s.CanRetry && !s.Running && !s.Approval.Feedback)
	k.Rewind.SetEnabled(s.Focus == FocusInput && !s.Screen.Open && !s.Addressing && !s.Running && !s.Completing && s.InputEmpty)
}

// PlanWords are what y, a, n, d and enter (in the feedback) do for a plan
// presented for approval.
func PlanWords() (yes, edits, no, note, send string) {
	return "approve (ask before edits)", "approve, accept edits", "keep planning", "keep planning, with feedback", "send the feedback"
}

// AnswerWords are what y, n and d do for a request: a merge, a best-of-N
// pick, an edit or command, each whole or trimmed (some of it dropped).
// The request's own hints and the key bar both say these, so they agree.
func AnswerWords(merge, pick, trimmed bool) (yes, no, note string) {
	switch {
	case pick && trimmed:
		return "apply the chosen of this attempt", "apply none", "apply none, with feedback"
	case pick:
		return "apply this attempt", "apply none", "apply none, with feedback"
	case merge && trimmed:
		return "apply the chosen files", "discard all", "discard with feedback"
	case merge:
		return "apply the chosen files", "discard all", "discard with feedback"
	case trimmed:
		return "allow the hunks taken", "deny", "deny with feedback"
	}
	return "allow", "deny", "deny with feedback"
}
