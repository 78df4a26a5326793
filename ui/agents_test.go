package ui

import (
	"strings"
	"testing"

	"covey/tools/toolname"

	"covey/theme"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func TestAgentProblemsNotice(t *testing.T) {
	tests := map[string]struct {
		files []AgentFileProblems
		want  string
	}{
		"none": {nil, ""},
		"one warning": {[]AgentFileProblems{{Path: "a.md", Lines: []string{"warning line 3 (tools): covey has no WebSearch; dropped"}}},
			"1 problem in 1 agent file: /agents lists them"},
		"errors and warnings in two files": {[]AgentFileProblems{
			{Path: "a.md", Lines: []string{"warning x", "error y"}, Errors: 1},
			{Path: "b.md", Lines: []string{"error z"}, Errors: 1},
		}, "3 problems (2 kept a file from loading) in 2 agent files: /agents lists them"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := agentProblemsNote(tc.files); got != tc.want {
				t.Errorf("note = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAgentsCommandListsProblemsAndNotes(t *testing.T) {
	m := New(Options{
		Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii",
		Agents: []AgentInfo{{Name: "Code Reviewer", Source: "/p/.claude/agents/r.md", Model: "qwen3-coder (sonnet)",
			Tools: []string{toolname.ReadFile, "Bash(git diff:*)"}, Notes: []string{"permission mode: plan"}}},
		AgentProblems: []AgentFileProblems{{Path: "/p/.claude/agents/bad.md", Lines: []string{"error   line 4 (tools): tools: covey has none of NotebookEdit"}, Errors: 1}},
	})
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = nm.(Model)
	screen := ansi.Strip(m.View())
	if !strings.Contains(screen, "1 problem (1 kept a file from loading) in 1 agent file: /agents lists them") {
		t.Errorf("no notice at start:\n%s", screen)
	}
	m.cmdAgents("")
	screen = ansi.Strip(m.View())
	for _, want := range []string{
		"Code Reviewer (/p/.claude/agents/r.md) · model qwen3-coder (sonnet)",
		"tools: read_file, Bash(git diff:*)",
		"permission mode: plan",
		"Problems in agent files:",
		"/p/.claude/agents/bad.md",
		"error   line 4 (tools): tools: covey has none of NotebookEdit",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("/agents lacks %q:\n%s", want, screen)
		}
	}
}
