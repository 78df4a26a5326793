package tool

// AttemptCheck is what covey found of one attempt of a best-of-N task
// before it was reviewed: the check command's outcome in the attempt's
// worktree (subagents.check, or the task's check) and the language
// servers' error counts for its files. The review shows it beside the
// attempt's diff, the judge is given it, headless reports it.
type AttemptCheck struct {
	// Command is the check that ran ("" when none is configured).
	Command string `json:"command,omitempty"`
	// Passed: the command exited 0 within its timeout.
	Passed   bool `json:"passed"`
	ExitCode int  `json:"exit_code"`
	TimedOut bool `json:"timed_out,omitempty"`
	// Output is the end of what the command wrote (stdout and stderr).
	Output string `json:"output,omitempty"`
	// Error says why the command could not run (refused, no sandbox).
	Error string `json:"error,omitempty"`
	// Diagnosed is set when a language server reported on the attempt's
	// files; Errors and Warnings are its counts then.
	Diagnosed bool `json:"diagnosed,omitempty"`
	Errors    int  `json:"errors,omitempty"`
	Warnings  int  `json:"warnings,omitempty"`
}

// Ran reports whether a check command ran to an exit (or timeout).
func (c *AttemptCheck) Ran() bool { return c != nil && c.Command != "" && c.Error == "" }
