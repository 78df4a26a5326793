// Package tools holds covey's built-in tools, the workspace they act on
// (paths, ignore rules) and the checks a write or command passes first.
// It knows nothing of agents or of the UI.
//
// What a tool is (Tool, Result, Registry, a call's progress) lives in the
// leaf package tools/tool, so the agent loop links no tool implementation;
// the names below are that package's, re-exported so the tools and their
// callers need not know the difference.
package tools

import (
	"context"
	"encoding/json"

	"covey/tools/tool"
)

// Tool is one capability offered to a model (see tool.Tool).
type Tool = tool.Tool

// Result is the outcome of one tool call (see tool.Result).
type Result = tool.Result

// FileChange is the Display of write_file and edit_file results: what
// changed on disk, for inline diff review. It is the permission gate's type
// too, so the same value shows a proposed write to the user who is asked.
type FileChange = tool.FileChange

// Todo is one item of the agent's task list.
type Todo = tool.Todo

// AttemptCheck is tool.AttemptCheck: an attempt's check and diagnostics.
type AttemptCheck = tool.AttemptCheck

// Source supplies tools that come and go while a session runs (see
// tool.Source).
type Source = tool.Source

// Registry is an ordered set of tools, looked up by name (see
// tool.Registry).
type Registry = tool.Registry

// Concurrent is implemented by tools that are not read-only but may still
// run alongside other calls of the same message (see tool.Concurrent).
type Concurrent = tool.Concurrent

// Progress is one progress report of a long-running call (see
// tool.Progress).
type Progress = tool.Progress

// Errorf builds an error Result whose content and summary are the message.
func Errorf(format string, a ...any) Result { return tool.Errorf(format, a...) }

// KeyArg returns the argument that best identifies a call for humans (see
// tool.KeyArg).
func KeyArg(name string, args json.RawMessage) string { return tool.KeyArg(name, args) }

// NewRegistry returns a registry holding ts; a later tool of the same name
// replaces an earlier one.
func NewRegistry(ts ...Tool) *Registry { return tool.NewRegistry(ts...) }

// FilterSource returns a source holding the tools of src that keep accepts.
func FilterSource(src Source, keep func(Tool) bool) Source { return tool.FilterSource(src, keep) }

// RunsConcurrently reports whether calls to t may run at the same time as
// other concurrent calls of one assistant message.
func RunsConcurrently(t Tool) bool { return tool.RunsConcurrently(t) }

// WithCallID returns ctx carrying the ID of the tool call being run.
func WithCallID(ctx context.Context, id string) context.Context { return tool.WithCallID(ctx, id) }

// CallID returns the tool call ID carried by ctx, or "".
func CallID(ctx context.Context) string { return tool.CallID(ctx) }

// WithProgress returns ctx carrying fn, which a tool calls through
// ReportProgress while it runs.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return tool.WithProgress(ctx, fn)
}

// ReportProgress hands p to the progress function ctx carries, if any.
func ReportProgress(ctx context.Context, p Progress) { tool.ReportProgress(ctx, p) }

// HardResultCap is the most any tool result may hold (see
// tool.HardResultCap).
const HardResultCap = tool.HardResultCap

// WithResultBudget returns ctx carrying the calling agent's budget for one
// tool result (see tool.WithResultBudget).
func WithResultBudget(ctx context.Context, bytes int) context.Context {
	return tool.WithResultBudget(ctx, bytes)
}

// ResultBudget returns the cap a tool applies to its result: def, lowered
// to the budget ctx carries (see tool.ResultBudget).
func ResultBudget(ctx context.Context, def int) int { return tool.ResultBudget(ctx, def) }

// SizedToWindow reports whether ctx's budget lowered a cap of def bytes
// (see tool.SizedToWindow).
func SizedToWindow(ctx context.Context, def int) bool { return tool.SizedToWindow(ctx, def) }
