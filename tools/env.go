package tools

import (
	"covey/lsp"
	"covey/permission"
	"covey/sandbox"
	"covey/tools/tool"
	"covey/tools/workspace"
)

// Env is what one agent's set of tools shares: the workspace, the agent's own
// record of the files it read (for stale-edit checks), the permission gate and
// the write allowlist of its definition. Each agent gets its own Env; the
// Workspace and Locks are shared by all agents of a session.
type Env struct {
	WS *workspace.Workspace
	// NoImages says the model takes no images: read_file refuses an image
	// with a message saying so instead of returning it.
	NoImages bool
	// Reads records the content hash of every file this agent read, so a
	// write can tell whether the file changed underneath since.
	Reads *workspace.ReadTracker
	// Locks serialises writes to one file across agents.
	Locks *workspace.FileLocks
	// Gate decides whether a write or command may proceed. Nil allows all.
	Gate permission.Gate
	// AllowedPaths, when non-empty, are doublestar globs (workspace-relative)
	// outside which this agent's writes are refused.
	AllowedPaths []string
	// Todos receives the task list written by todo_write. May be nil.
	Todos *TodoList
	// Undo keeps each file's content before a turn first changes it, for
	// /undo. Nil keeps nothing.
	Undo *workspace.UndoLog
	// AllowRead decides whether a reading tool may read a path, inside the
	// workspace or not (Policy.AllowRead: symlinks resolved, read deny rules,
	// read_file allow rules, bypass). Nil allows every read.
	AllowRead func(abs string) bool
	// AllowFound decides whether a search (grep) may read a file it found
	// walking a folder that is its own real path, without following
	// symlinked folders (Policy.AllowReadFound, cheaper than AllowRead).
	// Nil uses AllowRead.
	AllowFound func(abs string) bool
	// Sandbox confines the commands bash runs (nil runs them unconfined).
	Sandbox *sandbox.Sandbox
	// OnRead, when set, is called with the path of each file read_file
	// read; what it returns (memory files of the file's folder that join
	// the agent's context, once) is appended to the result.
	OnRead func(abs string) string
	// Temps lists the temporary files of atomic writes, so the next covey
	// removes those a killed one left (SweepTemps). Nil lists nothing.
	Temps *workspace.TempJournal
	// Shells runs the session's background shells (bash with
	// run_in_background); nil offers none. Agent and AgentDepth are the
	// AgentID and depth of the agent these tools serve, the owner of the
	// shells it starts.
	Shells     *Shells
	Agent      string
	AgentDepth int
	// LSP runs the language servers: write_file and edit_file append the
	// file's diagnostics after the change, and the lsp tool asks them.
	// Nil runs none.
	LSP *lsp.Manager
}

// resolveRead resolves p for reading: only what AllowRead permits. The
// workspace is no exception: a symlink in it may lead outside, and a read
// deny rule may cover a file in it.
func (e *Env) resolveRead(toolName, p string) (string, *tool.Result) {
	abs := e.WS.Resolve(p)
	if e.AllowRead == nil || e.AllowRead(abs) {
		return abs, nil
	}
	if e.WS.Contains(abs) {
		r := tool.Errorf("%s: reading %s is not allowed: a read_file deny rule covers it, it leads outside the workspace through a symlink, "+
			"or this agent may not read it; ask the user if you need it", toolName, p)
		return "", &r
	}
	r := tool.Errorf("%s: %s is outside the workspace, and reading there needs permission: add a rule such as \"read_file(%s)\" to permissions.allow in .covey/config.yaml", toolName, p, abs)
	return "", &r
}

// readableFound reports whether a file found under the search root may be
// read; rootIsReal says the root is its own real path, so the file's
// folders are not symlinks.
func (e *Env) readableFound(abs string, rootIsReal bool) bool {
	switch {
	case e.AllowRead == nil && e.AllowFound == nil:
		return true
	case rootIsReal && e.AllowFound != nil:
		return e.AllowFound(abs)
	case e.AllowRead != nil:
		return e.AllowRead(abs)
	}
	return false
}
