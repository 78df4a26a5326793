package approval

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMergeApprovalShowsEveryFile(t *testing.T) {
	b := newHintedBlock(mergeRequest())
	b.SetActive(true)
	b.SetRows(40)
	text := ansi.Strip(strings.Join(b.Lines(approvalCtx(100)), "\n"))
	for _, want := range []string{
		"? Apply its changes to 3 files", "+4 -1", "from covey/general-purpose-1-abc123",
		"▸ [x] a.go", "[x] b.go (new file)", "[x] c.go", "+func A() {}", "-x", "+y",
		"y apply the chosen files", "n discard all", "space choose file",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the merge approval does not show %q:\n%s", want, text)
		}
	}
	if b.Editable() {
		t.Error("a merge offers e (edit), which it cannot honour")
	}
	b.ToggleFile()
	text = ansi.Strip(strings.Join(b.Lines(approvalCtx(100)), "\n"))
	if !strings.Contains(text, "▸ [ ] a.go") || !strings.Contains(text, "(2 chosen)") {
		t.Errorf("a dropped file is not shown as dropped:\n%s", text)
	}
	// Side by side keeps the file headers.
	b.ToggleLayout()
	text = ansi.Strip(strings.Join(b.Lines(approvalCtx(100)), "\n"))
	if !strings.Contains(text, "[x] c.go") || !strings.Contains(text, "│") {
		t.Errorf("side by side lost the file headers:\n%s", text)
	}
}
