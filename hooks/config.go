// Package hooks runs the user's hook commands at the moments Claude Code
// defines (PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStart,
// SubagentStop, PreCompact, SessionStart, SessionEnd, Notification), in
// Claude Code's file format and with its stdin, exit codes and JSON output,
// so a Claude Code user's hooks work in covey unchanged.
//
// Hooks come from Claude Code's settings files (~/.claude/settings.json,
// .claude/settings.json, .claude/settings.local.json), from covey's config
// (hooks:, same shape) and from agent files' frontmatter. Project hooks come
// with the repository: the session runs them only once the user trusts
// them (see Set.ProjectHash). The package imports no other part of covey
// but the permission gate and the tool names, so the agent loop, the
// subagent manager and the session can all call it.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"crypto/sha256"
	"encoding/hex"

	"covey/internal/safefile"
)

// The events hooks run at, spelled as Claude Code spells them.
const (
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	SubagentStart    = "SubagentStart"
	SubagentStop     = "SubagentStop"
	PreCompact       = "PreCompact"
	SessionStart     = "SessionStart"
	SessionEnd       = "SessionEnd"
	Notification     = "Notification"
	// PostToolUseFailure runs after a call that failed (PostToolUse after
	// one that did not).
	PostToolUseFailure = "PostToolUseFailure"
	// PermissionRequest runs when the permission gate is about to ask the
	// user about a call.
	PermissionRequest = "PermissionRequest"
)

// Events lists every event covey runs hooks at.
func Events() []string {
	return []string{PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStart, SubagentStop,
		PreCompact, SessionStart, SessionEnd, Notification}
}

// acceptedEvents are Claude Code's other hook events: moments covey has
// no counterpart of (yet). A file naming them is valid, as it is for
// Claude Code; their hooks are read and never run (Quiet lists them).
var acceptedEvents = []string{"PostToolBatch", "PermissionDenied", "UserPromptExpansion", "StopFailure", "PostCompact",
	"Elicitation", "ElicitationResult", "TeammateIdle", "TaskCreated", "TaskCompleted", "Setup", "InstructionsLoaded",
	"CwdChanged", "FileChanged", "ConfigChange", "WorktreeCreate", "WorktreeRemove", "PreModelSwitch", "PostModelSwitch",
	"MessageDisplay", "DirectoryAdded"}

// Quiet names the events of c that covey accepts and never runs (Claude
// Code events with no counterpart in covey), one line each, for --debug.
func (c Config) Quiet(source string) []string {
	var out []string
	for _, ev := range sortedKeys(c) {
		if slices.Contains(acceptedEvents, ev) {
			out = append(out, fmt.Sprintf("%s: hook event %s is accepted; covey has no such moment, so its hooks never run", source, ev))
			continue
		}
		for _, g := range c[ev] {
			for _, h := range g.Hooks {
				if h.Type != "" && h.Type != "command" {
					out = append(out, fmt.Sprintf("%s: %s hook of type %s is accepted and not run (covey runs command hooks)", source, ev, h.Type))
				}
			}
		}
	}
	return out
}

// DefaultTimeout is how long a hook may run when it sets no timeout, as in
// Claude Code.
const DefaultTimeout = 60 * time.Second

// Config is the hooks of one file, in Claude Code's shape: event name →
// matcher groups. It reads from JSON (settings.json) and YAML (covey's
// config, agent frontmatter) alike.
type Config map[string][]Group

// Group is one matcher and the commands it runs.
type Group struct {
	// Matcher selects the calls of tool events by tool name (exact name,
	// or a regular expression such as "Write|Edit" or "mcp__github__.*");
	// for other events it matches the event's own subject (SessionStart's
	// source, PreCompact's trigger, a subagent's type). Empty or "*"
	// matches everything.
	Matcher string    `json:"matcher,omitempty" yaml:"matcher,omitempty"`
	Hooks   []Command `json:"hooks" yaml:"hooks"`
}

// Command is one hook: a shell command.
type Command struct {
	// Type is "command" (the only type covey runs; "" means command).
	Type    string `json:"type,omitempty" yaml:"type,omitempty"`
	Command string `json:"command" yaml:"command"`
	// Timeout is in seconds; 0 means DefaultTimeout.
	Timeout float64 `json:"timeout,omitempty" yaml:"timeout,omitempty"`
}

// Scope says where a hook comes from, which decides whether it needs the
// user's trust.
type Scope string

// The scopes.
const (
	// ScopeUser hooks are the user's own (~/.claude/settings.json,
	// covey's user config, user agent files): always trusted.
	ScopeUser Scope = "user"
	// ScopeProject hooks come with the repository (.claude/settings*.json,
	// .covey/config.yaml, project agent files): run once trusted.
	ScopeProject Scope = "project"
)

// Hook is one configured command with where it came from.
type Hook struct {
	Event   string
	Matcher string
	Command string
	Timeout time.Duration
	// Source names the file (or "agent NAME") it was read from.
	Source string
	Scope  Scope
	// Scripts are the workspace files a project hook runs, pinned when
	// the hooks were read (see Pin).
	Scripts []Script
	match   *regexp.Regexp // nil: matches everything
	exact   string         // a plain name matched as it is
}

// Validate reports what is wrong with c: unknown events, hooks of another
// type than command, empty commands, negative timeouts, matchers that are
// no regular expression. Every problem is named.
func (c Config) Validate() error {
	var errs []error
	for _, ev := range sortedKeys(c) {
		if slices.Contains(acceptedEvents, ev) {
			continue
		}
		if !slices.Contains(Events(), ev) {
			errs = append(errs, fmt.Errorf("unknown hook event %q (events: %s)", ev, strings.Join(Events(), ", ")))
			continue
		}
		for i, g := range c[ev] {
			if _, _, err := compileMatcher(g.Matcher); err != nil {
				errs = append(errs, fmt.Errorf("%s[%d].matcher %q: %w", ev, i, g.Matcher, err))
			}
			for j, h := range g.Hooks {
				where := fmt.Sprintf("%s[%d].hooks[%d]", ev, i, j)
				switch {
				case h.Type != "" && h.Type != "command":
					// Claude Code's prompt, agent, http and mcp_tool
					// hooks: valid there, not run here (Quiet says so).
					continue
				case strings.TrimSpace(h.Command) == "":
					errs = append(errs, fmt.Errorf("%s: command is empty", where))
				case h.Timeout < 0:
					errs = append(errs, fmt.Errorf("%s: timeout must not be negative", where))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// Hooks flattens c into hooks tagged with source and scope. Entries that do
// not validate are left out (Validate names them).
func (c Config) Hooks(source string, scope Scope) []Hook {
	var out []Hook
	for _, ev := range sortedKeys(c) {
		if !slices.Contains(Events(), ev) {
			continue
		}
		for _, g := range c[ev] {
			re, exact, err := compileMatcher(g.Matcher)
			if err != nil {
				continue
			}
			for _, h := range g.Hooks {
				if (h.Type != "" && h.Type != "command") || strings.TrimSpace(h.Command) == "" || h.Timeout < 0 {
					continue
				}
				t := DefaultTimeout
				if h.Timeout > 0 {
					t = time.Duration(h.Timeout * float64(time.Second))
				}
				out = append(out, Hook{Event: ev, Matcher: g.Matcher, Command: h.Command, Timeout: t,
					Source: source, Scope: scope, match: re, exact: exact})
			}
		}
	}
	return out
}

func sortedKeys(c Config) []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// plainName is a matcher that names one tool (or subject) exactly.
var plainName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// compileMatcher turns a matcher into a whole-string regular expression,
// or an exact name; both nil/"" for one that matches everything.
func compileMatcher(m string) (*regexp.Regexp, string, error) {
	m = strings.TrimSpace(m)
	if m == "" || m == "*" {
		return nil, "", nil
	}
	if plainName().MatchString(m) {
		return nil, m, nil
	}
	re, err := regexp.Compile(`^(?:` + m + `)$`)
	if err != nil {
		return nil, "", errors.New("not a regular expression")
	}
	return re, "", nil
}

// matches reports whether h applies to a subject known by any of names
// (a tool's Claude Code name and covey's own).
func (h Hook) matches(names ...string) bool {
	if h.match == nil && h.exact == "" {
		return true
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if h.exact != "" && (n == h.exact || strings.EqualFold(n, h.exact) && !strings.HasPrefix(n, "mcp__")) {
			return true
		}
		if h.match != nil && h.match.MatchString(n) {
			return true
		}
	}
	return false
}

// settingsFile is the part of a Claude Code settings file covey reads.
type settingsFile struct {
	Hooks Config `json:"hooks"`
}

// maxSettingsSize bounds a settings file (real ones are a few KB).
const maxSettingsSize = 1 << 20

// ReadSettings reads the hooks of one Claude Code settings file; a missing
// file has none.
func ReadSettings(path string) (Config, error) {
	// A project's settings come from the repository: a FIFO or a symlink
	// to /dev/zero must not stall covey.
	data, err := safefile.Read(path, maxSettingsSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hooks settings: %w", err) // err names the file
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var s settingsFile
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Hooks.Validate(); err != nil {
		return s.Hooks, fmt.Errorf("%s: hooks: %w", path, err)
	}
	return s.Hooks, nil
}

// Sources are the places a session's hooks come from.
type Sources struct {
	// Home is the user's home folder (~/.claude/settings.json).
	Home string
	// Workspace is the project root (.claude/settings.json and
	// .claude/settings.local.json).
	Workspace string
	// User are the hooks of covey's user config; UserSource names it.
	User       Config
	UserSource string
	// Project are the hooks of the project's covey config; ProjectSource
	// names it.
	Project       Config
	ProjectSource string
}

// Set is every hook of a session, in the order they were read: user hooks
// first, then the project's.
type Set struct {
	Hooks []Hook
	// Problems are what could not be read, one line each (a broken file
	// costs its own hooks, not the session).
	Problems []string
	// Notes are what was accepted and never runs (Claude Code's events
	// and hook types covey has no counterpart of): for --debug.
	Notes []string
}

// Load reads every source. A file that cannot be read is a problem, not an
// error: its hooks do not run and the user is told.
func Load(src Sources) Set {
	var s Set
	add := func(c Config, source string, scope Scope, err error) {
		if err != nil {
			s.Problems = append(s.Problems, err.Error())
		}
		s.Notes = append(s.Notes, c.Quiet(source)...)
		s.Hooks = append(s.Hooks, c.Hooks(source, scope)...)
	}
	if src.Home != "" {
		p := filepath.Join(src.Home, ".claude", "settings.json")
		c, err := ReadSettings(p)
		add(c, filepath.Join("~", ".claude", "settings.json"), ScopeUser, err)
	}
	if len(src.User) > 0 {
		add(src.User, src.UserSource, ScopeUser, src.User.Validate())
	}
	if src.Workspace != "" {
		for _, name := range []string{"settings.json", "settings.local.json"} {
			p := filepath.Join(src.Workspace, ".claude", name)
			c, err := ReadSettings(p)
			add(c, filepath.Join(".claude", name), ScopeProject, err)
		}
	}
	if len(src.Project) > 0 {
		add(src.Project, src.ProjectSource, ScopeProject, src.Project.Validate())
	}
	return s
}

// Project returns the hooks that need the user's trust.
func (s Set) Project() []Hook {
	var out []Hook
	for _, h := range s.Hooks {
		if h.Scope == ScopeProject {
			out = append(out, h)
		}
	}
	return out
}

// Trusted returns s without its project hooks unless trusted.
func (s Set) Trusted(trusted bool) Set {
	if trusted {
		return s
	}
	out := Set{Problems: s.Problems}
	for _, h := range s.Hooks {
		if h.Scope != ScopeProject {
			out.Hooks = append(out.Hooks, h)
		}
	}
	return out
}

// Hash returns the key a trust decision is remembered under: a hash of
// every given hook's event, matcher, command, timeout and the content of
// the workspace scripts it runs (Pin), so any change to what would run
// asks again. "" for no hooks.
func Hash(hs []Hook) string {
	if len(hs) == 0 {
		return ""
	}
	lines := make([]string, len(hs))
	for i, h := range hs {
		lines[i] = fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", h.Event, h.Matcher, h.Command, h.Timeout, h.Source)
		for _, s := range h.Scripts {
			lines[i] += "\x00" + s.Path + "\x00" + s.Hash
		}
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// Describe is one line naming a hook for the trust question and /hooks:
// "PreToolUse Bash: ./check.sh (.claude/settings.json)".
func Describe(h Hook) string {
	m := h.Matcher
	if m != "" {
		m = " " + m
	}
	runs := ""
	if len(h.Scripts) > 0 {
		paths := make([]string, len(h.Scripts))
		for i, s := range h.Scripts {
			paths[i] = s.Path
		}
		runs = "; runs " + strings.Join(paths, ", ") + " as it is now"
	}
	return fmt.Sprintf("%s%s: %s (%s%s)", h.Event, m, h.Command, h.Source, runs)
}
