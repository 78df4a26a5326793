package ui

import (
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"

	"covey/agent"
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

func TestPaneTypeColourFromAgentFile(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	src := agent.Source{AgentID: "r-1", ParentCallID: "call_1", AgentType: "reviewer", Description: "review", Depth: 1}
	ctx := RenderContext{Styles: &th.Styles, Now: time.Now()}
	plain := NewSubagentBlock(agent.ChildStarted{Source: src})
	red := NewSubagentBlock(agent.ChildStarted{Source: src, Color: "red"})
	odd := NewSubagentBlock(agent.ChildStarted{Source: src, Color: "mauve"})
	if got, want := red.typeStyle(ctx).GetForeground(), th.Styles.Subagent.TypeByColor["red"].GetForeground(); got != want {
		t.Errorf("red pane type colour = %v, want the theme's red %v", got, want)
	}
	if got, want := red.typeStyle(ctx).GetForeground(), th.Styles.App.Error.GetForeground(); got != want {
		t.Errorf("red maps to %v, want the theme's Error colour %v", got, want)
	}
	for name, b := range map[string]*SubagentBlock{"no colour": plain, "unknown colour": odd} {
		if got, want := b.typeStyle(ctx).GetForeground(), th.Styles.Subagent.Type.GetForeground(); got != want {
			t.Errorf("%s: type colour = %v, want the theme's %v", name, got, want)
		}
	}
}
