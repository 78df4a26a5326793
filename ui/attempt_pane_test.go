package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/ui/transcript"
)

// TestAttemptPanes: the children of a best-of-N task say which attempt
// each is, in the pane header and the overview's task column.
func TestAttemptPanes(t *testing.T) {
	b := transcript.NewSubagentBlock(agent.ChildStarted{Source: agent.Source{AgentID: "gp-2", Name: "fix-retry-2", AgentType: "general-purpose", Description: "fix retry"},
		Attempt: 2, Attempts: 3, Worktree: &agent.WorktreeInfo{Path: "/w", Branch: "covey/fix-retry-2-abc", Base: "HEAD 1a2b3c4"}})
	text := ansi.Strip(strings.Join(b.Lines(approvalCtx(120)), "\n"))
	if !strings.Contains(text, "fix retry · attempt 2/3") {
		t.Errorf("the header does not say the attempt:\n%s", text)
	}
	if got := b.Description(); got != "fix retry · attempt 2/3" {
		t.Errorf("Description = %q", got)
	}
}
