package markdown

import (
	"strings"
	"testing"

	"covey/theme"
	"covey/ui/cells"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// trueColor makes Lip Gloss draw in true colour until the test ends.
func trueColor(t testing.TB) {
	t.Helper()
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
}

// marked shows the classes of code's lines as text: each span that is not
// plain is written k«...», with k one of the letters below.
func marked(t *testing.T, language string, lines []string) []string {
	t.Helper()
	hl, ok := langFor(language)
	if !ok {
		t.Fatalf("language %q unknown", language)
	}
	letters := [numToks]string{"", "k", "s", "c", "n", "+", "-", "@", "h"}
	var st hlState
	out := make([]string, len(lines))
	for i, line := range lines {
		var b strings.Builder
		start := 0
		for _, sp := range hl.scan(&st, line, nil) {
			if sp.kind == tokPlain {
				b.WriteString(line[start:sp.end])
			} else {
				b.WriteString(letters[sp.kind] + "«" + line[start:sp.end] + "»")
			}
			start = sp.end
		}
		out[i] = b.String()
	}
	return out
}

func TestHighlightClasses(t *testing.T) {
	tests := map[string]struct {
		lang        string
		lines, want []string
	}{
		"go": {"go", []string{
			`func main() { // start`,
			`	s := "a \"q\" b" + 'x' + 0x1F + 3.5e-2`,
			"	r := `raw",
			"still raw` /* block",
			"more */ return nil",
		}, []string{
			`k«func» main() { c«// start»`,
			`	s := s«"a \"q\" b"» + s«'x'» + n«0x1F» + n«3.5e-2»`,
			"	r := s«`raw»",
			"s«still raw`» c«/* block»",
			"c«more */» k«return» k«nil»",
		}},
		"golang alias and identifiers holding keywords": {"golang", []string{`iffy := format2`}, []string{`iffy := format2`}},
		"python": {"py", []string{
			`def f(x):  # comment`,
			`    """doc`,
			`    'still' doc"""`,
			`    return 'it\'s' if x else None`,
		}, []string{
			`k«def» f(x):  c«# comment»`,
			`    s«"""doc»`,
			`s«    'still' doc"""»`,
			`    k«return» s«'it\'s'» k«if» x k«else» k«None»`,
		}},
		"typescript": {"ts", []string{
			"const s = `a ${b}",
			"\\` c` /* x */ // y",
			`let n: Num = 42;`,
			`let s: string = "";`,
		}, []string{
			"k«const» s = s«`a ${b}»",
			"s«\\` c`» c«/* x */» c«// y»",
			`k«let» n: Num = n«42»;`,
			`k«let» s: k«string» = s«""»;`,
		}},
		"rust lifetimes are not strings": {"rs", []string{
			`fn f<'a>(s: &'a str) -> char { 'x' }`,
			`let c = '\n'; // done`,
		}, []string{
			`k«fn» f<'a>(s: &'a str) -> char { s«'x'» }`,
			`k«let» c = s«'\n'»; c«// done»`,
		}},
		"c preprocessor": {"cpp", []string{`  #include <stdio.h> // io`, `x = a # b;`}, []string{`  k«#include» <stdio.h> c«// io»`, `x = a # b;`}},
		"c family": {"java", []string{
			`public static int x = 10; /* a`,
			`b */ String s = "\"";`,
		}, []string{
			`k«public» k«static» k«int» x = n«10»; c«/* a»`,
			`c«b */» String s = s«"\""»;`,
		}},
		"shell": {"bash", []string{
			`if [ $# -gt 0 ]; then echo "n=$#" 'raw\' # note`,
			`fi`,
		}, []string{
			`k«if» [ $# -gt n«0» ]; k«then» echo s«"n=$#"» s«'raw\'» c«# note»`,
			`k«fi»`,
		}},
		"json": {"json", []string{`{"a": [1, true, null, "x\"y"]}`}, []string{`{s«"a"»: [n«1», k«true», k«null», s«"x\"y"»]}`}},
		"yaml": {"yml", []string{`key: 'v#1' # c`, `on: true`}, []string{`key: s«'v#1'» c«# c»`, `k«on»: k«true»`}},
		"toml": {"toml", []string{`[a]`, `b = "c" # d`, `e = false`}, []string{`[a]`, `b = s«"c"» c«# d»`, `e = k«false»`}},
		"sql":  {"sql", []string{`SELECT id FROM t WHERE n = 'it''s' -- c`}, []string{`k«SELECT» id k«FROM» t k«WHERE» n = s«'it''s'» c«-- c»`}},
		"diff": {"diff", []string{"--- a/x", "+++ b/x", "@@ -1 +1 @@", "-old", "+new", " same"}, []string{
			"h«--- a/x»", "h«+++ b/x»", "@«@@ -1 +1 @@»", "-«-old»", "+«+new»", " same",
		}},
		"unclosed string ends at the line": {"c", []string{`x = "abc`, `y`}, []string{`x = s«"abc»`, `y`}},
		"non-ASCII":                        {"go", []string{`s := "é" // ü`, `x := 'é'`}, []string{`s := s«"é"» c«// ü»`, `x := s«'é'»`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := marked(t, tc.lang, tc.lines)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

const highlightFence = "```go\nfunc main() {\n\treturn \"x\" // done\n}\n```\n"

// TestHighlightStylesOff checks that without colours a fence with a
// language is drawn byte for byte as before highlighting existed, and
// that with colours an unknown language is drawn in one colour.
func TestHighlightStylesOff(t *testing.T) {
	trueColor(t)
	th := theme.New(theme.ModeDark, true, false)
	for _, style := range []string{"notty", "ascii"} {
		lines, _ := NewRenderer(style, &th.Styles).Render(highlightFence, 40)
		want := []string{"  func main() {", `      return "x" // done`, "  }"}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s drew %q, want %q", style, lines, want)
		}
	}
	m := NewRenderer("dark", &th.Styles)
	plain, _ := m.Render(strings.Replace(highlightFence, "```go", "```", 1), 40)
	unknown, _ := m.Render(strings.Replace(highlightFence, "```go", "```klingon", 1), 40)
	if strings.Join(plain, "\n") != strings.Join(unknown, "\n") {
		t.Errorf("unknown language drew %q, no language %q", unknown, plain)
	}
	q := cells.NewStyle(th.Styles.Markdown.CodeBlock)
	if plain[0] != "  "+q.Render("func main() {") {
		t.Errorf("no language drew %q", plain[0])
	}
}

// TestHighlightStyled checks that a known language's classes reach the
// output in their styles, and that only colours change.
func TestHighlightStyled(t *testing.T) {
	trueColor(t)
	th := theme.New(theme.ModeDark, true, false)
	m := NewRenderer("dark", &th.Styles)
	lines, _ := m.Render(highlightFence, 40)
	plain, _ := NewRenderer("notty", nil).Render(highlightFence, 40)
	if len(lines) != len(plain) {
		t.Fatalf("got %q, want the lines of %q", lines, plain)
	}
	for i := range lines {
		if ansi.Strip(lines[i]) != plain[i] {
			t.Errorf("line %d: %q, want text %q", i, ansi.Strip(lines[i]), plain[i])
		}
	}
	md := th.Styles.Markdown
	for _, want := range []string{
		md.CodeKeyword.Render("func"), md.CodeKeyword.Render("return"),
		md.CodeString.Render(`"x"`), md.CodeComment.Render("// done"),
	} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("%q lacks %q", lines, want)
		}
	}
	// Cut at the width like any code line.
	narrow, _ := m.Render(highlightFence, 10)
	if got := ansi.Strip(narrow[1]); got != "      ret…" {
		t.Errorf("narrow line %q", got)
	}
}

// FuzzHighlight checks that any text in any language is scanned without a
// panic, into spans that cover the line, and drawn with its text and
// width unchanged.
func FuzzHighlight(f *testing.F) {
	for _, seed := range [][2]string{
		{"go", "func f() { return `a\n\\` /* x\n*/ \"é\\"}, {"py", `"""a\` + "\n" + `'''b"""`},
		{"rs", "'\\"}, {"rs", "'é"}, {"ts", "`${a}\\"}, {"sql", "SELECT 'a"}, {"diff", "+a\n-b\n@@"},
		{"sh", "# x\n$#"}, {"c", " #\n#if"}, {"json", "1e+"}, {"klingon", "x"},
	} {
		f.Add(seed[0], seed[1])
	}
	trueColor(f)
	th := theme.New(theme.ModeDark, true, false)
	m := NewRenderer("dark", &th.Styles)
	f.Fuzz(func(t *testing.T, language, text string) {
		hl, ok := langFor(language)
		if !ok {
			return
		}
		var st hlState
		for _, line := range strings.Split(cells.Clean(text), "\n") {
			spans := hl.scan(&st, line, nil)
			end := 0
			for _, sp := range spans {
				if sp.end <= end || sp.end > len(line) {
					t.Fatalf("%q: spans %v do not advance", line, spans)
				}
				end = sp.end
			}
			if end != len(line) {
				t.Fatalf("%q: spans %v end at %d", line, spans, end)
			}
			out := m.highlighted(line, spans)
			if ansi.Strip(out) != line {
				t.Fatalf("%q drawn as %q", line, out)
			}
			if ansi.StringWidth(out) != cells.Width(line) {
				t.Fatalf("%q: width %d, want %d", line, ansi.StringWidth(out), cells.Width(line))
			}
		}
	})
}

// BenchmarkHighlight draws a 200-line Go file in a fence, against the same
// fence without a language (drawn in one colour) for the ratio.
func BenchmarkHighlight(b *testing.B) {
	var src strings.Builder
	for src.Len() == 0 || strings.Count(src.String(), "\n") < 200 {
		src.WriteString(benchGo)
	}
	lines := strings.SplitN(src.String(), "\n", 201)
	code := strings.Join(lines[:200], "\n") + "\n"
	th := theme.New(theme.ModeDark, true, false)
	for _, tc := range []struct{ name, fence string }{{"go", "```go\n"}, {"plain", "```\n"}} {
		b.Run(tc.name, func(b *testing.B) {
			m := NewRenderer("dark", &th.Styles)
			md := tc.fence + code + "```\n"
			b.SetBytes(int64(len(md)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Render(md, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

const benchGo = `// Package demo is a sample for the highlighter's benchmark.
package demo

import (
	"fmt"
	"strings"
)

/* Item is a thing with a name
   and a count. */
type Item struct {
	Name  string
	Count int
}

// String formats an item.
func (it Item) String() string {
	if it.Count == 0 {
		return fmt.Sprintf("%s (none)", it.Name)
	}
	s := ` + "`raw \\n string`" + `
	for i := 0; i < 3; i++ {
		s += strings.Repeat("x", i) + '\n' + 0x1F
	}
	return s + fmt.Sprint(it.Count, 3.14e-2)
}
`
