package agent

import (
	"encoding/json"
	"time"

	tools "covey/tools/tool" // the tool interface alone: no tool implementation is linked
)

// Source tags every event with the agent that produced it: the main agent
// (AgentID "main", no ParentCallID) or a child spawned by the task tool.
type Source struct {
	AgentID      string `json:"agent_id"`
	ParentCallID string `json:"parent_call_id,omitempty"` // the task call that spawned this child
	AgentType    string `json:"agent_type,omitempty"`     // "Explore", "general-purpose", ...
	Description  string `json:"description,omitempty"`    // the child's task description
	Depth        int    `json:"depth,omitempty"`          // 0 for the main agent
	// ParentID is the AgentID of the agent that spawned this child.
	ParentID string `json:"parent_id,omitempty"`
	// Name is a child's handle, unique among the session's children
	// ("scout"); send_message and stop_agent accept it as well as AgentID.
	Name string `json:"name,omitempty"`
	// NameIsDescription says Name was made from every meaningful word of
	// Description, so a header shows one of them, not both.
	NameIsDescription bool `json:"name_is_description,omitempty"`
}

// MainAgentID is the AgentID of the top-level agent.
const MainAgentID = "main"

// IsChild reports whether the event came from a subagent.
func (s Source) IsChild() bool { return s.Depth > 0 }

// Event is anything an agent reports while it runs. Consumers (the TUI,
// headless output, session files, tests) switch on the concrete type.
type Event interface {
	// From returns the agent that produced the event.
	From() Source
	// Kind is the event's stable name in stream-json and session files.
	Kind() string
}

// From implements Event for every event type that embeds Source.
func (s Source) From() Source { return s }

// TextDelta is a fragment of the assistant's answer.
type TextDelta struct {
	Source
	Text string `json:"text"`
}

// ReasoningDelta is a fragment of the model's thinking.
type ReasoningDelta struct {
	Source
	Text string `json:"text"`
}

// ToolStarted reports a tool call about to run.
type ToolStarted struct {
	Source
	CallID   string          `json:"call_id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args"`
	KeyArg   string          `json:"key_arg,omitempty"`
	ReadOnly bool            `json:"read_only"`
	// ByUser marks a command the user typed ("!command"), not the
	// model's call: the TUI shows all of its output.
	ByUser bool `json:"by_user,omitempty"`
}

// ToolFinished reports a tool call's outcome.
type ToolFinished struct {
	Source
	CallID   string        `json:"call_id"`
	Name     string        `json:"name"`
	KeyArg   string        `json:"key_arg,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Result   tools.Result  `json:"result"`
}

// UsageReported carries the tokens of one provider request.
type UsageReported struct {
	Source
	Usage Usage `json:"usage"`
}

// ContextReported tells how full an agent's context is: the tokens its
// next request will carry (see Agent.ContextFill) and its model's window
// (0: unknown), with where the window came from. The agent reports it after
// each model request's step, at the end of each run, and when it learns
// its window.
type ContextReported struct {
	Source
	Model      string `json:"model,omitempty"`
	Tokens     int    `json:"tokens"`
	Window     int    `json:"window,omitempty"`
	WindowFrom string `json:"window_from,omitempty"`
}

// TurnFinished marks the end of one model request and its tool calls.
type TurnFinished struct {
	Source
	Turn         int    `json:"turn"`
	FinishReason string `json:"finish_reason"`
}

// Retrying reports a failed request about to be retried.
type Retrying struct {
	Source
	Attempt int           `json:"attempt"`
	Wait    time.Duration `json:"wait_ns"`
	Reason  string        `json:"reason"`
}

// ErrorEvent reports an error that ends the run (it is followed by Done).
type ErrorEvent struct {
	Source
	Message string `json:"message"`
}

// Notice is news for the user that belongs to no turn: the session file
// cannot be written (a full disk), or can again. Consumers show it at once
// (the TUI as a notice, headless on stderr); it is not recorded.
type Notice struct {
	Source
	// Level is NoticeWarning or NoticeInfo.
	Level   string `json:"level"`
	Message string `json:"message"`
}

// Levels of a Notice.
const (
	NoticeWarning = "warning"
	NoticeInfo    = "info"
)

// Stop reasons of Done and ChildFinished.
const (
	StopOK        = "ok"
	StopError     = "error"
	StopCancelled = "cancelled"
	StopTimeout   = "timeout"
	StopMaxTurns  = "max_turns"
	// StopBudget ends a child that reached its token or cost budget.
	StopBudget = "budget"
	// StopLength and StopContentFilter keep an answer the provider cut
	// off (finish_reason "length" or "content_filter"); CutOffNote says
	// what happened in words.
	StopLength        = "length"
	StopContentFilter = "content_filter"
)

// CutOffNote is what to tell the user about an answer the provider cut off
// (reason StopLength or StopContentFilter); "" for any other reason.
func CutOffNote(reason string) string {
	switch reason {
	case StopLength:
		return "cut off: the model hit its output limit"
	case StopContentFilter:
		return "stopped by the provider's content filter"
	case StopRefusal:
		return "the model refused to answer"
	case StopPaused:
		return "the provider paused the turn (pause_turn): send a message to go on"
	}
	return ""
}

// Done is the last event of one Run.
type Done struct {
	Source
	Answer string `json:"answer"`
	Reason string `json:"reason"` // one of the Stop constants
	Error  string `json:"error,omitempty"`
	Usage  Usage  `json:"usage"` // this run's total
	Turns  int    `json:"turns"`
}

// ChildStarted reports a subagent that began work.
type ChildStarted struct {
	Source
	Model string `json:"model"`
	// Background is set when the parent's task call returned at once.
	Background bool `json:"background,omitempty"`
	// MaxTokens and MaxCost are the child's budgets (0: none). Cost is in
	// the unit of the configured price table (per million tokens).
	MaxTokens int     `json:"max_tokens,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
	// Worktree is set when the child works in its own git worktree.
	Worktree *WorktreeInfo `json:"worktree,omitempty"`
	// Color is the colour its agent file gives its pane header (one of
	// Claude Code's names: red, blue, green, yellow, purple, orange, pink,
	// cyan), "" for the theme's.
	Color string `json:"color,omitempty"`
	// Prompt is the brief its parent gave it: the first thing its own
	// transcript shows.
	Prompt string `json:"prompt,omitempty"`
	// Forked is set when it starts from its parent's conversation so far
	// instead of a clean history.
	Forked bool `json:"forked,omitempty"`
	// Attempt and Attempts number it among the children of a best-of-N
	// task (attempt 2 of 3); 0 for any other child.
	Attempt  int `json:"attempt,omitempty"`
	Attempts int `json:"attempts,omitempty"`
}

// WorktreeInfo says where an isolated child works and what it started from.
type WorktreeInfo struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
	// Base says in words what the worktree started from: "HEAD 1a2b3c4 +
	// your uncommitted changes (2 files)".
	Base string `json:"base"`
}

// Outcomes of a WorktreeResult.
const (
	WorktreeApplied   = "applied"   // merged onto the user's files; worktree removed
	WorktreeDiscarded = "discarded" // the user said no; worktree removed
	WorktreeKept      = "kept"      // not applied (nobody could be asked, or the turn was cancelled): worktree and branch kept
	WorktreeConflict  = "conflict"  // the merge conflicts: nothing applied, worktree and branch kept
	WorktreeUnchanged = "unchanged" // the child changed nothing; worktree removed
)

// WorktreeResult reports what became of an isolated child's changes once it
// finished: applied, discarded, kept or in conflict (Source is the child).
type WorktreeResult struct {
	Source
	Status string `json:"status"` // one of the Worktree outcome constants
	Path   string `json:"path"`
	Branch string `json:"branch"`
	// Commit holds the child's changes on Branch when they were kept.
	Commit string `json:"commit,omitempty"`
	// Files are the files applied (applied) or changed (otherwise);
	// Skipped the ones the user chose not to apply; Conflicts the ones
	// that did not merge. All relative to the workspace.
	Files     []string `json:"files,omitempty"`
	Skipped   []string `json:"skipped,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"`
	// Message says it in a sentence, naming the kept branch and folder.
	Message string `json:"message"`
	// Check is an attempt of a best-of-N task's check and diagnostics
	// (nil for other children, or when nothing was checked).
	Check *tools.AttemptCheck `json:"check,omitempty"`
}

// States of ChildState: where a child is in its life.
const (
	StateQueued      = "queued"
	StateRunning     = "running"
	StatePaused      = "paused"
	StateDone        = "done"
	StateFailed      = "failed"
	StateCancelled   = "cancelled"
	StateCutShort    = "cut_short"
	StateInterrupted = "interrupted"
)

// DetailResumed is the Detail of the ChildState that starts the run of a
// finished child resumed by a message.
const DetailResumed = "resumed by a message"

// ChildState reports a change in a child's state: queued, running, paused,
// moved to the background, or one of the final states. It is emitted on
// every change (ChildStarted and ChildFinished still bracket the child).
type ChildState struct {
	Source
	State      string `json:"state"` // one of the State constants
	Background bool   `json:"background,omitempty"`
	Paused     bool   `json:"paused,omitempty"`
	// Detail says why, in a few words ("max tokens", "resumed by a message").
	Detail string `json:"detail,omitempty"`
	// Elapsed is the child's working time so far, without time paused or
	// queued; while running, consumers add the time since this event.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// ChildMessage is a message from the user or the parent delivered into a
// child's conversation as a user-role message (Source is the child).
type ChildMessage struct {
	Source
	Text string `json:"text"`
}

// BackgroundResult is a background child's outcome, delivered to its parent
// as a user-role message (Source is the parent). For the main agent it
// starts a turn when the agent was idle.
type BackgroundResult struct {
	Source
	ChildID string `json:"child_id"`
	Name    string `json:"name"`
	Status  string `json:"status"` // a final State: done, failed, cut_short, cancelled
	Text    string `json:"text"`
}

// FileChange is one file a child changed, as git status saw it.
type FileChange struct {
	Path string `json:"path"` // relative to the workspace root
	// Status is "added", "modified", "deleted" or "renamed".
	Status string `json:"status"`
	// Added and Removed are lines against HEAD, when git could count them.
	Added   int `json:"added,omitempty"`
	Removed int `json:"removed,omitempty"`
	// Diff is the file's unified diff against HEAD (a new file's whole
	// content), when git could make one of text within maxFileDiff.
	Diff string `json:"diff,omitempty"`
}

// ChildFiles reports files a child's bash call changed (a before/after look
// at git status; write and edit show in their ToolFinished). Each event is
// one call's changes; consumers accumulate them per child.
type ChildFiles struct {
	Source
	CallID string       `json:"call_id,omitempty"`
	Files  []FileChange `json:"files"`
}

// ChildFinished reports a subagent that ended.
type ChildFinished struct {
	Source
	Reason    string        `json:"reason"` // one of the Stop constants
	Error     string        `json:"error,omitempty"`
	ToolCalls int           `json:"tool_calls"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	Usage     Usage         `json:"usage"`
	Summary   string        `json:"summary,omitempty"` // first line of its answer
}

// Collision reports that an agent (Source) wrote a file that another agent
// still at work in the same tree read or wrote during its task, or that
// the paths two running children declared they will touch overlap
// (Action "declared"; Path then lists the overlapping pairs).
type Collision struct {
	Source
	CallID   string        `json:"call_id,omitempty"`
	Path     string        `json:"path"` // workspace-relative
	WithID   string        `json:"with_id"`
	WithName string        `json:"with_name"` // "scout (explore-2)", "the main agent"
	Action   string        `json:"action"`    // what the other agent did: read, wrote, declared
	Ago      time.Duration `json:"ago_ns,omitempty"`
}

// ApprovalAsked is a question put to the user on an agent's behalf: a
// permission request (a write, a command, a merge, a choice among
// attempts, a trust question) or the model's own question (ask_user) or
// plan (exit_plan_mode). The session journals it (and its answer) in the
// session file without streaming it: the live TUI shows the request
// itself. A resumed or replayed session draws it where it was asked, and
// the crew report's timeline shows the wait as a gap.
type ApprovalAsked struct {
	Source
	// ID pairs it with its ApprovalAnswered (unique within a run).
	ID   int64  `json:"id"`
	Tool string `json:"tool"` // the request's tool: write_file, bash, ask_user, ...
	// Question is set for the model's questions and plans (ask_user,
	// exit_plan_mode): the user was asked, not asked to allow.
	Question bool `json:"question,omitempty"`
	// Summary is the request in one line: the command, the path, the
	// question.
	Summary string `json:"summary,omitempty"`
	// Request is the whole request as the permission package encodes it
	// (diffs bounded), for a consumer that draws it as it was shown.
	Request json.RawMessage `json:"request,omitempty"`
}

// ApprovalAnswered is the answer to the ApprovalAsked of the same ID.
type ApprovalAnswered struct {
	Source
	ID      int64  `json:"id"`
	Tool    string `json:"tool"`
	Allowed bool   `json:"allowed"`
	// Outcome says how: allowed, session (allowed for the session),
	// edited (allowed with the user's edits), denied, kept (a merge kept
	// for later), cancelled (withdrawn before an answer: the turn ended).
	Outcome string `json:"outcome"`
	// Detail is the user's answer to a question, the reason of a denial,
	// the note of a partial allow or the mode a plan runs in.
	Detail string `json:"detail,omitempty"`
}

// Outcomes of an ApprovalAnswered.
const (
	OutcomeAllowed   = "allowed"
	OutcomeSession   = "session"
	OutcomeEdited    = "edited"
	OutcomeDenied    = "denied"
	OutcomeKept      = "kept"
	OutcomeCancelled = "cancelled"
)

// Kind implements Event.
func (ApprovalAsked) Kind() string { return "approval_asked" }

// Kind implements Event.
func (ApprovalAnswered) Kind() string { return "approval_answered" }

// ShellType is the AgentType of a background shell (bash with
// run_in_background): a member of the crew like a child, whose Source
// has the shell's id as AgentID and Name, its command as Description, and
// the bash call that started it as ParentCallID. Its ChildStarted,
// ChildState and ChildFinished say when it started and how it ended
// (Summary "exit 0", "killed"); ShellOutput shows what it prints.
const ShellType = "shell"

// ShellOutput is a background shell's latest output: its last lines, sent
// at most a few times a second however fast it prints (Source is the
// shell).
type ShellOutput struct {
	Source
	// Lines are its last lines of output (at most 10).
	Lines []string `json:"lines"`
	// Bytes is everything it printed so far.
	Bytes int64 `json:"bytes"`
}

// Kind implements Event.
func (ShellOutput) Kind() string { return "shell_output" }

// ToolProgress reports progress of a running tool call (an MCP server's
// progress notification). It counts as activity of the agent.
type ToolProgress struct {
	Source
	CallID   string         `json:"call_id"`
	Name     string         `json:"name"`
	Progress tools.Progress `json:"progress"`
}

// MCPStatus reports a change of an MCP server: connected with its tools,
// failed (why, and its last stderr lines), or refreshed. Source is the
// main agent.
type MCPStatus struct {
	Source
	Server string `json:"server"`
	State  string `json:"state"` // starting | connected | failed | untrusted | stopped
	Tools  int    `json:"tools"`
	Error  string `json:"error,omitempty"`
	// Notes are renamed tools and similar things worth knowing.
	Notes []string `json:"notes,omitempty"`
}

// UserMessage is a message the user sent. The loop does not emit it (the
// UI shows what the user typed at once); it exists so a recorded session can
// be replayed into a transcript, and for consumers that want the prompts.
type UserMessage struct {
	Source
	Text string `json:"text"`
}

// Kind implements Event.
func (UserMessage) Kind() string { return "user" }

// HookRan reports what the user's hooks said that the user should see: a
// call or prompt they blocked, a Stop hook that made the agent go on, a
// hook that failed, a message a hook chose to show. Hooks that ran
// quietly report nothing (the --debug log has every run).
type HookRan struct {
	Source
	// Event is the hook event (PreToolUse, Stop, ...); Subject the call
	// or moment it ran for ("bash", "prompt").
	Event   string `json:"event"`
	Subject string `json:"subject,omitempty"`
	// Blocked: the call, prompt or stop was blocked; Halted: a hook said
	// continue false and the agent stopped.
	Blocked bool `json:"blocked,omitempty"`
	Halted  bool `json:"halted,omitempty"`
	// Error: a hook failed (it did not block anything).
	Error   bool   `json:"error,omitempty"`
	Message string `json:"message"`
}

// Kind implements Event.
func (HookRan) Kind() string { return "hook" }

// Kind implements Event.
func (TextDelta) Kind() string { return "text" }

// Kind implements Event.
func (ReasoningDelta) Kind() string { return "reasoning" }

// Kind implements Event.
func (ToolStarted) Kind() string { return "tool_started" }

// Kind implements Event.
func (ToolFinished) Kind() string { return "tool_finished" }

// Kind implements Event.
func (ToolProgress) Kind() string { return "tool_progress" }

// Kind implements Event.
func (MCPStatus) Kind() string { return "mcp_status" }

// Kind implements Event.
func (UsageReported) Kind() string { return "usage" }

// Kind implements Event.
func (TurnFinished) Kind() string { return "turn_finished" }

// Kind implements Event.
func (ContextReported) Kind() string { return "context" }

// Kind implements Event.
func (Retrying) Kind() string { return "retrying" }

// Kind implements Event.
func (ErrorEvent) Kind() string { return "error" }

// Kind implements Event.
func (Notice) Kind() string { return "notice" }

// Kind implements Event.
func (Done) Kind() string { return "done" }

// Kind implements Event.
func (ChildStarted) Kind() string { return "child_started" }

// Kind implements Event.
func (ChildFinished) Kind() string { return "child_finished" }

// Kind implements Event.
func (ChildState) Kind() string { return "child_state" }

// Kind implements Event.
func (ChildMessage) Kind() string { return "child_message" }

// Kind implements Event.
func (BackgroundResult) Kind() string {
	return "background_result"
}

// Kind implements Event.
func (ChildFiles) Kind() string { return "child_files" }

// Kind implements Event.
func (Collision) Kind() string { return "collision" }

// Kind implements Event.
func (WorktreeResult) Kind() string { return "worktree_result" }

// MarshalEvent encodes e as one JSON object with a "type" field, the form of
// stream-json output and session files.
func MarshalEvent(e Event) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	typ, _ := json.Marshal(e.Kind())
	if len(body) <= 2 {
		return []byte(`{"type":` + string(typ) + `}`), nil
	}
	out := make([]byte, 0, len(body)+len(typ)+10)
	out = append(out, `{"type":`...)
	out = append(out, typ...)
	out = append(out, ',')
	out = append(out, body[1:]...)
	return out, nil
}

// Emitter sends events to a consumer. It must be safe for concurrent use and
// must not block for long: the loop calls it on its hot path.
type Emitter func(Event)

// EndVerb words how a child ended, from its end state (StateDone, ...) or
// its stop reason (StopOK, ...), as the verb of a sentence about it:
// "finished", "was cancelled", "failed", "timed out", "was cut short". A
// cancelled or failed child is never said to have finished.
func EndVerb(how string) string {
	switch how {
	case StateDone, StopOK, "":
		return "finished"
	case StateCancelled:
		return "was cancelled"
	case StopTimeout:
		return "timed out"
	case StopMaxTurns:
		return "stopped at its turn limit"
	case StopBudget:
		return "stopped at its budget"
	case StateInterrupted:
		return "was interrupted"
	case StateCutShort, StopLength, StopContentFilter, StopRefusal, StopPaused:
		return "was cut short"
	}
	return "failed"
}
