package approval

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
