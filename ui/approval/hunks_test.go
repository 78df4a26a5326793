package approval

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"covey/permission"
	"covey/tools/diff"
)

// TestHunkApprovalViews shows the hunk choice in both layouts: the
// dropped hunk marked, its lines drawn muted, the keys in the footer.
func TestHunkApprovalViews(t *testing.T) {
	for _, split := range []bool{false, true} {
		b := newHintedBlock(editRequest("f.txt", hunkFile, hunkEdit))
		b.SetActive(true)
		b.SetRows(40)
		width := 100
		if split {
			width = 160
		}
		b.Lines(approvalCtx(width))
		b.MoveHunk(1)
		b.ToggleHunk()
		text := ansi.Strip(strings.Join(b.Lines(approvalCtx(width)), "\n"))
		for _, want := range []string{"[x] @@ -1,6 +1,6 @@", "▸ [ ] @@ -22,7 +22,7 @@  (dropped)", "(1 of 2 hunks)",
			"s take/drop hunk", "}/{ next/previous hunk", "d deny with feedback"} {
			if !strings.Contains(text, want) {
				t.Errorf("split=%v: the approval does not show %q:\n%s", split, want, text)
			}
		}
		if strings.Contains(text, "e edit") {
			t.Errorf("split=%v: e is offered with hunks dropped:\n%s", split, text)
		}
		if split != strings.Contains(text, "│") {
			t.Errorf("split=%v: wrong layout:\n%s", split, text)
		}
	}
}

// TestTrimmedAnswerSaysOneThing: with part of a change dropped, the
// request's header counts the lines that will land, and its own hints say
// y, n and d as the root's KeyMap (applied to the block's state) names
// them, for an edit, a merge and a best-of-N pick, whole or trimmed.
// (ui's TestTrimmedKeyBarSaysOneThing checks the root's key bar says the
// same.)
func TestTrimmedAnswerSaysOneThing(t *testing.T) {
	edit := editRequest("f.txt", hunkFile, strings.Replace(hunkEdit, "LINE 3\n", "LINE 3\nextra a\nextra b\n", 1))
	tests := []struct {
		name   string
		req    permission.Request
		keys   []string
		header string // "" to leave the header's counts unchecked
	}{
		{"edit whole", edit, nil, "? Allow edit_file f.txt  +4 -2"},
		{"edit, second hunk dropped", edit, []string{"}", "s"}, "? Allow edit_file f.txt  +3 -1 (1 of 2 hunks)"},
		{"edit, first hunk dropped", edit, []string{"s"}, "? Allow edit_file f.txt  +1 -1 (1 of 2 hunks)"},
		{"merge whole", mergeHunks(), nil, ""},
		{"merge, a hunk dropped", mergeHunks(), []string{"]", "]", "]", "}", "}", "s"}, ""},
		{"pick whole", pickRequest(), []string{"right"}, ""},
		{"pick, a hunk dropped", pickRequest(), []string{"right", "}", "s"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newHintedBlock(tt.req)
			b.SetActive(true)
			b.SetRows(40)
			b.Lines(approvalCtx(200))
			for _, k := range tt.keys {
				if _, _, handled := b.HandleKey(press(k), rootKeys(b)); !handled {
					t.Fatalf("key %q not handled", k)
				}
			}
			screen := ansi.Strip(strings.Join(b.Lines(approvalCtx(200)), "\n"))
			if tt.header != "" && !strings.Contains(screen, tt.header) {
				t.Errorf("no header %q:\n%s", tt.header, screen)
			}
			k := rootKeys(b)
			for _, kb := range []key.Binding{k.ApproveYes, k.ApproveNo, k.ApproveFeedback} {
				hint := kb.Help().Key + " " + kb.Help().Desc
				if !strings.Contains(screen, hint+" ·") {
					t.Errorf("the request's hints do not say %q:\n%s", hint, screen)
				}
			}
		})
	}
}

// mergeHunks is mergeRequest with a fourth file of two hunks (ui's
// hunkMergeRequest).
func mergeHunks() permission.Request {
	req := mergeRequest()
	d, a, r := diff.UnifiedDiff("d.go", hunkFile, hunkEdit)
	req.Changes = append(req.Changes, permission.FileChange{Path: "d.go", Diff: d, Added: a, Removed: r})
	return req
}
