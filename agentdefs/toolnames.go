package agentdefs

import (
	"errors"
	"slices"
	"strings"

	"covey/tools/toolname"

	"covey/permission"
)

// EffectiveTools returns the tools a child of type d gets out of base (the
// tools the parent has): d's allowlist intersected with base, where a nil
// allowlist means all of base except task, minus d's disallowed tools. The
// result keeps base's order and is never nil.
func EffectiveTools(d Definition, base []string) []string {
	out := make([]string, 0, len(base))
	for _, t := range base {
		switch {
		case slices.Contains(out, t):
			continue
		case slices.ContainsFunc(d.DisallowedTools, func(e string) bool { return allowsTool(e, t) }):
			continue
		case d.Tools == nil && t == toolname.Task:
			// Nesting is opt-in: only a definition that names task gets it.
			continue
		case d.Tools != nil && !slices.ContainsFunc(d.Tools, func(e string) bool { return allowsTool(e, t) }):
			continue
		}
		out = append(out, t)
	}
	return out
}

// toolRef is one entry of a tools list as written, before mapping.
type toolRef struct {
	raw  string
	line int
}

// mappedTool is the outcome of mapping one written tool name.
type mappedTool struct {
	name    string // covey name; "" when the tool was dropped
	args    string // what was inside the parentheses
	hasArgs bool
}

// shellCompanion reports whether raw is one of Claude Code's tools for
// background shells (BashOutput, KillShell, and KillBash before it): in
// covey an agent offered bash gets bash_output and kill_shell with it, so
// a tools list needs no entry for them.
func shellCompanion(raw string) bool {
	name, _, hasArgs := splitCall(raw)
	if hasArgs {
		return false
	}
	switch strings.ToLower(name) {
	case "bashoutput", "killshell", "killbash", toolname.BashOutput, toolname.KillShell:
		return true
	}
	return false
}

// mapToolName turns a tool name as written in covey or Claude Code files
// into covey's name. Claude's names are matched case-insensitively because
// users type them from memory; covey's own names and MCP names (mcp__...)
// pass through. A name covey does not know comes back with an empty
// name. Whether a pattern can limit the tool is for checkRule.
func mapToolName(raw string) mappedTool {
	name, args, hasArgs := splitCall(raw)
	m := mappedTool{args: args, hasArgs: hasArgs}
	switch strings.ToLower(name) {
	case "read", toolname.ReadFile, "notebookread":
		m.name = toolname.ReadFile
	case "write", toolname.WriteFile:
		m.name = toolname.WriteFile
	case "edit", "multiedit", toolname.EditFile:
		m.name = toolname.EditFile
	case toolname.Bash, toolname.Grep, toolname.Glob:
		m.name = strings.ToLower(name)
	case "ls", toolname.ListDir:
		m.name = toolname.ListDir
	case "todowrite", "taskcreate", "taskupdate", "tasklist", "taskget", toolname.TodoWrite:
		m.name = toolname.TodoWrite
	case "webfetch", toolname.WebFetch:
		m.name = toolname.WebFetch
	case "websearch", toolname.WebSearch:
		m.name = toolname.WebSearch
	case toolname.LSP:
		m.name = toolname.LSP
	case toolname.Task, "agent":
		m.name = toolname.Task
	case toolname.Skill:
		m.name = toolname.Skill
	default:
		if strings.HasPrefix(name, "mcp__") && len(name) > len("mcp__") {
			m.name = name
		} else if t, ok := toolname.FromClaude(name); ok && slices.Contains(append(toolname.All(), toolname.Skill), t) {
			// WebSearch, AskUserQuestion, ExitPlanMode, SlashCommand: once
			// covey offers the tool (it is in toolname.All), its Claude
			// Code name means it; before, the name is one covey lacks.
			m.name = t
		}
	}
	if m.name == "" {
		return mappedTool{}
	}
	return m
}

// claudeTool reports whether raw names one of Claude Code's tools
// (WebSearch, NotebookEdit, ...), which a valid Claude Code file may list
// whether covey has it or not.
func claudeTool(raw string) bool {
	name, _, _ := splitCall(strings.TrimSuffix(raw, " (it comes with Bash)"))
	_, known := toolname.FromClaude(name)
	return known || toolname.ClaudeOnly(name)
}

// checkRule reports why src (such as "Bash(git diff:*)") is not a
// permission rule covey can enforce, or nil when it is.
func checkRule(src string) error {
	if _, err := permission.ParseRules([]string{src}, nil); err != nil {
		msg := err.Error()
		// Drop the "permissions.allow[0] \"...\": " prefix meant for config.
		if i := strings.Index(msg, "\": "); i >= 0 {
			msg = msg[i+3:]
		}
		// One line per agent file: the list of every tool a rule may
		// name is for config files, where one mistake is read alone.
		if head, _, ok := strings.Cut(msg, ": rules name "); ok {
			msg = strings.TrimPrefix(head, "unknown tool ") + " takes no pattern in a rule (Read(...) rules limit grep, glob and list_dir too)"
		}
		return errors.New(msg)
	}
	return nil
}

// allowsTool reports whether an allowlist entry admits tool t: the same
// name, or for MCP, a server ("mcp__github" admits "mcp__github__search")
// or a prefix ending in "*" ("mcp__github__*").
func allowsTool(entry, t string) bool {
	if entry == t {
		return true
	}
	if !strings.HasPrefix(entry, "mcp__") || !strings.HasPrefix(t, "mcp__") {
		return false
	}
	if prefix, ok := strings.CutSuffix(entry, "*"); ok {
		return strings.HasPrefix(t, prefix)
	}
	return !strings.Contains(strings.TrimPrefix(entry, "mcp__"), "__") && strings.HasPrefix(t, entry+"__")
}

// splitCall splits "Name(args)" into its parts; a name without a well-formed
// argument list comes back whole with hasArgs false.
func splitCall(s string) (name, args string, hasArgs bool) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return s, "", false
	}
	return strings.TrimSpace(s[:open]), strings.TrimSpace(s[open+1 : len(s)-1]), true
}

// splitToolString splits Claude's comma form "Read, Agent(a, b), Grep" (or
// the blank-separated "Read Grep") at the commas and blanks outside
// parentheses, dropping empty entries.
func splitToolString(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if part := strings.TrimSpace(s[start:end]); part != "" {
			out = append(out, part)
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',', ' ', '\t', '\n':
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	flush(len(s))
	return out
}
