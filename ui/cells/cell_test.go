package cells

import (
	"fmt"
	"strings"
	"testing"

	"covey/theme"
	"covey/ui/cells/cellstest"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

func TestFitLineAndWrap(t *testing.T) {
	tests := map[string]struct {
		in    string
		width int
		want  []string
	}{
		"short":        {"hello", 10, []string{"hello"}},
		"word wrap":    {"hello big world", 9, []string{"hello big", "world"}},
		"long word":    {"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		"newlines":     {"a\nb", 5, []string{"a", "b"}},
		"tabs":         {"\tx", 10, []string{"    x"}},
		"crlf":         {"a\r\nb", 5, []string{"a", "b"}},
		"wide runes":   {"日本語の文", 4, []string{"日本", "語の", "文"}},
		"empty":        {"", 5, []string{""}},
		"width 0 safe": {"abc", 0, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Wrap(tc.in, tc.width)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
			cellstest.CheckWidth(t, got, max(tc.width, 0))
		})
	}
	if got := Fit("abcdef", 4); got != "abc…" {
		t.Errorf("Fit cut = %q, want abc…", got)
	}
}

// TestWrapFastMatchesWrap checks the fast path against the general one.
func TestWrapFastMatchesWrap(t *testing.T) {
	inputs := []string{
		"the quick brown fox jumps over the lazy dog",
		"averyveryverylongwordthatmustbebroken and then some",
		"two  spaces  between   words",
		"trailing spaces   ",
		"  leading spaces here",
		"a b c d e f g h i j k l m n o p",
		"The model’s answer — with “quotes” and more words",
		"日本語の文章は空白なしで続きます。とても長い行です",
		"mixed 日本語 and ascii words with café naïve",
		"",
	}
	for _, in := range inputs {
		for _, width := range []int{1, 2, 3, 7, 10, 20, 80} {
			t.Run(fmt.Sprintf("%d/%s", width, in), func(t *testing.T) {
				fast, ok := wrapFast(nil, in, width)
				if !ok {
					if width > 1 {
						t.Fatal("fast path refused plain text")
					}
					return // wide runes at width 1 go the slow way
				}
				var slow []string
				if ansi.StringWidth(in) <= width {
					slow = []string{in}
				} else {
					for _, l := range strings.Split(ansi.Wrap(in, width, ""), "\n") {
						slow = append(slow, strings.TrimRight(l, " "))
					}
				}
				cellstest.CheckWidth(t, fast, width)
				if strings.ReplaceAll(strings.Join(fast, ""), " ", "") != strings.ReplaceAll(in, " ", "") {
					t.Errorf("wrapFast lost text: %q", fast)
				}
				if strings.TrimSpace(in) != in || (width == 1 && ansi.StringWidth(in) != len([]rune(in))) {
					return // ansi.Wrap keeps edge spaces and overflows wide runes at width 1
				}
				if strings.Join(fast, "|") != strings.Join(slow, "|") {
					t.Errorf("wrapFast = %q, ansi.Wrap = %q", fast, slow)
				}
			})
		}
	}
	for _, in := range []string{"emoji 👍 here", "zwj \u200d", "esc \x1b[1m", "vs16 ☺\ufe0f"} {
		if _, ok := wrapFast(nil, in, 5); ok {
			t.Errorf("fast path accepted %q", in)
		}
		cellstest.CheckWidth(t, Wrap(in, 5), 5)
	}
}

func TestCleanText(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"plain":        {"hello, 世界", "hello, 世界"},
		"tab":          {"a\tb", "a    b"},
		"crlf":         {"a\r\nb\rc", "a\nbc"},
		"sgr":          {"\x1b[31mred\x1b[0m", "red"},
		"cursor move":  {"a\x1b[2Jb\x1b[10;10H", "ab"},
		"bell and nul": {"a\x07b\x00c", "abc"},
		"c1 csi":       {"a\u009b31mb", "a31mb"},
		"invalid utf8": {"a\xffb", "a\uFFFDb"},
		"newline kept": {"a\nb", "a\nb"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Clean(tc.in); got != tc.want {
				t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestStyledWidth(t *testing.T) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	th := theme.New(theme.ModeDark, true, false)
	for _, s := range []string{
		"", "plain", th.Styles.Tool.Name.Render("read_file") + "  " + th.Styles.Tool.Arg.Render("ui/model.go"),
		"⏺ task ✓ · 3.4s", "wide 漢字 text", "emoji 👍🏽 and a joiner 👨‍👩‍👧", "\x1b]8;;http://x\x07link\x1b]8;;\x07",
		"tab\tand \x7f del", "\x1b[38;2;1;2;3mtrue colour\x1b[0m", "unterminated \x1b[",
	} {
		if got, want := StyledWidth(s), ansi.StringWidth(s); got != want {
			t.Errorf("StyledWidth(%q) = %d, want %d", s, got, want)
		}
	}
}
