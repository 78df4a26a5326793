package diffview

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"covey/theme"
	"covey/ui/cells/cellstest"

	"github.com/charmbracelet/x/ansi"
)

// testDiff is a two-hunk diff of a Go file.
var testDiff = func() string {
	b, err := os.ReadFile("testdata/loop.diff")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// preview is how many lines a collapsed tool call shows of its diff.
const preview = 20

// styles are the dark theme's styles drawn in the ASCII profile, so lines
// are plain text.
func styles(t testing.TB) *theme.Styles {
	t.Helper()
	cellstest.ASCII(t)
	return &theme.New(theme.ModeDark, true, false).Styles
}

func TestDiffParse(t *testing.T) {
	d := New(testDiff)
	type row struct {
		Kind     Kind
		Old, New int
		Text     string
	}
	want := []row{
		{Hunk, 0, 0, "@@ -10,6 +10,7 @@ func run() {"},
		{Context, 10, 10, "    ctx := context.Background()"},
		{Context, 11, 11, "    for turn := 0; ; turn++ {"},
		{Removed, 12, 0, "        if turn > max {"},
		{Added, 0, 12, "        if turn >= maxTurns {"},
		{Added, 0, 13, `            log.Print("limit")`},
		{Context, 13, 14, "            break"},
		{Context, 14, 15, "        }"},
		{Context, 15, 16, "        step()"},
		{Hunk, 0, 0, "@@ -98,3 +99,3 @@ func stop() {"},
		{Context, 98, 99, "    a := 1"},
		{Removed, 99, 0, "    b := 2"},
		{Added, 0, 100, "    b := 3"},
		{Context, 100, 101, "    return"},
	}
	if len(d.Lines) != len(want) {
		t.Fatalf("parsed %d lines, want %d: %+v", len(d.Lines), len(want), d.Lines)
	}
	for i, w := range want {
		g := d.Lines[i]
		if g.Kind != w.Kind || g.Old != w.Old || g.New != w.New || g.Text != w.Text {
			t.Errorf("line %d = %+v, want %+v", i, g, w)
		}
	}
	if d.Digits != 3 {
		t.Errorf("digits = %d, want 3", d.Digits)
	}
}

func TestDiffLenient(t *testing.T) {
	tests := map[string]struct {
		diff  string
		lines int
	}{
		"empty":             {"", 0},
		"headers only":      {"--- a/x\n+++ b/x\n", 0},
		"bad hunk header":   {"@@ -x +y @@\n+a\n", 0},
		"no newline marker": {"@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n", 4},
		"git headers":       {"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+b\n", 3},
		"new file":          {"--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n", 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d := New(tc.diff)
			if d.Len() != tc.lines {
				t.Fatalf("Len = %d, want %d: %+v", d.Len(), tc.lines, d.Lines)
			}
			st := styles(t)
			for _, w := range []int{1, 8, 30} {
				cellstest.CheckWidth(t, d.Render(w, 0, st), w)
			}
		})
	}
}

func TestDiffLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("@@ -1,50 +1,50 @@\n")
	for range 50 {
		b.WriteString(" same\n")
	}
	d := New(b.String())
	st := styles(t)
	lines := d.Render(80, preview, st)
	if len(lines) != preview+1 || !strings.Contains(lines[preview], "… 31 more lines") {
		t.Errorf("limited render has %d lines ending %q", len(lines), lines[len(lines)-1])
	}
	if all := d.Render(80, 0, st); len(all) != 51 {
		t.Errorf("unlimited render has %d lines, want 51", len(all))
	}
}

// FuzzDiffView feeds arbitrary text to the diff parser and renderer: they
// must never panic and never draw past the width.
func FuzzDiffView(f *testing.F) {
	f.Add(testDiff, 40)
	f.Add("@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file", 10)
	f.Add("@@ -99999999999999999999,1 +1 @@\n+x", 5)
	f.Add("@@ -1,2 +1,2 @@\n\t\x1b[31mred\r\n+日本語", 3)
	f.Fuzz(func(t *testing.T, diff string, width int) {
		width = 1 + (width%200+200)%200
		d := New(diff)
		st := styles(t)
		for _, limit := range []int{0, preview} {
			for _, l := range d.Render(width, limit, st) {
				if w := ansi.StringWidth(l); w > width {
					t.Fatalf("line %q is %d wide at width %d", l, w, width)
				}
			}
		}
	})
}

// TestDiffWraps checks that a transcript diff (a tool call's, /diff's, a
// child view's) wraps a long line into continuation rows marked ↪ instead
// of cutting it, keeping every character and the line's marker.
func TestDiffWraps(t *testing.T) {
	long := "\treturn fmt.Errorf(\"the session file %s could not be written: %w (disk full?)\", path, err)"
	d := New("@@ -1,2 +1,2 @@\n ctx := 1\n-" + long + "\n+" + long + " // wrapped\n")
	for _, width := range []int{40, 60, 200} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			lines := cellstest.Plain(d.Render(width, 0, styles(t)))
			cellstest.CheckWidth(t, lines, width)
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
