// Package tools holds covey's built-in tools, the workspace they act on
// (paths, ignore rules) and the checks a write or command passes first.
// It knows nothing of agents or of the UI.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"covey/internal/excerpt"
	"covey/tools/toolname"

	"covey/permission"
)

// Tool is one capability offered to a model. Names and argument schemas are
// a contract: agent definitions, permission rules and users' scripts name them.
type Tool interface {
	// Name is the tool's stable name, e.g. "read_file".
	Name() string
	// Description tells the model when and how to use the tool.
	Description() string
	// Schema is the JSON schema of the tool's arguments.
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
}

// Errorf builds an error Result whose content and summary are the message.
func Errorf(format string, a ...any) Result {
	msg := fmt.Sprintf(format, a...)
	return Result{Content: "Error: " + msg, IsError: true, Summary: excerpt.Line(msg)}
}

// FileChange is the Display of write_file and edit_file results: what changed
// on disk, for inline diff review. It is the permission gate's type, so the
// same value shows a proposed write to the user who is asked.
type FileChange = permission.FileChange

// Todo is one item of the agent's task list.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"` // pending | in_progress | completed
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

// Source supplies tools that come and go while a session runs (MCP
// servers' tools join as each server connects). Tools must be cheap: it is
// called for every model request and every tool lookup.
type Source func() []Tool

// Registry is an ordered set of tools, looked up by name: fixed tools
// first, then the current tools of its sources. A fixed tool wins over a
// source's tool of the same name. Add and AddSource are for set-up; the
// lookups are safe for concurrent use once it is built.
type Registry struct {
	order   []string
	byName  map[string]Tool
	sources []Source
}

// NewRegistry returns a registry holding ts; a later tool of the same name
// replaces an earlier one.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range ts {
		r.Add(t)
	}
	return r
}

// Add registers t, replacing any tool of the same name.
func (r *Registry) Add(t Tool) {
	if _, ok := r.byName[t.Name()]; !ok {
		r.order = append(r.order, t.Name())
	}
	r.byName[t.Name()] = t
}

// AddSource adds a source of tools that change over time.
func (r *Registry) AddSource(src Source) {
	if src != nil {
		r.sources = append(r.sources, src)
	}
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	if t, ok := r.byName[name]; ok {
		return t, true
	}
	for _, src := range r.sources {
		for _, t := range src() {
			if t.Name() == name {
				return t, true
			}
		}
	}
	return nil, false
}

// Tools returns the fixed tools in registration order, then the sources'.
func (r *Registry) Tools() []Tool {
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n])
	}
	for _, src := range r.sources {
		for _, t := range src() {
			if _, fixed := r.byName[t.Name()]; !fixed {
				out = append(out, t)
			}
		}
	}
	return out
}

// Names returns the tool names, sorted.
func (r *Registry) Names() []string {
	var out []string
	for _, t := range r.Tools() {
		out = append(out, t.Name())
	}
	sort.Strings(out)
	return out
}

// Filter returns a registry holding only the tools keep accepts, in order;
// sources are filtered as they change.
func (r *Registry) Filter(keep func(Tool) bool) *Registry {
	out := NewRegistry()
	for _, n := range r.order {
		if t := r.byName[n]; keep(t) {
			out.Add(t)
		}
	}
	for _, src := range r.sources {
		out.AddSource(FilterSource(src, keep))
	}
	return out
}

// FilterSource returns a source holding the tools of src that keep accepts.
func FilterSource(src Source, keep func(Tool) bool) Source {
	return func() []Tool {
		var out []Tool
		for _, t := range src() {
			if keep(t) {
				out = append(out, t)
			}
		}
		return out
	}
}
