// Package toolname is the one list of covey's tool names, used by every
// package that names a tool (tools, permission, agentdefs, subagent, ui,
// tests) instead of string literals. It imports nothing, so the permission
// gate (which tools imports) can use it too. A new tool adds its name here.
package toolname

// The tools' names as the model sees them.
const (
	ReadFile  = "read_file"
	ListDir   = "list_dir"
	Glob      = "glob"
	Grep      = "grep"
	WriteFile = "write_file"
	EditFile  = "edit_file"
	Bash      = "bash"
	// BashOutput and KillShell read and stop bash's background shells;
	// an agent offered bash gets them with it.
	BashOutput = "bash_output"
	KillShell  = "kill_shell"
	TodoWrite  = "todo_write"
	WebFetch   = "web_fetch"
	// LSP asks the language servers (definition, references, rename, ...);
	// offered when a server is configured or found on PATH.
	LSP = "lsp"
	// WebSearch searches the web through the configured backend; offered
	// only when one is configured.
	WebSearch = "web_search"
	// Task is the subagent tool (package subagent implements it); children
	// get it only when their definition names it.
	Task = "task"
	// SendMessage and StopAgent are the crew tools: a parent messages or
	// stops one of its children by handle.
	SendMessage = "send_message"
	StopAgent   = "stop_agent"
	// CrewStatus is the crew tool that reports each child's live state.
	CrewStatus = "crew_status"
	// Skill loads a skill's instructions (package skills implements it).
	Skill = "skill"
	// MergeWorktree is no tool the model calls: it names the permission
	// request that merges an isolated child's worktree.
	MergeWorktree = "merge_worktree"
	// PickAttempt is no tool either: it names the choice among the
	// finished attempts of a best-of-N task.
	PickAttempt = "pick_attempt"
	// AskUser puts a question to the user (with options to pick from, or
	// a free answer) and returns the answer.
	AskUser = "ask_user"
	// ExitPlanMode presents the plan made in plan mode for the user's
	// approval.
	ExitPlanMode = "exit_plan_mode"
)

// MCPPrefix starts the name of every tool an MCP server provides
// (mcp__server__tool).
const MCPPrefix = "mcp__"

// Base returns the built-in tools every agent may be offered, in the order
// they are offered (a fresh slice the caller may change). Task is added by
// the subagent package.
func Base() []string {
	return []string{ReadFile, ListDir, Glob, Grep, WriteFile, EditFile, Bash, TodoWrite}
}

// All returns the base tools plus web_fetch, web_search, lsp and task: the
// built-in names an agent definition's tool list may use.
func All() []string { return append(Base(), WebFetch, WebSearch, LSP, Task) }
