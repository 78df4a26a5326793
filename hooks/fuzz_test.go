package hooks

import (
	"encoding/json"
	"testing"

	"covey/tools/toolname"
)

// FuzzClaudeInput: whatever arguments a model sends, the hook's tool_input
// is valid JSON and naming the tool never fails; whatever a hook prints,
// reading it never fails.
func FuzzClaudeInput(f *testing.F) {
	f.Add(toolname.WriteFile, `{"path":"a.go","content":"x"}`, `{"continue":false}`)
	f.Add(toolname.Bash, `{"command":"ls","timeout_s":1e400}`, `{"hookSpecificOutput":{"permissionDecision":"ask"}}`)
	f.Add(toolname.EditFile, `{"path":3,"edits":[]}`, "plain text")
	f.Add(toolname.Grep, `[1,2]`, `{"decision":7}`)
	f.Add("mcp__x__y", `not json`, `{`)
	f.Fuzz(func(t *testing.T, tool, args, stdout string) {
		in := ClaudeInput(tool, json.RawMessage(args), "/ws")
		if !json.Valid(in) {
			t.Fatalf("tool_input %q is not JSON (from %q)", in, args)
		}
		_ = ClaudeName(tool, json.RawMessage(args))
		_, _ = parseOutput(stdout)
		_ = (&Runner{}).combine(PreToolUse, []run{{hook: Hook{Command: "x"}, exit: 0, stdout: stdout}})
	})
}
