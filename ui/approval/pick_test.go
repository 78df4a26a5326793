package approval

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestPickApprovalShowsAttempts(t *testing.T) {
	b := newHintedBlock(pickRequest())
	b.SetActive(true)
	b.SetRows(40)
	text := ansi.Strip(strings.Join(b.Lines(approvalCtx(150)), "\n"))
	for _, want := range []string{"? Apply one of 3 attempts", "showing 1: fix-retry", "▸ 1 fix-retry done", "2 fix-retry-2 done",
		"3 fix-retry-3 failed", "3 files +4 -1", "1 file +2 -2", "12.3k tok · $0.01", "Retries now back off", "←/→ other attempt",
		"[x] a.go", "y apply this attempt", "n apply none"} {
		if !strings.Contains(text, want) {
			t.Errorf("the review does not show %q:\n%s", want, text)
		}
	}
	b.MoveAttempt(1)
	text = ansi.Strip(strings.Join(b.Lines(approvalCtx(150)), "\n"))
	if !strings.Contains(text, "showing 2: fix-retry-2") || !strings.Contains(text, "[x] d.go") || strings.Contains(text, "a.go") {
		t.Errorf("→ does not show the second attempt:\n%s", text)
	}
}
