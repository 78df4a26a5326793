package tools

// Builtins returns the base tools bound to env, in BaseNames order.
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
