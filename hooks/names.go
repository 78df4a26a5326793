package hooks

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"covey/tools/toolname"
)

// ClaudeName is Claude Code's name for covey's tool name (Bash for bash,
// Write for write_file, ...). MCP tools are named alike in both; covey's
// own tools with no Claude Code counterpart keep their name.
func ClaudeName(name string, args json.RawMessage) string {
	switch name {
	case toolname.Bash:
		return "Bash"
	case toolname.WriteFile:
		return "Write"
	case toolname.EditFile:
		if hasKey(args, "edits") {
			return "MultiEdit"
		}
		return "Edit"
	case toolname.ReadFile:
		return "Read"
	case toolname.Grep:
		return "Grep"
	case toolname.Glob:
		return "Glob"
	case toolname.ListDir:
		return "LS"
	case toolname.WebFetch:
		return "WebFetch"
	case toolname.WebSearch:
		return "WebSearch"
	case toolname.TodoWrite:
		return "TodoWrite"
	case toolname.Task:
		return "Task"
	}
	return name
}

func hasKey(args json.RawMessage, k string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	_, ok := m[k]
	return ok
}

// renames maps covey's argument names to Claude Code's, per tool.
var renames = map[string]map[string]string{
	toolname.WriteFile: {"path": "file_path"},
	toolname.EditFile:  {"path": "file_path"},
	toolname.ReadFile:  {"path": "file_path"},
	toolname.Grep:      {"ignore_case": "-i", "context": "-C"},
}

// pathArgs are the arguments Claude Code sends as absolute paths.
var pathArgs = map[string]bool{"file_path": true}

// ClaudeInput is a call's arguments as Claude Code's tool_input: its
// argument names (file_path for path, timeout in milliseconds for
// timeout_s), file paths made absolute against cwd. Arguments with no
// Claude Code name pass through as covey names them. Input that is not a
// JSON object comes back as it is.
func ClaudeInput(name string, args json.RawMessage, cwd string) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || m == nil {
		if json.Valid(args) {
			return args
		}
		q, _ := json.Marshal(string(args))
		return q
	}
	for from, to := range renames[name] {
		if v, ok := m[from]; ok {
			delete(m, from)
			m[to] = v
		}
	}
	if name == toolname.Bash {
		if v, ok := m["timeout_s"].(float64); ok {
			delete(m, "timeout_s")
			m["timeout"] = int64(v * 1000)
		}
	}
	if name == toolname.ListDir || name == toolname.Glob || name == toolname.Grep {
		if p, ok := m["path"].(string); ok && p != "" && cwd != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
			m["path"] = filepath.Join(cwd, p)
		}
	}
	for k := range pathArgs {
		if p, ok := m[k].(string); ok && p != "" && cwd != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
			m[k] = filepath.Join(cwd, p)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}
