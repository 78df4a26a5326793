package ui

import (
	"strings"
	"testing"

	"covey/agent"

	"github.com/charmbracelet/x/ansi"
)

// TestPaneHeaderStatsNearName checks that a pane's stats stay within a
// readable width of its name on a wide terminal, for subagent and shell
// panes alike, and still fill a narrow one.
func TestPaneHeaderStatsNearName(t *testing.T) {
	shell := childSource
	shell.AgentType = agent.ShellType
	shell.Description = "npm run dev"
	long := childSource
	long.Description = strings.Repeat("a long description of the task ", 6)
	for _, tc := range []struct {
		name    string
		src     agent.Source
		width   int
		wantEnd int // the column the stats end at
	}{
		{"subagent 80", childSource, 80, 80},
		{"subagent 100", childSource, 100, 100},
		{"subagent 200", childSource, 200, headerReadable},
		{"shell 200", shell, 200, headerReadable},
		{"long description 200", long, 200, headerWidest},
		{"long description 110", long, 110, 110},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewSubagentBlock(agent.ChildStarted{Source: tc.src, Model: "small"})
			b.SetStarted(testNow)
			header := ansi.Strip(b.Lines(blockCtx(t, tc.width))[0])
			trimmed := strings.TrimRight(header, " ")
			if got := ansi.StringWidth(trimmed); got != tc.wantEnd {
				t.Errorf("stats end at column %d, want %d:\n%q", got, tc.wantEnd, header)
			}
			if !strings.HasSuffix(trimmed, "0 tok") && !strings.HasSuffix(trimmed, "0 B") {
				t.Errorf("header does not end with its stats: %q", header)
			}
		})
	}
}
