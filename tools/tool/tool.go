// Package tool is what a tool is to the code that runs one: the Tool
// interface, its Result, the Registry an agent is offered, the values a
// call's context carries (its call ID, its progress function), and
// ArgsSchema, which makes a tool's schema from its arguments' struct. It is
// a leaf (it imports only the tool names, a text helper and the JSON schema
// library), so the agent loop, the session file, the debug log and the UI
// can know tools without linking their implementations: the shell parser,
// the sandbox, the HTML converter. The built-in tools live in package
// tools.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"covey/internal/excerpt"
	"covey/tools/toolname"
)

// Tool is one capability offered to a model. Names and argument schemas are
// a contract: agent definitions, permission rules and users' scripts name them.
type Tool interface {
	// Name is the tool's stable name, e.g. "read_file".
	Name() string
	// Description tells the model when and how to use the tool.
	Description() string
	// Schema is the JSON schema of the tool's arguments. It may be shared
	// between calls: callers must not change it.
	Schema() map[string]any
	// ReadOnly reports whether the tool never changes the workspace or runs
	// commands; read-only calls of one message may run concurrently.
	ReadOnly() bool
	// Run executes one call. Failures are reported in the Result (IsError),
	// never as a panic; Run honours ctx cancellation promptly.
	Run(ctx context.Context, args json.RawMessage) Result
}

// Result is the outcome of one tool call.
type Result struct {
	// Content is exactly what the model sees as the tool result.
	Content string `json:"content"`
	// IsError marks a failed call; Content then explains the failure.
	IsError bool `json:"is_error,omitempty"`
	// Summary is one short line for progress displays ("42 lines", "exit 0").
	Summary string `json:"summary,omitempty"`
	// Display carries structured data for UIs: *FileChange for edits and
	// writes, []Todo for todo_write. Nil for most tools.
	Display any `json:"display,omitempty"`
	// Final, when not empty, ends the agent's run after this step with
	// Final as its answer, the model not asked again (exit_plan_mode's
	// plan, where nobody approves it: a child's report, a headless
	// run's output).
	Final string `json:"final,omitempty"`
	// Images are images the result gives the model (read_file of an
	// image); Content then describes them in a line each.
	Images []Image `json:"images,omitempty"`
}

// ExitSummary is the Summary of a command that exited with code: "exit 0".
// A non-zero exit is no tool failure (the model ran the command to learn
// what it says) but no success either: ExitCode reads it back for a UI.
func ExitSummary(code int) string { return "exit " + strconv.Itoa(code) }

// ExitCode reads the exit code out of a Summary made by ExitSummary; ok is
// false for any other summary.
func ExitCode(summary string) (code int, ok bool) {
	rest, found := strings.CutPrefix(summary, "exit ")
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// Failed reports whether r is a failure to show as one: an error, or a
// command's non-zero exit.
func Failed(r Result) bool {
	code, ok := ExitCode(r.Summary)
	return r.IsError || (ok && code != 0)
}

// Errorf builds an error Result whose content and summary are the message.
func Errorf(format string, a ...any) Result {
	msg := fmt.Sprintf(format, a...)
	return Result{Content: "Error: " + msg, IsError: true, Summary: excerpt.Line(msg)}
}

// FileChange is a change to one file: what a write proposes (shown to the
// user who is asked) and, once made, what changed on disk. It is the Display
// of write_file and edit_file results, and the permission gate's type too
// (permission.FileChange), so the same value shows a proposed write to the
// user who is asked.
type FileChange struct {
	Path    string `json:"path"`    // workspace-relative
	Created bool   `json:"created"` // the file did not exist before
	Diff    string `json:"diff"`    // unified diff, "--- a/p" / "+++ b/p" headers
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Todo is one item of the agent's task list. Its jsonschema and enum tags
// make todo_write's schema of an item (see package tools).
type Todo struct {
	Content string `json:"content" jsonschema:"What to do, imperative."`
	Status  string `json:"status" enum:"pending,in_progress,completed"`
}

// KeyArg returns the argument that best identifies a call for humans: the
// path, pattern or command, the child a crew tool reaches. It tolerates
// malformed JSON.
func KeyArg(name string, args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	if name == toolname.SendMessage || name == toolname.StopAgent {
		// The child it reaches, by name or id.
		if v, ok := m["to"].(string); ok && v != "" {
			return v
		}
	}
	for _, k := range []string{"path", "pattern", "command", "url", "description", "subagent_type"} {
		if v, ok := m[k].(string); ok && v != "" {
			if k == "command" {
				return excerpt.Line(v)
			}
			return v
		}
	}
	if name == toolname.TodoWrite {
		if todos, ok := m["todos"].([]any); ok {
			return countOf(len(todos), "item", "items")
		}
	}
	if tasks, ok := m["tasks"].([]any); ok {
		return countOf(len(tasks), "task", "tasks")
	}
	return ""
}

// countOf says n things with the right noun: "1 item", "3 items".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
