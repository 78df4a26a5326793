package markdown

import (
	"strings"
	"testing"

	"covey/theme"
	"covey/ui/cells/cellstest"

	"github.com/charmbracelet/x/ansi"
)

func TestRenderer(t *testing.T) {
	for _, style := range []string{"dark", "light", "notty", "ascii"} {
		t.Run(style, func(t *testing.T) {
			cellstest.ASCII(t)
			m := NewRenderer(style, &theme.New(theme.ModeDark, true, false).Styles)
			if m.Err() != nil {
				t.Fatalf("known style reported %v", m.Err())
			}
			lines, err := m.Render("# Title\n\nSome *text* that is long enough to wrap at forty columns.\n\n```\n\tcode with a tab and a very long line that cannot wrap at all\n```\n", 40)
			if err != nil {
				t.Fatal(err)
			}
			cellstest.CheckWidth(t, lines, 40)
			if ansi.Strip(lines[0]) == "" || ansi.Strip(lines[len(lines)-1]) == "" {
				t.Errorf("blank first or last line: %q", lines)
			}
			for _, l := range lines {
				if p := ansi.Strip(l); strings.HasSuffix(p, " ") || strings.Contains(p, "\t") {
					t.Errorf("line %q has trailing spaces or a tab", p)
				}
			}
		})
	}
	t.Run("unknown style", func(t *testing.T) {
		m := NewRenderer("neon", nil)
		if m.Err() == nil || !strings.Contains(m.Err().Error(), "neon") {
			t.Fatalf("Err = %v, want one naming the style", m.Err())
		}
		if lines, err := m.Render("still *works*", 20); err != nil || len(lines) != 1 {
			t.Errorf("fallback renderer gave %q, %v", lines, err)
		}
	})
	t.Run("width 0", func(t *testing.T) {
		if lines, _ := NewRenderer("dark", nil).Render("x", 0); lines != nil {
			t.Errorf("width 0 rendered %q", lines)
		}
	})
}

// TestMarkdownElements checks what each markdown element looks like in
// plain text (the ASCII profile), at a width that makes paragraphs wrap.
func TestMarkdownElements(t *testing.T) {
	tests := map[string]struct {
		md    string
		width int
		want  []string
	}{
		"heading and wrapped paragraph": {
			md:    "## Where\n\nSome *text* that is **long enough** to wrap, `code` too.",
			width: 20,
			want:  []string{"## Where", "", "Some text that is", "long enough to wrap,", "code too."},
		},
		"word of several runs stays whole": {
			md:    "aaaa bbbb **cc**,dd",
			width: 12,
			want:  []string{"aaaa bbbb", "cc,dd"},
		},
		"word wider than the line is cut": {
			md:    "abcdefghijkl",
			width: 5,
			want:  []string{"abcde", "fghij", "kl"},
		},
		"escapes and entities": {
			md:    `\*not em\* &amp; a\\b &#65;`,
			width: 40,
			want:  []string{`*not em* & a\b A`},
		},
		"hard break": {
			md:    "end  \nnext line",
			width: 40,
			want:  []string{"end", "next line"},
		},
		"tight list with nesting and a task": {
			md:    "- one\n- two\n  - nested item that wraps\n- [x] done\n",
			width: 16,
			want:  []string{"• one", "• two", "  • nested item", "    that wraps", "• [x] done"},
		},
		"loose ordered list from 3": {
			md:    "3. first\n\n4. second\n",
			width: 40,
			want:  []string{"3. first", "", "4. second"},
		},
		"quote": {
			md:    "> quoted text\n> more",
			width: 40,
			want:  []string{"│ quoted text more"},
		},
		"code block is indented and cut, not wrapped": {
			md:    "```go\nx := 1\n\n  long line of code here\n```",
			width: 12,
			want:  []string{"  x := 1", "", "    long li…"},
		},
		"link shows its destination unless it is the text": {
			md:    "[docs](http://a.b/c) and <http://d.e>",
			width: 60,
			want:  []string{"docs http://a.b/c and http://d.e"},
		},
		"table with alignment": {
			md:    "| a | bb |\n|---|---:|\n| 1 | 2 |\n| long | 333 |",
			width: 40,
			want:  []string{"a    │  bb", "─────┼────", "1    │   2", "long │ 333"},
		},
		"table shrunk to fit": {
			md:    "| name | description |\n|---|---|\n| x | a very long description |",
			width: 20,
			want:  []string{"name │ description", "─────┼──────────────", "x    │ a very long …"},
		},
		"rule": {
			md:    "a\n\n---\n\nb",
			width: 5,
			want:  []string{"a", "", "─────", "", "b"},
		},
		"strikethrough": {
			md:    "~~gone~~ here",
			width: 40,
			want:  []string{"gone here"},
		},
		"strikethrough with one tilde, three are text": {
			md:    "~a~ and ~~~b~~~",
			width: 40,
			want:  []string{"a and ~~~b~~~"},
		},
		"task list: checked, unchecked, and brackets that are no box": {
			md:    "- [ ] todo\n- [X] done\n- [y] not a box\n- text [x] later\n\n[x] outside a list",
			width: 40,
			want:  []string{"• [ ] todo", "• [x] done", "• [y] not a box", "• text [x] later", "", "[x] outside a list"},
		},
		"table after a paragraph's lines, centred, escaped pipe, ragged rows": {
			md:    "intro line\n| a | b | c |\n|:-:|---|--|\n| x \\| y | 2 | 3 | extra |\n| only |",
			width: 40,
			want:  []string{"intro line", "", "  a   │ b │ c", "──────┼───┼──", "x | y │ 2 │ 3", "only  │   │"},
		},
		"no table without a pipe or with a cell count mismatch": {
			md:    "| a | b |\n|---|\n\nplain\n:-:",
			width: 40,
			want:  []string{"| a | b | |---|", "", "plain :-:"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cellstest.ASCII(t)
			m := NewRenderer("dark", &theme.New(theme.ModeDark, true, false).Styles)
			lines, err := m.Render(tc.md, tc.width)
			if err != nil {
				t.Fatal(err)
			}
			cellstest.CheckWidth(t, lines, tc.width)
			if got := strings.Join(lines, "\n"); got != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", got, strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestMarkdownStyled checks that colours reach the output in a colour
// profile, one pair of codes per run of one look.
func TestMarkdownStyled(t *testing.T) {
	trueColor(t)
	th := theme.New(theme.ModeDark, true, false)
	m := NewRenderer("dark", &th.Styles)
	lines, err := m.Render("plain **bold** `code`", 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || ansi.Strip(lines[0]) != "plain bold code" {
		t.Fatalf("got %q", lines)
	}
	for _, want := range []string{th.Styles.Markdown.Code.Render("code"), th.Styles.Markdown.Text.Bold(true).Render("bold")} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line %q lacks %q", lines[0], want)
		}
	}
	plain := NewRenderer("notty", &th.Styles)
	if lines, _ := plain.Render("plain **bold**", 40); lines[0] != "plain bold" {
		t.Errorf("notty drew %q", lines[0])
	}
}

// BenchmarkMarkdownRender renders a 1 KB answer with the usual elements.
func BenchmarkMarkdownRender(b *testing.B) {
	md := strings.Repeat(benchMarkdown, 1)
	th := theme.New(theme.ModeDark, true, false)
	m := NewRenderer("dark", &th.Styles)
	b.SetBytes(int64(len(md)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Render(md, 100); err != nil {
			b.Fatal(err)
		}
	}
}

const benchMarkdown = "## Where retries happen\n\nThe loop calls `provider.Stream` and retries on **429** and *5xx*, with a [backoff](https://example.com/backoff) that doubles.\n\n" +
	"- backoff doubles each time\n- capped at 60 s\n  - unless the server says otherwise\n\n" +
	"```go\nfor attempt := 0; attempt < 4; attempt++ {\n\tif err == nil {\n\t\tbreak\n\t}\n}\n```\n\n" +
	"| status | retried |\n|---|---|\n| 429 | yes |\n| 500 | yes |\n| 400 | no |\n\n" +
	"> Note: a long quoted paragraph that goes on for a while so that it wraps over more than one line at the usual widths of a terminal.\n"

// TestDeepNestingKeepsRoomForText: quotes and lists nested far deeper than
// the screen is wide stop indenting at minNestWidth, so their text is drawn
// in readable lines, not one cell wide, and within the width.
func TestDeepNestingKeepsRoomForText(t *testing.T) {
	cellstest.ASCII(t)
	m := NewRenderer("dark", &theme.New(theme.ModeDark, true, false).Styles)
	for name, md := range map[string]string{
		"quotes":       strings.Repeat(">", 200) + " the words at the bottom of it all",
		"bullets":      strings.Repeat("- ", 200) + "the words at the bottom of it all",
		"numbers":      strings.Repeat("1. ", 200) + "the words at the bottom of it all",
		"indented":     nestedItems(60),
		"quoted lists": strings.Repeat("> - ", 100) + "the words at the bottom of it all",
	} {
		lines, err := m.Render(md, 40)
		if err != nil {
			t.Fatal(err)
		}
		cellstest.CheckWidth(t, lines, 40)
		text := strings.Join(cellstest.Plain(lines), "\n")
		if !strings.Contains(text, "the words at") || !strings.Contains(text, "bottom") {
			t.Errorf("%s: the innermost text has no room:\n%s", name, text)
		}
	}
}

// nestedItems is a list n levels deep, each item indented under the last.
func nestedItems(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "- level\n")
	}
	b.WriteString(strings.Repeat("  ", n) + "- the words at the bottom of it all\n")
	return b.String()
}
