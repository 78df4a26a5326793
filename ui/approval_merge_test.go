package ui

import (
	"context"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/permission"
	"covey/tools/diff"
)

// mergeRequest is a child's worktree merge of three files.
func mergeRequest() permission.Request {
	change := func(p, old, new string, created bool) permission.FileChange {
		d, a, r := diff.UnifiedDiff(p, old, new)
		return permission.FileChange{Path: p, Diff: d, Added: a, Removed: r, Created: created}
	}
	return permission.Request{
		Tool: permission.ToolMerge, Path: "covey/general-purpose-1-abc123",
		Agent: "[general-purpose] refactor", AgentID: "general-purpose-1",
		Changes: []permission.FileChange{
			change("a.go", "package a\n", "package a\n\nfunc A() {}\n", false),
			change("b.go", "", "package b\n", true),
			change("c.go", "x\n", "y\n", false),
		},
	}
}

func TestMergeApprovalAnswers(t *testing.T) {
	tests := []struct {
		name   string
		keys   []tea.KeyMsg
		want   permission.Verdict
		record string
	}{
		{"y applies every file", []tea.KeyMsg{runes("y")}, permission.Verdict{Allowed: true}, "✓ apply 3 files"},
		{"space drops the file under the cursor", []tea.KeyMsg{runes(" "), runes("y")},
			permission.Verdict{Allowed: true, Files: []string{"b.go", "c.go"}}, "✓ apply 2 of 3 files"},
		{"] moves to the next file, [ back", []tea.KeyMsg{runes("]"), runes("]"), runes(" "), runes("["), runes(" "), runes("y")},
			permission.Verdict{Allowed: true, Files: []string{"a.go"}}, "✓ apply 1 of 3 files"},
		{"n discards", []tea.KeyMsg{runes("n")}, permission.Verdict{Reason: reasonDenied}, "✗ discarded 3 files"},
		{"y with no file chosen discards", []tea.KeyMsg{runes(" "), runes("]"), runes(" "), runes("]"), runes(" "), runes("y")},
			permission.Verdict{Reason: reasonDenied}, "✗ discarded 3 files"},
		{"a is no answer to a merge", []tea.KeyMsg{runes("a"), runes("n")}, permission.Verdict{Reason: reasonDenied}, "✗ discarded 3 files"},
		{"l keeps it for later", []tea.KeyMsg{runes("l")}, permission.Verdict{Reason: "the user kept the change on its branch for later", Keep: true}, "⏸ kept 3 files on its branch for later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, 100, 40)
			got := h.ask(context.Background(), mergeRequest())
			h.deliver(1)
			// The key bar (the last line) says what the request's own hints say.
			if lines := h.screenLines(); !strings.Contains(lines[len(lines)-1], "y apply the chosen files • n discard all") || h.screenContains("y allow") {
				t.Errorf("the help line does not speak of applying and discarding:\n%s", strings.Join(h.screenLines(), "\n"))
			}
			for _, k := range tt.keys {
				h.send(k)
			}
			v := verdictOf(t, got)
			if v.Allowed != tt.want.Allowed || v.Reason != tt.want.Reason || v.Keep != tt.want.Keep || !slices.Equal(v.Files, tt.want.Files) || (tt.want.Files == nil) != (v.Files == nil) {
				t.Errorf("verdict %+v, want %+v", v, tt.want)
			}
			if len(h.perms.grants) != 0 {
				t.Errorf("a merge made session grants: %v", h.perms.grants)
			}
			bs := approvalBlocks(h.m)
			if len(bs) != 1 || bs[0].Pending() {
				t.Fatalf("want one answered approval block, have %d", len(bs))
			}
			if rec := ansi.Strip(bs[0].Lines(approvalCtx(100))[0]); !strings.HasPrefix(rec, tt.record) || !strings.Contains(rec, "covey/general-purpose-1-abc123") {
				t.Errorf("record %q, want it to start %q and name the branch", rec, tt.record)
			}
		})
	}
}
