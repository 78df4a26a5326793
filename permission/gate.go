// Package permission is covey's permission gate: permission modes, the
// allow and deny rules of the config, session grants, and the Policy that
// answers each write, command or other guarded call from them, asking the
// user through an Asker when they do not decide. Tools ask the gate; the
// gate knows nothing of tools.
package permission

import (
	"context"

	"covey/tools/tool"
	"covey/tools/toolname"
)

// Gate is the permission check that every write and command passes first.
type Gate interface {
	Check(ctx context.Context, req Request) Verdict
}

// GateFunc adapts a function to Gate.
type GateFunc func(ctx context.Context, req Request) Verdict

// Check calls f.
func (f GateFunc) Check(ctx context.Context, req Request) Verdict { return f(ctx, req) }

// Request describes one write, command or other guarded call awaiting
// permission.
type Request struct {
	Tool    string      // write_file | edit_file | bash | read_file | web_fetch | mcp__<server>__<tool> | ...
	Path    string      // workspace-relative, for writes
	Command string      // for bash
	URL     string      // for web_fetch: rules match its host
	Dir     string      // working directory, for bash
	Change  *FileChange // the proposed change, for writes
	Content string      // the proposed new content, for writes
	// Server and ServerTool name an MCP call (the server as configured and
	// the tool as the server calls it); Args are its arguments as JSON.
	Server     string
	ServerTool string
	Args       string
	// Agent labels a request from a child ("[general-purpose] update
	// handlers"), and AgentID names it; both empty for the main agent.
	Agent   string
	AgentID string
	// Isolated marks a write that lands in a child's own git worktree, not
	// in the user's files: it is reviewed later as part of the child's
	// merge, so only deny rules stop it now.
	Isolated bool
	// Changes, for ToolMerge, are the files a child changed in its
	// worktree, proposed as one change to the user's files (Isolated: to
	// its parent's own worktree); Path then names the worktree's branch.
	Changes []FileChange
	// Attempts, for ToolPickAttempt, are the finished attempts of one
	// best-of-N task, to choose one from.
	Attempts []Attempt
	// Question, for ToolAskUser, is the question put to the user.
	Question *Question
	// Plan, for ToolExitPlanMode, is the plan presented (markdown).
	Plan string
}

// Attempt is one finished attempt of a best-of-N task, as the user
// choosing among them sees it.
type Attempt struct {
	Name    string // the child's name
	Status  string // how it ended (agent's State constants)
	Report  string // its final report
	Branch  string // its worktree's branch
	Changes []FileChange
	Tokens  int
	Cost    float64 // 0 when unpriced
	// Check is its check's outcome and diagnostics (nil: none).
	Check *tool.AttemptCheck
}

// AttemptCheck is an attempt's check and diagnostics (tool.AttemptCheck).
type AttemptCheck = tool.AttemptCheck

// ToolPickAttempt is the Request.Tool of the choice among the attempts
// of a best-of-N task. Nobody but the user makes it: every mode asks, and
// with nobody to ask it is refused (the attempts are then kept, or a
// judge picks).
const ToolPickAttempt = toolname.PickAttempt

// ToolMerge is the Request.Tool of a child's worktree proposed for merging
// into the user's files.
const ToolMerge = toolname.MergeWorktree

// Asker asks the user about one request (the TUI shows it inline). Ask
// returns when the user answers or ctx ends. An allowing Verdict may carry
// edited Content for a write; a refusing one may carry the user's feedback
// as Reason, which the model sees. A UI offering "allow for this session"
// calls Policy.Grant before answering.
type Asker interface {
	Ask(ctx context.Context, req Request) Verdict
}

// TurnWatcher is an Asker told when a request waits its turn behind one
// being asked (requests are put one at a time), so the user can see who
// waits instead of an agent that seems to run.
type TurnWatcher interface {
	// WaitingTurn says req waits its turn; done is called once it has
	// its turn or its ctx ended.
	WaitingTurn(ctx context.Context, req Request) (done func())
}

// Verdict is the gate's answer.
type Verdict struct {
	Allowed bool
	// Reason explains a refusal to the model (how to allow it, or the user's
	// feedback).
	Reason string
	// Content, when non-nil on an allowed write, replaces the proposed content
	// (the user edited it before allowing).
	Content *string
	// Files, on an allowed ToolMerge, are the paths the user chose to
	// apply; nil applies them all.
	Files []string
	// ByUser says the user answered (rather than the mode, a rule, or the
	// lack of anyone to ask). A merge the user refused is discarded; one
	// refused otherwise is kept for later.
	ByUser bool
	// Keep, on a refused ToolMerge, says the user chose to keep the change
	// on its branch for later rather than discard it.
	Keep bool
	// Dropped, on an allowed write or ToolMerge (or ToolPickAttempt), are
	// the hunks the user left out, by path (the write's Path, a merged
	// file's), numbered from 0 in the order the request's diff shows
	// them (diff.KeepHunks).
	Dropped map[string][]int
	// Note is what the user typed for the model with an allowed answer
	// that took part of a change.
	Note string
	// Attempt, on an allowed ToolPickAttempt, is the attempt chosen,
	// counted from 1.
	Attempt int
	// Answer, on an allowed ToolAskUser, is the user's answer: the labels
	// picked (one a line) or the text typed.
	Answer string
	// Mode, on an allowed ToolExitPlanMode, is the permission mode the
	// user chose to carry the plan out in (the UI has set it).
	Mode Mode
	// Granted, on an allowed answer that granted the like for the rest
	// of the session, are the rules the grant recorded (the session file
	// keeps them).
	Granted []string
}

// FileChange is a change to one file: what a write proposes (shown to the
// user who is asked) and, once made, what changed on disk. It is defined
// with the tool interface (a leaf) because it is also the Display of a
// write's tool result.
type FileChange = tool.FileChange
