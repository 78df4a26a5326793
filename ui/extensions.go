package ui

import (
	"fmt"
	"strings"

	"covey/ui/keys"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
)

// CustomCommand is one of the user's slash commands (a markdown file),
// for completion and /help; running it sends "/name args" to the engine
// as a message, which expands it.
type CustomCommand struct {
	// Name is what follows the slash ("frontend:component").
	Name string
	// ArgumentHint says what it takes ("[file]").
	ArgumentHint string
	// Description is shown beside it.
	Description string
}

// SkillInfo describes one skill for /skills.
type SkillInfo struct {
	Name, Description string
	// Source is the skill's folder.
	Source string
	// AllowedTools is its allowed-tools as written, nil when none.
	AllowedTools []string
}

// MemoryInfo describes one memory file in the main agent's context, for
// /memory.
type MemoryInfo struct {
	// Path is the file, with the home folder shown as ~.
	Path string
	// Scope is user, project, folder (joined when a file there was read)
	// or import.
	Scope string
	// ImportedBy is the importing file, "" for others.
	ImportedBy string
	// Depth is how many imports away from a file found in its folder.
	Depth int
	// Tokens is its estimated size in the prompt.
	Tokens int
}

// BuiltinCommandNames returns the names of covey's built-in slash
// commands: a command file of the same name is not loaded (the built-in
// wins, with a warning).
func BuiltinCommandNames() []string {
	cmds := defaultCommands(keys.Default())
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	return names
}

// withCustom returns the built-in commands followed by the user's, less
// any whose name a built-in has (the built-in wins; the engine warned).
func withCustom(cmds []command, custom []CustomCommand) []command {
	for _, c := range custom {
		if _, taken := findCommand(cmds, c.Name); taken {
			continue
		}
		name := c.Name
		cmds = append(cmds, command{name: name, args: c.ArgumentHint, help: c.Description,
			run: func(m *Model, arg string) tea.Cmd { return m.sendCustom(name, arg) }})
	}
	return cmds
}

// sendCustom sends a custom command as a message: the engine expands it
// and runs it as one turn (queued behind a running turn like any message).
func (m *Model) sendCustom(name, arg string) tea.Cmd {
	text := "/" + name
	if arg != "" {
		text += " " + arg
	}
	if m.turn != nil || m.clearing {
		m.input.Enqueue(text)
		return nil
	}
	return m.startTurn(text)
}

// cmdInit asks the main agent to write AGENTS.md from what a crew of
// Explore subagents finds; the engine knows the prompt (covey -p /init
// runs it too), and the write is approved as any other.
func (m *Model) cmdInit(string) tea.Cmd { return m.sendCustom("init", "") }

func (m *Model) cmdSkills(string) tea.Cmd {
	if len(m.skills) == 0 {
		m.notice(transcript.NoticeInfo, "no skills: put a folder holding a SKILL.md (name, description, then the instructions) in .claude/skills/ or ~/.claude/skills/")
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skills (%d; the model sees each name and description, and loads the rest with the skill tool)", len(m.skills))
	for _, s := range m.skills {
		fmt.Fprintf(&b, "\n  %s (%s)", s.Name, s.Source)
		fmt.Fprintf(&b, "\n    %s", s.Description)
		if s.AllowedTools != nil {
			fmt.Fprintf(&b, "\n    allowed-tools: %s", strings.Join(s.AllowedTools, ", "))
		}
	}
	m.notice(transcript.NoticeInfo, b.String())
	return nil
}

func (m *Model) cmdMemory(string) tea.Cmd {
	var files []MemoryInfo
	if m.memory != nil {
		files = m.memory()
	}
	if len(files) == 0 {
		m.notice(transcript.NoticeInfo, "no memory files: AGENTS.md or CLAUDE.md in the repository, ~/.claude/CLAUDE.md or ~/.config/covey/AGENTS.md brief every session (/init writes one)")
		return nil
	}
	total := 0
	for _, f := range files {
		total += f.Tokens
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Memory (%d files, about %d tokens in every request)", len(files), total)
	for _, f := range files {
		indent := strings.Repeat("  ", f.Depth)
		fmt.Fprintf(&b, "\n  %s%s · %s · %d tokens", indent, f.Path, f.Scope, f.Tokens)
	}
	m.notice(transcript.NoticeInfo, b.String())
	return nil
}
