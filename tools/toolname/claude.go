package toolname

import "strings"

// claudeTools maps Claude Code's tool names (lower case) to covey's, for
// the tools that come under another name in covey. Names whose tool other
// parts of covey provide under their own constant are written out here
// as the names those tools take (web_search, ask_user, exit_plan_mode),
// so a rule or a tool list naming them means the same tool the day it is
// offered, and simply matches nothing before.
var claudeTools = map[string]string{
	"read": ReadFile, "notebookread": ReadFile,
	"write": WriteFile,
	"edit":  EditFile, "multiedit": EditFile,
	"bash": Bash, "grep": Grep, "glob": Glob,
	"ls":        ListDir,
	"todowrite": TodoWrite, "taskcreate": TodoWrite, "taskupdate": TodoWrite, "tasklist": TodoWrite, "taskget": TodoWrite,
	"webfetch": WebFetch,
	"agent":    Task, "task": Task,
	"skill": Skill,
	// Claude Code's SlashCommand let the model run the user's commands;
	// covey offers those through the skill tool, as Claude Code does now.
	"slashcommand":    Skill,
	"bashoutput":      BashOutput,
	"killshell":       KillShell,
	"killbash":        KillShell,
	"sendmessage":     SendMessage,
	"websearch":       "web_search",
	"askuserquestion": "ask_user",
	"exitplanmode":    "exit_plan_mode",
}

// FromClaude returns covey's name for one of Claude Code's tool names
// (Read, WebSearch, AskUserQuestion, ...; any case), and false for a name
// Claude Code has that covey knows no counterpart of.
func FromClaude(name string) (string, bool) {
	n, ok := claudeTools[strings.ToLower(name)]
	return n, ok
}

// ClaudeOnly lists Claude Code tools covey has no counterpart for: a rule
// or a tool list naming one is accepted and applies to nothing, rather
// than refused as a misspelling.
func ClaudeOnly(name string) bool {
	switch strings.ToLower(name) {
	case "notebookedit", "enterplanmode", "taskoutput", "taskstop", "lsp", "toolsearch",
		"listmcpresourcestool", "readmcpresourcetool", "listmcpresources", "readmcpresource",
		"enterworktree", "exitworktree", "teamcreate", "teamdelete", "croncreate", "crondelete", "cronlist",
		"monitor", "powershell", "mcpsearch":
		return true
	}
	return false
}
