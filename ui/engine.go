package ui

import (
	"context"

	"covey/agent"
)

// This file is the UI's whole contract with the session it drives: Engine,
// which every engine implements, and the optional interfaces a command
// finds at run time (a type assertion on the engine), each of which turns
// a feature on: /compact, /context, @Name to start a child, a background
// shell's view, "!" commands, "@" completion, and /mcp (screens.MCPEngine,
// which the screen defines).
// The main package checks at compile time that session.Session implements
// every one (engine_check.go), so renaming a method cannot quietly turn a
// feature off.

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
	// as workspace.ErrNothingToUndo.
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

// Compacter is the optional part of an Engine that compacts the main
// agent's conversation on demand (/compact); focus steers the summary.
// The Compacted event it emits draws the divider.
type Compacter interface {
	Compact(ctx context.Context, focus string) (agent.Compacted, error)
}

// ContextEngine is implemented by an Engine that can break the main
// agent's context down (/context). Engines without it get the gauge's
// numbers alone.
type ContextEngine interface {
	ContextBreakdown() agent.ContextBreakdown
}

// ChildStarter is implemented by an Engine that starts a subagent at the
// user's word: of type agentType, with brief, as a background child of the
// main agent, whose report comes back like a background child's. It
// returns the child's name.
type ChildStarter interface {
	StartChild(agentType, brief string) (name string, err error)
}

// ShellReader is implemented by an Engine that runs background shells:
// all a shell's kept output, and how many bytes before it were cut. (Its
// pane's cancel key stops it through CancelChild.)
type ShellReader interface {
	ShellOutput(id string) (out string, cut int64, ok bool)
}

// ShellRunner is implemented by an Engine that runs the user's own shell
// commands ("!make test"): through the bash tool's gate and sandbox, shown
// as a bash call of the main agent, and told to the model in its next
// request.
type ShellRunner interface {
	RunUserShell(ctx context.Context, command string) error
}

// FileLister is implemented by an Engine that lists the workspace's files
// for the "@" completion: the visible files (.gitignore respected, as
// glob sees them), as slash paths relative to the workspace root.
type FileLister interface {
	WorkspaceFiles(ctx context.Context) ([]string, error)
}
