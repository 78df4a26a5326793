package tools

import "context"

// Env is what one agent's set of tools shares: the workspace, the agent's own
// record of the files it read (for stale-edit checks), the permission gate and
// the write allowlist of its definition. Each agent gets its own Env; the
// Workspace and Locks are shared by all agents of a session.
type Env struct {
	WS *Workspace
	// Reads records the content hash of every file this agent read, so a
	// write can tell whether the file changed underneath since.
	Reads *ReadTracker
	// Locks serialises writes to one file across agents.
	Locks *FileLocks
	// Gate decides whether a write or command may proceed. Nil allows all.
	Gate Gate
	// AllowedPaths, when non-empty, are doublestar globs (workspace-relative)
	// outside which this agent's writes are refused.
	AllowedPaths []string
	// Todos receives the task list written by todo_write. May be nil.
	Todos *TodoList
	// Undo keeps each file's content before a turn first changes it, for
	// /undo. Nil keeps nothing.
	Undo *UndoLog
	// AllowRead decides whether a path outside the workspace may be read
	// (Policy.AllowRead: a read_file rule or bypass). Nil allows every read.
	AllowRead func(abs string) bool
}

// resolveRead resolves p for reading: anything inside the workspace, and
// outside only what AllowRead permits.
func (e *Env) resolveRead(tool, p string) (string, *Result) {
	abs := e.WS.Resolve(p)
	if e.AllowRead == nil || e.WS.Contains(abs) || e.AllowRead(abs) {
		return abs, nil
	}
	r := Errorf("%s: %s is outside the workspace, and reading there needs permission: add a rule such as \"read_file(%s)\" to permissions.allow in .covey/config.yaml", tool, p, abs)
	return "", &r
}

// Gate is the permission check that every write and command passes first.
type Gate interface {
	Check(ctx context.Context, req Request) Verdict
}

// Request describes one write or command awaiting permission.
type Request struct {
	Tool    string      // write_file | edit_file | bash
	Path    string      // workspace-relative, for writes
	Command string      // for bash
	Dir     string      // working directory, for bash
	Change  *FileChange // the proposed change, for writes
	Content string      // the proposed new content, for writes
	// Agent labels a request from a child ("[general-purpose] update
	// handlers"), and AgentID names it; both empty for the main agent.
	Agent   string
	AgentID string
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
}

// GateFunc adapts a function to Gate.
type GateFunc func(ctx context.Context, req Request) Verdict

// Check calls f.
func (f GateFunc) Check(ctx context.Context, req Request) Verdict { return f(ctx, req) }
