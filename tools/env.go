package tools

import "covey/permission"

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
	Gate permission.Gate
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
