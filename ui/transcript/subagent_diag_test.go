package transcript

import (
	"strings"
	"testing"
	"time"

	"covey/agent"
)

func TestPaneHeaderCountsItsWorktreesErrors(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource, Worktree: &agent.WorktreeInfo{Path: "/repo/.git/covey-worktrees/x", Branch: "covey/x", Base: "HEAD"}})
	if b.Root() != "/repo/.git/covey-worktrees/x" {
		t.Fatalf("Root() = %q", b.Root())
	}
	now := time.Now()
	if s := b.Stats(now); strings.Contains(s, "error") {
		t.Errorf("no errors yet, stats %q", s)
	}
	b.SetDiagnostics(2)
	if s := b.Stats(now); !strings.Contains(s, "2 errors") {
		t.Errorf("stats %q lack the errors", s)
	}
	b.SetDiagnostics(1)
	if s := b.Stats(now); !strings.Contains(s, "1 error ·") {
		t.Errorf("stats %q", s)
	}
	if NewSubagentBlock(agent.ChildStarted{Source: childSource}).Root() != "" {
		t.Error("a child in the workspace has no root of its own")
	}
}
