package tools

// BaseToolNames are the built-in tools every agent may be offered, in the
// order they are offered. The task tool is added by the subagent package.
var BaseToolNames = []string{"read_file", "list_dir", "glob", "grep", "write_file", "edit_file", "bash", "todo_write"}

// Builtins returns the base tools bound to env, in BaseToolNames order.
func Builtins(env *Env) []Tool {
	return []Tool{
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
