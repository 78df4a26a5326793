// Package tools holds covey's built-in tools. What a tool is (Tool,
// Result, Registry, a call's progress, the schema of its arguments) is
// package tools/tool; the workspace the tools act on (paths, ignore rules,
// atomic writes, the undo log) is tools/workspace; diffs are tools/diff.
// The tools ask permission/ before a write or a command and run bash
// through sandbox/. It knows nothing of agents or of the UI.
package tools

import "covey/tools/tool"

// Builtins returns the base tools bound to env, in BaseNames order.
func Builtins(env *Env) []tool.Tool {
	return []tool.Tool{
		NewReadFile(env),
		NewListDir(env),
		NewGlob(env),
		NewGrep(env),
		NewWriteFile(env),
		NewEditFile(env),
		NewBash(env),
		NewTodoWrite(env),
	}
}
