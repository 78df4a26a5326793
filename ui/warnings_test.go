package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
)

// TestStartWarnings: a warning handed in at start (covey's sandbox cannot
// run here) is on screen once the UI starts.
func TestStartWarnings(t *testing.T) {
	const warning = "covey's sandbox cannot run here (test): bash commands run unconfined"
	m := New(Options{Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii", Warnings: []string{warning}})
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	screen := ansi.Strip(nm.(Model).View())
	if strings.Count(strings.ReplaceAll(screen, "\n", " "), "bash commands run unconfined") != 1 {
		t.Errorf("the warning is not shown once:\n%s", screen)
	}
}
