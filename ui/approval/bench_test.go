package approval

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkApprovalScroll is one scroll step through a 5,000-line diff, in
// both layouts: only the window is drawn, so the cost does not grow with
// the diff.
func BenchmarkApprovalScroll(b *testing.B) {
	var old, cur strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&old, "line %d of the old file\n", i)
		if i%3 == 0 {
			fmt.Fprintf(&cur, "line %d of the new file\n", i)
		} else {
			fmt.Fprintf(&cur, "line %d of the old file\n", i)
		}
	}
	for _, width := range []int{100, 160} {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			blk := newHintedBlock(editRequest("big.txt", old.String(), cur.String()))
			blk.SetActive(true)
			blk.SetRows(30)
			ctx := approvalCtx(width)
			blk.Lines(ctx)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					blk.ScrollBy(1)
				} else {
					blk.ScrollBy(-1)
				}
				blk.Lines(ctx)
			}
		})
	}
}
