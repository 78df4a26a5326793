package ui

import (
	"strings"
	"testing"

	"covey/agent"
	"covey/permission"
	"covey/tools/toolname"

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

// TestApprovalOneSidedIsUnified checks that a new or a deleted file's
// approval stays unified at any width, even after t, while an edit goes
// side by side on a wide terminal.
func TestApprovalOneSidedIsUnified(t *testing.T) {
	deleted := editRequest("internal/handlers/health.go", approvalOld, "")
	for _, tc := range []struct {
		name  string
		req   permission.Request
		split bool
	}{
		{"new file", writeRequest("internal/handlers/version.go", approvalNew), false},
		{"new file without a change", permission.Request{Tool: toolname.WriteFile, Path: "a.txt", Content: "one\ntwo\n"}, false},
		{"deleted file", deleted, false},
		{"edit", editRequest("internal/handlers/health.go", approvalOld, approvalNew), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewApprovalBlock(tc.req)
			b.SetActive(true)
			text := ansi.Strip(strings.Join(b.Lines(approvalCtx(200)), "\n"))
			if got := b.sideBySide(200); got != tc.split {
				t.Fatalf("side by side at 200 columns: %v, want %v\n%s", got, tc.split, text)
			}
			if got := strings.Contains(text, splitSeparator); got != tc.split {
				t.Errorf("halves drawn: %v, want %v\n%s", got, tc.split, text)
			}
			if got := strings.Contains(text, "side by side") || strings.Contains(text, "t unified"); got != tc.split {
				t.Errorf("layout key offered: %v, want %v\n%s", got, tc.split, text)
			}
			b.ToggleLayout()
			if !tc.split && b.sideBySide(200) {
				t.Errorf("t turned a one-sided diff side by side")
			}
		})
	}
}
