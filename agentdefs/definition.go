// Package agentdefs says what each subagent type is: the built-in types
// (Explore, Plan, general-purpose) plus the definitions users write as
// markdown files with YAML frontmatter, in covey's own folders and in Claude
// Code's. It knows tool names only as strings, so it imports neither tools/
// nor agent/.
//
// A definition file looks like this (Claude Code's spellings, such as
// "tools: Read, Grep" and maxTurns, are accepted too):
//
//	---
//	name: code-reviewer
//	description: Reviews a diff for bugs; use after any change.
//	tools: [read_file, grep, glob]
//	model: inherit
//	max_turns: 10
//	timeout: 2m
//	---
//	You are a careful code reviewer. ...
//
// Files are read from <ProjectDir>/.covey/agents, <ProjectDir>/.claude/agents,
// <UserConfigDir>/agents and <HomeDir>/.claude/agents, in that order of
// precedence, above the built-ins.
package agentdefs

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Scope is where a definition comes from; a wider scope loses to a narrower
// one when two definitions share a name.
type Scope int

// The scopes, in increasing precedence.
const (
	// BuiltIn definitions ship with covey.
	BuiltIn Scope = iota
	// User definitions live in the user's config folders.
	User
	// Project definitions live in the workspace.
	Project
)

// String returns "built-in", "user" or "project".
func (s Scope) String() string {
	switch s {
	case BuiltIn:
		return "built-in"
	case User:
		return "user"
	case Project:
		return "project"
	}
	return fmt.Sprintf("scope(%d)", int(s))
}

// MarshalText encodes the scope as its String form, so JSON shows words.
func (s Scope) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Defaults applied when a definition leaves a limit at zero.
const (
	// DefaultMaxTurns is the model-call budget of a child whose definition
	// sets none.
	DefaultMaxTurns = 15
	// DefaultTimeout is the wall-clock budget of a child whose definition
	// sets none.
	DefaultTimeout = 5 * time.Minute
)

// Tool names this package knows. They mirror the tools package; keeping them
// as strings lets definitions be parsed and listed without building tools.
const (
	ToolReadFile  = "read_file"
	ToolListDir   = "list_dir"
	ToolGlob      = "glob"
	ToolGrep      = "grep"
	ToolWriteFile = "write_file"
	ToolEditFile  = "edit_file"
	ToolBash      = "bash"
	ToolTodoWrite = "todo_write"
	// ToolTask is the subagent tool; children get it only when their
	// definition names it, so nesting is opt-in.
	ToolTask = "task"
)

// BaseTools returns covey's base tool names in their canonical order: the
// tools every agent may be given, excluding task.
func BaseTools() []string {
	return []string{
		ToolReadFile, ToolListDir, ToolGlob, ToolGrep,
		ToolWriteFile, ToolEditFile, ToolBash, ToolTodoWrite,
	}
}

// allTools is the base set plus task: the universe a definition's tool
// lists may name, and the set ReadOnly is derived against.
func allTools() []string { return append(BaseTools(), ToolTask) }

// Definition describes one subagent type.
type Definition struct {
	// Name is the exact name the task tool's subagent_type must match.
	Name string
	// Description tells the parent model when to pick this type.
	Description string
	// Tools is an allowlist of covey tool names; nil means every base tool
	// except task, and an empty non-nil slice means no tools at all.
	Tools []string
	// DisallowedTools are removed from whatever Tools allows.
	DisallowedTools []string
	// Model is "inherit" (the default) or a model name; see ModelOrInherit.
	Model string
	// Provider is a provider profile name from config; "" is the default.
	Provider string
	// MaxTurns caps the child's model calls; 0 means DefaultMaxTurns.
	MaxTurns int
	// Timeout caps the child's wall-clock time; 0 means DefaultTimeout.
	Timeout time.Duration
	// AllowedPaths are doublestar globs (workspace-relative) outside which
	// the child's writes are refused; nil means no limit.
	AllowedPaths []string
	// Isolation is "" (the child works in the user's workspace) or
	// IsolationWorktree (it works in its own git worktree, and its changes
	// come back as one reviewed merge).
	Isolation string
	// Color is kept from Claude Code files; it is informational only.
	Color string
	// Prompt is the markdown body of the file: the child's system prompt.
	Prompt string
	// Source is "built-in" or the path of the file the definition came from.
	Source string
	// Scope is where the definition comes from.
	Scope Scope
	// ReadOnly is derived: the effective tool set holds none of write_file,
	// edit_file and bash. It is computed by Parse, Builtins and NewSet.
	ReadOnly bool
}

// IsolationWorktree is the Isolation of a child that works in its own git
// worktree (Claude Code's spelling).
const IsolationWorktree = "worktree"

// SourceBuiltIn is the Source of every built-in definition.
const SourceBuiltIn = "built-in"

// isClaudeModelAlias reports whether m (lower case) is one of Claude Code's
// model shorthands. covey talks to any OpenAI-compatible server, where these
// name no model, so they inherit the parent's model unless the user maps
// them in config (see ResolveModel).
func isClaudeModelAlias(m string) bool {
	return m == "haiku" || m == "sonnet" || m == "opus"
}

// ModelOrInherit reports the model this definition asks for. It returns
// ("", true) when the child should use its parent's model: for an empty
// model, "inherit", and Claude Code's aliases haiku, sonnet and opus (which
// name no model on an OpenAI-compatible server). Otherwise it returns the
// model name as written and false.
func (d Definition) ModelOrInherit() (string, bool) {
	m := strings.TrimSpace(d.Model)
	l := strings.ToLower(m)
	if l == "" || l == "inherit" || isClaudeModelAlias(l) {
		return "", true
	}
	return m, false
}

// ResolveModel returns the model a child of this type runs: aliases (from
// config, e.g. {"haiku": "qwen3-8b"}) are consulted first, with the model
// compared case-insensitively, so users can give Claude's shorthands a
// meaning; then ModelOrInherit decides between the written name and parent.
func (d Definition) ResolveModel(parent string, aliases map[string]string) string {
	m := strings.TrimSpace(d.Model)
	for k, v := range aliases {
		if v != "" && strings.EqualFold(k, m) {
			return v
		}
	}
	if name, inherit := d.ModelOrInherit(); !inherit {
		return name
	}
	return parent
}

// EffectiveMaxTurns returns MaxTurns, or DefaultMaxTurns when it is unset.
func (d Definition) EffectiveMaxTurns() int {
	if d.MaxTurns > 0 {
		return d.MaxTurns
	}
	return DefaultMaxTurns
}

// EffectiveTimeout returns Timeout, or DefaultTimeout when it is unset.
func (d Definition) EffectiveTimeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return DefaultTimeout
}

// withDerived returns d with ReadOnly recomputed from its tool lists.
func (d Definition) withDerived() Definition {
	d.ReadOnly = isReadOnly(EffectiveTools(d, allTools()))
	return d
}

func isReadOnly(tools []string) bool {
	for _, t := range tools {
		switch t {
		case ToolWriteFile, ToolEditFile, ToolBash:
			return false
		}
	}
	return true
}

// Problem is one thing wrong with a definition file. Warnings (an unknown
// key, a tool covey lacks) leave the definition loaded; other problems mean
// the file was skipped.
type Problem struct {
	// Path is the file (or folder) the problem is in.
	Path string `json:"path"`
	// Line is the 1-based line in Path, or 0 when unknown.
	Line int `json:"line"`
	// Message says what is wrong, in words a user can act on.
	Message string `json:"message"`
	// Warning is true when the definition still loaded despite the problem.
	Warning bool `json:"warning"`
}

// Error returns "path:line: message", or "path: message" when the line is
// unknown, the form editors and terminals turn into links.
func (p Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Message)
}

// maxNameLen bounds names, which end up in tool schemas and pane titles.
const maxNameLen = 64

// namePattern is identifier-ish: letters, digits, '-', '_', '.', ':' (Claude
// plugin agents use "plugin:agent"), starting with a letter or digit. No
// spaces or slashes, so a name is one token in a tool call and a path.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

// ValidName reports why name cannot name an agent, or nil when it can.
func ValidName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("name is empty")
	case len(name) > maxNameLen:
		return fmt.Errorf("name %q is longer than %d characters", name, maxNameLen)
	case !namePattern.MatchString(name):
		return fmt.Errorf("name %q is not valid: use letters, digits, '-', '_', '.' or ':', starting with a letter or digit", name)
	}
	return nil
}
