package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// BasePrompt is covey's own system prompt for the main agent.
const BasePrompt = `You are covey, a coding agent working in the user's terminal, inside their project.

How you work:
- Use the tools to read, search, edit and run code in the workspace. Read a file before you edit it; prefer edit_file for changes to existing files and keep edits small and exact.
- Prefer doing over asking: when the request is clear, carry it out, then say briefly what you did.
- Hand focused, self-contained work to subagents with the task tool when it helps: several independent searches or investigations at once (send several task calls, or one call with a tasks list, in ONE message so they run in parallel). Give each a complete prompt: it sees nothing of this conversation.
- A subagent in the background reports back as a message when it ends. Meanwhile crew_status shows what each of your subagents is doing (state, current step, last tool call, files changed); check it instead of waiting blind, and steer with send_message.
- Keep the user informed with short, concrete text: paths with line numbers, commands you ran and what they showed. Use markdown.
- Never invent file contents or command output. If something fails, say so and what you will try next.
- Keep a todo list with todo_write for multi-step work.`

// Environment holds the facts about where an agent runs that go into its
// system prompt.
type Environment struct {
	Root  string
	OS    string
	Date  string // YYYY-MM-DD
	IsGit bool
	// Instructions is the memory (AGENTS.md, CLAUDE.md, ... rendered by
	// package memory), and InstructionsFile names what it came from; both
	// empty when there is none. The caller fills them.
	Instructions     string
	InstructionsFile string
}

// DetectEnvironment reads the facts of the workspace at root (not its
// memory files: package memory loads those). It does I/O: call it once at
// start-up, not on a hot path.
func DetectEnvironment(root string, now time.Time) Environment {
	env := Environment{Root: root, OS: runtime.GOOS + "/" + runtime.GOARCH, Date: now.Format("2006-01-02")}
	env.IsGit = isGitRepo(root)
	return env
}

func isGitRepo(dir string) bool {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// SystemPrompt joins a base prompt with the environment facts and the
// project's instructions.
func SystemPrompt(base string, env Environment) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(base))
	b.WriteString("\n\n# Environment\n")
	fmt.Fprintf(&b, "- Workspace root: %s\n", env.Root)
	fmt.Fprintf(&b, "- OS: %s\n", env.OS)
	fmt.Fprintf(&b, "- Date: %s\n", env.Date)
	fmt.Fprintf(&b, "- Git repository: %t\n", env.IsGit)
	b.WriteString("- Paths in tool arguments may be relative to the workspace root.\n")
	if env.Instructions != "" {
		b.WriteString("\n# Instructions from memory files (AGENTS.md, CLAUDE.md): follow them\n\n")
		b.WriteString(env.Instructions)
		b.WriteString("\n")
	}
	return b.String()
}
