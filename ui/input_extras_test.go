package ui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
	"covey/ui/keys"
)

// TestShellModeHintSaysRun: in "!" mode the key bar says what enter does
// there (runs the command), not "send"; out of it, "send" again.
func TestShellModeHintSaysRun(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := newHarness(t, size[0], size[1])
		h.typeText("!")
		if !h.screenContains("enter run command") || h.screenContains("enter send") {
			t.Errorf("%dx%d: the shell mode's hint:\n%s", size[0], size[1], ansi.Strip(h.m.View()))
		}
		h.key(tea.KeyBackspace)
		if !h.screenContains("enter send") || h.screenContains("enter run command") {
			t.Errorf("%dx%d: out of shell mode, the hint:\n%s", size[0], size[1], ansi.Strip(h.m.View()))
		}
	}
}

func TestShellCommand(t *testing.T) {
	tests := map[string]struct {
		cmd string
		ok  bool
	}{
		"!ls":       {"ls", true},
		"! git st ": {"git st", true},
		"!":         {"", true},
		"ls":        {"", false},
		"say !ls":   {"", false},
	}
	for text, tc := range tests {
		if cmd, ok := shellCommand(text); cmd != tc.cmd || ok != tc.ok {
			t.Errorf("shellCommand(%q) = %q, %v", text, cmd, ok)
		}
	}
}

// TestCompletionAtView: the popup after "@" at the start of the input:
// agent types, then paths, folders marked; at both sizes.
func TestCompletionAtView(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	c := newCompletion(nil, keys.Default(), &th.Styles)
	c.SetAgents(agentEntries([]AgentInfo{{Name: "Explore", Description: "fast read-only search of the codebase"}}))
	c.SetFiles([]string{"exp/lib.go", "docs/explain.md", "README.md", "src/main.go", "internal/scripted/server.go"}, nil, time.Now())
	c.Filter("@exp")
	for _, w := range []int{80, 200} {
		c.SetSize(w)
		checkGolden(t, fmt.Sprintf("%d", w), ansi.Strip(c.View())+"\n")
	}
}
