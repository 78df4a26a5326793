package ui

import (
	"strings"
	"testing"
)

func TestDiffParse(t *testing.T) {
	d := newDiffView(testDiff)
	type row struct {
		kind     diffKind
		old, new int
		text     string
	}
	want := []row{
		{diffHunk, 0, 0, "@@ -10,6 +10,7 @@ func run() {"},
		{diffContext, 10, 10, "    ctx := context.Background()"},
		{diffContext, 11, 11, "    for turn := 0; ; turn++ {"},
		{diffRemoved, 12, 0, "        if turn > max {"},
		{diffAdded, 0, 12, "        if turn >= maxTurns {"},
		{diffAdded, 0, 13, `            log.Print("limit")`},
		{diffContext, 13, 14, "            break"},
		{diffContext, 14, 15, "        }"},
		{diffContext, 15, 16, "        step()"},
		{diffHunk, 0, 0, "@@ -98,3 +99,3 @@ func stop() {"},
		{diffContext, 98, 99, "    a := 1"},
		{diffRemoved, 99, 0, "    b := 2"},
		{diffAdded, 0, 100, "    b := 3"},
		{diffContext, 100, 101, "    return"},
	}
	if len(d.lines) != len(want) {
		t.Fatalf("parsed %d lines, want %d: %+v", len(d.lines), len(want), d.lines)
	}
	for i, w := range want {
		g := d.lines[i]
		if g.kind != w.kind || g.old != w.old || g.new != w.new || g.text != w.text {
			t.Errorf("line %d = %+v, want %+v", i, g, w)
		}
	}
	if d.digits != 3 {
		t.Errorf("digits = %d, want 3", d.digits)
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
			d := newDiffView(tc.diff)
			if d.Len() != tc.lines {
				t.Fatalf("Len = %d, want %d: %+v", d.Len(), tc.lines, d.lines)
			}
			st := blockCtx(t, 30).Styles
			for _, w := range []int{1, 8, 30} {
				checkWidth(t, d.render(w, 0, st), w)
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
	d := newDiffView(b.String())
	st := blockCtx(t, 80).Styles
	lines := d.render(80, diffPreview, st)
	if len(lines) != diffPreview+1 || !strings.Contains(lines[diffPreview], "… 31 more lines") {
		t.Errorf("limited render has %d lines ending %q", len(lines), lines[len(lines)-1])
	}
	if all := d.render(80, 0, st); len(all) != 51 {
		t.Errorf("unlimited render has %d lines, want 51", len(all))
	}
}
