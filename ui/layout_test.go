package ui

import (
	"fmt"
	"strings"
	"testing"

	"covey/agent"
	"covey/permission"
	"covey/theme"
	"covey/tools/toolname"
	"covey/ui/diffview"

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
	named := childSource
	named.AgentType, named.Name, named.Description, named.NameIsDescription = "general-purpose", "write-wide-notes", "write wide notes", true
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
		{"name without description 60", named, 60, 60},
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
			if got := strings.Contains(text, diffview.SplitSeparator); got != tc.split {
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

// TestDiffWraps checks that a transcript diff (a tool call's, /diff's, a
// child view's) wraps a long line into continuation rows marked ↪ instead
// of cutting it, keeping every character and the line's marker.
func TestDiffWraps(t *testing.T) {
	long := "\treturn fmt.Errorf(\"the session file %s could not be written: %w (disk full?)\", path, err)"
	d := diffview.New("@@ -1,2 +1,2 @@\n ctx := 1\n-" + long + "\n+" + long + " // wrapped\n")
	for _, width := range []int{40, 60, 200} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			th := theme.New(theme.ModeDark, true, false)
			lines := plainLines(d.Render(width, 0, &th.Styles))
			checkWidth(t, lines, width)
			text := strings.Join(lines, "\n")
			if strings.Contains(text, "…") {
				t.Errorf("a line is cut:\n%s", text)
			}
			// Join each line with its continuations and compare.
			var joined []string
			for _, l := range lines {
				body := strings.TrimRight(l, " ")
				if i := strings.Index(body, "↪ "); i >= 0 && strings.TrimSpace(body[:i]) == "" {
					joined[len(joined)-1] += body[i+len("↪ ")+1:]
					if width == 200 {
						t.Errorf("wrapped at 200 columns: %q", l)
					}
					continue
				}
				joined = append(joined, body)
			}
			want := strings.ReplaceAll(long, "\t", "    ")
			for _, suffix := range []string{"-" + want, "+" + want + " // wrapped"} {
				found := false
				// Rows are padded: a space at a row's end cannot be told
				// from padding, so compare without spaces.
				nospace := func(s string) string { return strings.ReplaceAll(s, " ", "") }
				for _, j := range joined {
					found = found || strings.HasSuffix(nospace(j), nospace(suffix))
				}
				if !found {
					t.Errorf("no row reads %q once joined:\n%s", suffix, text)
				}
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
			b := NewApprovalBlock(editRequest("a.go", old, strings.Replace(old, "var x = 1\n", long, 1)))
			b.SetActive(true)
			ctx := approvalCtx(tc.width)
			text := ansi.Strip(strings.Join(b.Lines(ctx), "\n"))
			if b.sideBySide(tc.width) != (tc.width == 200) {
				t.Fatalf("layout at %d: side by side %v", tc.width, b.sideBySide(tc.width))
			}
			if !strings.Contains(text, "cols 1–") || !strings.Contains(text, "< /> sideways") && !strings.Contains(text, "</> sideways") {
				t.Errorf("no column note:\n%s", text)
			}
			if strings.Contains(text, "END") {
				t.Fatalf("the line's end shows before scrolling:\n%s", text)
			}
			rows := b.bodyLen()
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
			if b.shift != b.maxShift() || b.maxShift() <= 0 {
				t.Errorf("shift %d, max %d", b.shift, b.maxShift())
			}
			if b.bodyLen() != rows {
				t.Errorf("scrolling sideways changed the rows: %d, was %d", b.bodyLen(), rows)
			}
			note := fmt.Sprintf("cols %d–%d of %d", b.shift+1, b.diff.WidestText(), b.diff.WidestText())
			if !strings.Contains(text, note) {
				t.Errorf("want %q, the last column the widest line's:\n%s", note, text)
			}
			b.ShiftBy(-100)
			if b.shift != 0 {
				t.Errorf("back left: shift %d", b.shift)
			}
		})
	}
	t.Run("a narrow diff does not scroll", func(t *testing.T) {
		b := NewApprovalBlock(editRequest("a.go", old, strings.Replace(old, "1", "2", 1)))
		text := ansi.Strip(strings.Join(b.Lines(approvalCtx(80)), "\n"))
		b.ShiftBy(1)
		if b.shift != 0 || strings.Contains(text, "sideways") {
			t.Errorf("shift %d:\n%s", b.shift, text)
		}
	})
}

// TestApprovalSidewaysKeys checks that < and > are enabled, and listed by
// ?, exactly while a waiting request's diff is wider than the screen.
func TestApprovalSidewaysKeys(t *testing.T) {
	for _, wide := range []bool{false, true} {
		k := DefaultKeyMap()
		k.apply(keyState{focus: focusApproval, approval: approvalKeys{pending: true, editable: true, wideDiff: wide}})
		listed := false
		for _, col := range k.FullHelp() {
			for _, b := range col {
				listed = listed || b.Enabled() && b.Help().Key == ">"
			}
		}
		if k.ApproveLeft.Enabled() != wide || k.ApproveRight.Enabled() != wide || listed != wide {
			t.Errorf("wide %v: < enabled %v, > enabled %v, listed by ? %v", wide, k.ApproveLeft.Enabled(), k.ApproveRight.Enabled(), listed)
		}
	}
}
