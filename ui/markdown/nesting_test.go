package markdown

import (
	"fmt"
	"strings"
	"testing"

	"covey/theme"
	"covey/ui/cells"
	"covey/ui/cells/cellstest"
)

func TestFlattenDeep(t *testing.T) {
	q, b, sp := strings.Repeat, "- ", " "
	tests := map[string]struct{ in, want string }{
		"quotes at the limit":          {q(">", 32) + " x", q(">", 32) + " x"},
		"quotes past it":               {q(">", 33) + " x", q(">", 32) + " x"},
		"spaced quotes":                {q("> ", 500) + "x", q("> ", 32) + "x"},
		"bullets":                      {q(b, 40) + "x", q(b, 32) + "x"},
		"numbers":                      {q("1. ", 40) + "x", q("1. ", 32) + "x"},
		"mixed, last kept":             {q("> - ", 40) + "1) x", q("> - ", 15) + "> 1) x"},
		"indentation":                  {q(sp, 200) + "- x", q(sp, 63) + "- x"},
		"indented text is no item":     {q(sp, 200) + "x", q(sp, 200) + "x"},
		"a thematic break stays one":   {q(b, 40) + "-", q(b, 31) + "-"},
		"text that looks like markers": {q("-5 ", 40) + "\n" + q("1.5 ", 40), q("-5 ", 40) + "\n" + q("1.5 ", 40)},
		"only the deep line changes": {
			"# T\n\n" + q(">", 40) + " deep\n\n- a\n  - b\n",
			"# T\n\n" + q(">", 32) + " deep\n\n- a\n  - b\n",
		},
		"several deep lines": {q(">", 40) + " a\nlazy\n" + q(">", 50) + " b", q(">", 32) + " a\nlazy\n" + q(">", 32) + " b"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := flattenDeep(tc.in); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestDeepNestingKeepsEveryWord: input nested thousands deep is drawn with
// every word of its text, within the width.
func TestDeepNestingKeepsEveryWord(t *testing.T) {
	cellstest.ASCII(t)
	words := func(prefix string, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		return strings.Join(w, " ")
	}
	var indented, lazy strings.Builder
	for i := range 200 {
		fmt.Fprintf(&indented, "%s- item%d\n", strings.Repeat("  ", i), i)
		fmt.Fprintf(&lazy, "%s quote%d\nlazy%d\n\n", strings.Repeat(">", 30+i), i, i)
	}
	tests := map[string]string{
		"quotes":          strings.Repeat(">", 16<<10) + " " + words("w", 50),
		"bullets":         strings.Repeat("- ", 8<<10) + words("w", 50),
		"numbers":         strings.Repeat("12. ", 4<<10) + words("w", 50),
		"quoted lists":    strings.Repeat("> - ", 4<<10) + words("w", 50),
		"indented items":  indented.String(),
		"lazy lines":      lazy.String(),
		"deep then plain": strings.Repeat(">", 100) + " deep\n\n# heading\n\n" + words("w", 20),
	}
	m := NewRenderer("dark", &theme.New(theme.ModeDark, true, false).Styles)
	for name, md := range tests {
		t.Run(name, func(t *testing.T) {
			lines, err := m.Render(md, 40)
			if err != nil {
				t.Fatal(err)
			}
			cellstest.CheckWidth(t, lines, 40)
			drawn := map[string]bool{}
			for _, w := range strings.Fields(strings.Join(cellstest.Plain(lines), "\n")) {
				drawn[w] = true
			}
			for _, w := range strings.Fields(md) {
				if strings.ContainsAny(w, "abcdefghijklmnopqrstuvwxyz") && !drawn[w] {
					t.Errorf("%q is not drawn", w)
				}
			}
		})
	}
}

// FuzzFlattenDeep holds flattenDeep to its promises: lines stay lines,
// none nests deeper than maxNesting afterwards, and shallow ones do not
// change.
func FuzzFlattenDeep(f *testing.F) {
	f.Add(strings.Repeat("> - ", 20) + "x\n" + strings.Repeat(" ", 70) + "1. y\nz")
	f.Add(strings.Repeat("-", 40) + "\n" + strings.Repeat("* ", 40))
	f.Fuzz(func(t *testing.T, md string) {
		md = cells.Clean(md)
		in, out := strings.Split(md, "\n"), strings.Split(flattenDeep(md), "\n")
		if len(in) != len(out) {
			t.Fatalf("%d lines became %d", len(in), len(out))
		}
		for i, line := range out {
			if keep, _ := deepPrefix(line); keep >= 0 {
				t.Errorf("line %q still too deep", line)
			}
			if keep, _ := deepPrefix(in[i]); keep < 0 && line != in[i] {
				t.Errorf("shallow line %q became %q", in[i], line)
			}
		}
	})
}

// BenchmarkDeepNesting renders 16 KB nested as deep as it goes, unbounded
// (goldmark given the text as it is, as Render did before flattenDeep)
// and bounded (Render).
func BenchmarkDeepNesting(b *testing.B) {
	for _, tc := range []struct{ name, md string }{
		{"quotes", strings.Repeat(">", 16<<10) + " text"},
		{"bullets", strings.Repeat("- ", 8<<10) + "text"},
	} {
		m := NewRenderer("dark", &theme.New(theme.ModeDark, true, false).Styles)
		b.Run(tc.name+"/unbounded", func(b *testing.B) {
			src := []byte(cells.Clean(tc.md))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				m.draw(src, 100)
			}
		})
		b.Run(tc.name+"/bounded", func(b *testing.B) {
			b.SetBytes(int64(len(tc.md)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Render(tc.md, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
