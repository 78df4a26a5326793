package ui

import "context"

// Engine is what the TUI drives. The engine reports progress as agent events
// on the channel given to New; the UI never calls into agent internals.
type Engine interface {
	// Run runs one user turn to completion; it blocks, so the UI calls it
	// from a tea.Cmd. Cancelling ctx cancels the turn and every child.
	Run(ctx context.Context, prompt string) error
	// CancelChild cancels one running subagent by its AgentID; its siblings
	// go on. It reports whether such a child was running.
	CancelChild(agentID string) bool
	// Reset starts a fresh conversation (/clear).
	Reset()
	// Model is the main agent's model; SetModel changes it for later turns.
	Model() string
	SetModel(name string)
	// Undo restores the files the last turn that changed any changed
	// (/undo; repeated calls walk further back) and returns a summary for
	// the user ("restored a.go, b.go; removed new.txt"), or an error such
	// as tools.ErrNothingToUndo.
	Undo(ctx context.Context) (string, error)
	// Retry runs the last user turn again (/retry): the engine drops the
	// messages that turn left behind and sends its prompt once more. It
	// blocks like Run, and reports its progress as events like Run.
	Retry(ctx context.Context) error
	// SendToChild delivers text to a child by AgentID: to a running child
	// as a user-role message before its next model request (a ChildMessage
	// event shows it), to a finished one by resuming it in the background
	// with its whole history plus the text (its result comes back to its
	// parent as a BackgroundResult).
	SendToChild(ctx context.Context, agentID, text string) error
	// PauseChild pauses (paused true) or resumes a running child: its
	// current request or tool call completes, no new one starts. It reports
	// whether the child was found running; ChildState events follow.
	PauseChild(agentID string, paused bool) bool
	// BackgroundChild moves a running foreground child to the background:
	// its parent's pending task call completes with a note naming it. It
	// reports whether the child was found running in the foreground.
	BackgroundChild(agentID string) bool
	// CancelTurn cancels the main agent's turn that a background result
	// started (the UI cancels its own turns through Run's context). It
	// reports whether such a turn was running.
	CancelTurn() bool
}

// AgentInfo describes one agent definition for /agents.
type AgentInfo struct {
	Name, Description, Source, Model string
	Tools                            []string
	ReadOnly                         bool
	// Notes are further lines about it ("permission mode: plan").
	Notes []string
}

// AgentFileProblems are the problems of one agent definition file, for
// /agents and the notice at start.
type AgentFileProblems struct {
	// Path is the file (or folder).
	Path string
	// Lines are its problems, one each ("warning line 4 (tools): ...").
	Lines []string
	// Errors counts the problems that kept the file from loading.
	Errors int
}
