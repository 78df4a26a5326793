package ui

import (
	"fmt"
	"strings"
	"testing"

	"covey/permission"
	"covey/tools/toolname"
	"covey/ui/diffview"

	"github.com/charmbracelet/x/ansi"
)

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
			b := newApprovalBlock(tc.req)
			b.SetActive(true)
			text := ansi.Strip(strings.Join(b.Lines(approvalCtx(200)), "\n"))
			if got := b.SideBySide(200); got != tc.split {
				t.Fatalf("side by side at 200 columns: %v, want %v\n%s", got, tc.split, text)
			}
			if got := strings.Contains(text, diffview.SplitSeparator); got != tc.split {
				t.Errorf("halves drawn: %v, want %v\n%s", got, tc.split, text)
			}
			if got := strings.Contains(text, "side by side") || strings.Contains(text, "t unified"); got != tc.split {
				t.Errorf("layout key offered: %v, want %v\n%s", got, tc.split, text)
			}
			b.ToggleLayout()
			if !tc.split && b.SideBySide(200) {
				t.Errorf("t turned a one-sided diff side by side")
			}
		})
	}
}

// TestApprovalScrollsSideways checks that an approval's diff wider than
// the screen scrolls sideways by its keys, says which columns show, stops
// at the widest line's end and keeps one row per diff line.
func TestApprovalScrollsSideways(t *testing.T) {
	old := "package a\n\nvar x = 1\n"
	long := "var x = \"" + strings.Repeat("0123456789", 12) + "END\"\n"
	for _, tc := range []struct {
		name  string
		width int
	}{{"80 unified", 80}, {"200 side by side", 200}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newApprovalBlock(editRequest("a.go", old, strings.Replace(old, "var x = 1\n", long, 1)))
			b.SetActive(true)
			ctx := approvalCtx(tc.width)
			text := ansi.Strip(strings.Join(b.Lines(ctx), "\n"))
			if b.SideBySide(tc.width) != (tc.width == 200) {
				t.Fatalf("layout at %d: side by side %v", tc.width, b.SideBySide(tc.width))
			}
			if !strings.Contains(text, "cols 1–") || !strings.Contains(text, "< /> sideways") && !strings.Contains(text, "</> sideways") {
				t.Errorf("no column note:\n%s", text)
			}
			if strings.Contains(text, "END") {
				t.Fatalf("the line's end shows before scrolling:\n%s", text)
			}
			rows := b.BodyLen()
			for i := 0; i < 20; i++ {
				b.ShiftBy(1)
			}
			text = ansi.Strip(strings.Join(b.Lines(ctx), "\n"))
			if !strings.Contains(text, "END\"") {
				t.Errorf("the line's end does not show after scrolling right:\n%s", text)
			}
			if !strings.Contains(text, "…") {
				t.Errorf("no mark of the text scrolled off to the left:\n%s", text)
			}
			if b.Shift() != b.MaxShift() || b.MaxShift() <= 0 {
				t.Errorf("shift %d, max %d", b.Shift(), b.MaxShift())
			}
			if b.BodyLen() != rows {
				t.Errorf("scrolling sideways changed the rows: %d, was %d", b.BodyLen(), rows)
			}
			note := fmt.Sprintf("cols %d–%d of %d", b.Shift()+1, b.WidestText(), b.WidestText())
			if !strings.Contains(text, note) {
				t.Errorf("want %q, the last column the widest line's:\n%s", note, text)
			}
			b.ShiftBy(-100)
			if b.Shift() != 0 {
				t.Errorf("back left: shift %d", b.Shift())
			}
		})
	}
	t.Run("a narrow diff does not scroll", func(t *testing.T) {
		b := newApprovalBlock(editRequest("a.go", old, strings.Replace(old, "1", "2", 1)))
		text := ansi.Strip(strings.Join(b.Lines(approvalCtx(80)), "\n"))
		b.ShiftBy(1)
		if b.Shift() != 0 || strings.Contains(text, "sideways") {
			t.Errorf("shift %d:\n%s", b.Shift(), text)
		}
	})
}
