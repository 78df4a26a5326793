package agentdefs

import (
	"fmt"
	"slices"
	"strings"
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
		case slices.Contains(d.DisallowedTools, t):
			continue
		case d.Tools == nil && t == ToolTask:
			// Nesting is opt-in: only a definition that names task gets it.
			continue
		case d.Tools != nil && !slices.Contains(d.Tools, t):
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
	name string // covey name; "" when the tool was dropped
	note string // a warning to report, "" for none
}

// mapToolName turns a tool name as written in covey or Claude Code files
// into covey's name. Claude's names are matched case-insensitively because
// users type them from memory; covey's own names pass through.
func mapToolName(raw string) mappedTool {
	name, args, hasArgs := splitCall(raw)
	if slices.Contains(allTools(), name) && !hasArgs {
		return mappedTool{name: name}
	}
	var covey string
	switch strings.ToLower(name) {
	case "read", ToolReadFile:
		covey = ToolReadFile
	case "write", ToolWriteFile:
		covey = ToolWriteFile
	case "edit", "multiedit", ToolEditFile:
		covey = ToolEditFile
	case "bash", "grep", "glob":
		covey = strings.ToLower(name)
	case "ls", ToolListDir:
		covey = ToolListDir
	case "todowrite", ToolTodoWrite:
		covey = ToolTodoWrite
	case "task", "agent":
		covey = ToolTask
	}
	switch {
	case covey == "" && strings.HasPrefix(name, "mcp__"):
		return mappedTool{note: fmt.Sprintf("tool %q dropped: covey does not support MCP tools", raw)}
	case covey == "":
		return mappedTool{note: fmt.Sprintf("tool %q dropped: covey has no such tool (known: %s)", raw, strings.Join(allTools(), ", "))}
	case hasArgs && covey == ToolTask:
		// Claude's Agent(a,b) limits which types may be spawned; covey's task
		// tool has no such limit, so say the child may start any type.
		return mappedTool{name: covey, note: fmt.Sprintf("tool %q: covey cannot limit which agent types task starts (%s); any type is allowed", raw, args)}
	case hasArgs:
		return mappedTool{name: covey, note: fmt.Sprintf("tool %q: the arguments (%s) are ignored; covey has no per-call tool rules here", raw, args)}
	}
	return mappedTool{name: covey}
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

// splitToolString splits Claude's comma form "Read, Agent(a, b), Grep" at the
// commas outside parentheses, dropping empty entries.
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
		case ',':
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	flush(len(s))
	return out
}
