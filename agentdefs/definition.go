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
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"covey/hooks"
	"covey/tools/toolname"
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

// BaseTools returns covey's base tool names in their canonical order: the
// tools every agent may be given, excluding web_fetch and task
// (toolname.Base).
func BaseTools() []string { return toolname.Base() }

// allTools is the base set plus web_fetch and task: the universe a
// definition's tool lists may name, and the set ReadOnly is derived against.
func allTools() []string { return toolname.All() }

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
	// MaxTokens caps the child's lifetime tokens (input + output) and
	// MaxCost its cost by the configured price table; at the limit it stops
	// like at MaxTurns. 0 means the configured default (subagents:).
	MaxTokens int
	MaxCost   float64
	// AllowedPaths are doublestar globs (workspace-relative) outside which
	// the child's writes are refused; nil means no limit.
	AllowedPaths []string
	// ToolRules limit tools to what their patterns allow, from entries such
	// as Bash(git diff:*) or Edit(docs/**) in the tools list: the child gets
	// the tool, but a call no rule of that tool matches is never allowed
	// without asking the user (refused when nobody can be asked).
	ToolRules []ToolRule
	// DenyRules are patterns from disallowedTools (Bash(rm:*)): calls they
	// match are refused, like the config's deny rules, for this agent only.
	DenyRules []ToolRule
	// SpawnTypes limits the subagent types this agent's task tool may
	// start, from Agent(a, b) or Task(a, b); nil means any type.
	SpawnTypes []string
	// PermissionMode is the child's permission mode (Claude Code's
	// permissionMode: default, acceptEdits, plan, bypassPermissions or
	// dontAsk); "" means the session's. It never makes a child more
	// permissive than the session unless config allows it.
	PermissionMode string
	// Isolation is "" (the child works in the user's workspace) or
	// IsolationWorktree (it works in its own git worktree, and its changes
	// come back as one reviewed merge).
	Isolation string
	// Background is true when the child should always run in the
	// background.
	Background bool
	// MCPServers names the MCP servers (from the session's config) this
	// agent may use; nil means those of the session.
	MCPServers []string
	// Skills names the skills (SKILL.md folders) this agent gets through
	// its skill tool; nil: none (a child does not inherit its parent's).
	Skills []string
	// Color is the colour of the child's pane header, one of Colors (Claude
	// Code's palette), which the UI maps onto the theme.
	Color string
	// Hooks are the file's own hooks (Claude Code's hooks: key, the shape
	// of settings.json): they run for this agent's children only, on top
	// of the session's.
	Hooks hooks.Config
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

// ToolRule is one entry such as Bash(git diff:*) in a tools list: a
// permission rule (the rule syntax of config's permissions.allow) that holds
// for this agent only.
type ToolRule struct {
	// Tool is the covey tool the rule governs (bash, edit_file, write_file,
	// read_file).
	Tool string `json:"tool"`
	// Pattern is what is inside the parentheses.
	Pattern string `json:"pattern"`
	// Source is the entry as written, e.g. "Bash(git diff:*)"; it parses as
	// a rule of config's permissions.allow.
	Source string `json:"source"`
}

// RulesFor returns the Sources of d's rules for tool, nil when it has none
// (the tool is not limited by rules).
func (d Definition) RulesFor(tool string) []string {
	var out []string
	for _, r := range d.ToolRules {
		if r.Tool == tool || (tool == toolname.WriteFile && r.Tool == toolname.EditFile) || (tool == toolname.EditFile && r.Tool == toolname.WriteFile) {
			out = append(out, r.Source)
		}
	}
	return out
}

// RuleSources returns the tool rules as written ("Bash(git diff:*)"), the
// allow patterns permission.Policy.Scoped takes; nil when there are none.
func (d Definition) RuleSources() []string { return sources(d.ToolRules) }

// DenySources returns the deny rules as written, the deny patterns
// permission.Policy.Scoped takes; nil when there are none.
func (d Definition) DenySources() []string { return sources(d.DenyRules) }

func sources(rules []ToolRule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Source)
	}
	return out
}

// Colors returns the colour names an agent file may give (Claude Code's
// palette); the UI maps each onto a colour of its theme.
func Colors() []string {
	return []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}
}

// PermissionModes returns the permission modes a definition may ask for,
// from least to most permissive. dontAsk (Claude Code's) refuses whatever
// would need asking.
func PermissionModes() []string {
	return []string{"plan", "dontAsk", "default", "acceptEdits", "bypassPermissions"}
}

// SourceBuiltIn is the Source of every built-in definition.
const SourceBuiltIn = "built-in"

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
	// An MCP tool may write anything, so naming one is not read-only.
	mcp := slices.ContainsFunc(d.Tools, func(t string) bool { return strings.HasPrefix(t, "mcp__") })
	d.ReadOnly = !mcp && isReadOnly(EffectiveTools(d, allTools()))
	return d
}

func isReadOnly(tools []string) bool {
	for _, t := range tools {
		switch t {
		case toolname.WriteFile, toolname.EditFile, toolname.Bash:
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
	// Field is the frontmatter key at fault, "" when none is.
	Field string `json:"field,omitempty"`
	// Warning is true when the definition still loaded despite the problem.
	Warning bool `json:"warning"`
	// Quiet marks what Claude Code accepts without a word (a key or a
	// tool covey has no use for): the file loads, and the note goes to
	// the --debug log only, never to the user's screen.
	Quiet bool `json:"quiet,omitempty"`
}

// Loud returns the problems the user is told about: all but the quiet
// ones (what Claude Code accepts without a word, for --debug only).
func Loud(problems []Problem) []Problem {
	out := make([]Problem, 0, len(problems))
	for _, p := range problems {
		if !p.Quiet {
			out = append(out, p)
		}
	}
	return out
}

// Error returns "path:line: field: message", or without the line when it
// is unknown (the form editors and terminals turn into links); the field
// is left out when the message starts with it.
func (p Problem) Error() string {
	msg := p.Message
	if p.Field != "" && !strings.HasPrefix(msg, p.Field) {
		msg = p.Field + ": " + msg
	}
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, msg)
	}
	return fmt.Sprintf("%s: %s", p.Path, msg)
}

// maxNameLen is the length past which a name earns a warning: names end
// up in tool schemas and pane titles.
const maxNameLen = 64

// ValidName reports why name cannot name an agent, or nil when it can. Any
// text can, as in Claude Code ("Code Reviewer" included), except empty text
// and control characters, which would break the one-line places a name is
// shown.
func ValidName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("name is empty")
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return fmt.Errorf("name %q holds a control character or invalid text", name)
		}
	}
	return nil
}
