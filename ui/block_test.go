package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	xgolden "github.com/charmbracelet/x/exp/golden"

	"covey/agent"
	"covey/theme"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// testNow is the fixed clock of block tests.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// blockCtx is a render context with fixed clock, frame and an ASCII colour
// profile, so renderings are stable text.
func blockCtx(t testing.TB, width int) RenderContext {
	t.Helper()
	lipgloss.SetColorProfile(termenv.Ascii)
	th := theme.New(theme.ModeDark, true, false)
	return RenderContext{
		Width:    width,
		Now:      testNow,
		Frame:    3,
		Styles:   &th.Styles,
		Markdown: NewMarkdownRenderer("dark", &th.Styles),
	}
}

// visibleWidth is the cells a line takes on screen.
func visibleWidth(s string) int { return ansi.StringWidth(s) }

// checkWidth fails when a line is wider than width.
func checkWidth(t testing.TB, lines []string, width int) {
	t.Helper()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, width, l)
		}
	}
}

// golden compares lines with testdata/<test name>.golden (x/exp/golden;
// -update rewrites it). It also checks the width, which every golden case
// must respect.
func golden(t *testing.T, lines []string, width int) {
	t.Helper()
	checkWidth(t, lines, width)
	// Lip Gloss draws nothing but text under the ASCII profile; the
	// markdown renderer may still emit bold and reset codes, which are
	// stripped to keep the files readable.
	xgolden.RequireEqual(t, ansi.Strip(strings.Join(lines, "\n"))+"\n")
}

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
			got := wrapText(tc.in, tc.width)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("wrapText(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
			checkWidth(t, got, max(tc.width, 0))
		})
	}
	if got := fitLine("abcdef", 4); got != "abc…" {
		t.Errorf("fitLine cut = %q, want abc…", got)
	}
}

func TestFormatting(t *testing.T) {
	tokens := map[int]string{0: "0", 950: "950", 1000: "1k", 12_400: "12.4k", 124_000: "124k", 1_200_000: "1.2M", 3_000_000: "3M"}
	for n, want := range tokens {
		if got := agent.FormatTokens(n); got != want {
			t.Errorf("agent.FormatTokens(%d) = %q, want %q", n, got, want)
		}
	}
	durations := map[time.Duration]string{
		-time.Second:                "0ms",
		450 * time.Millisecond:      "450ms",
		3240 * time.Millisecond:     "3.2s",
		41500 * time.Millisecond:    "41s",
		65 * time.Second:            "1m05s",
		2*time.Hour + 3*time.Minute: "2h03m",
	}
	for d, want := range durations {
		if got := elapsedText(d); got != want {
			t.Errorf("elapsedText(%v) = %q, want %q", d, got, want)
		}
	}
	seen := map[string]bool{}
	for f := range 10 {
		seen[spinnerGlyph(f)] = true
		if spinnerGlyph(f) != spinnerGlyph(f+10) || spinnerGlyph(-f) == "" {
			t.Errorf("spinner frame %d does not cycle", f)
		}
	}
	if len(seen) != 10 {
		t.Errorf("spinner has %d distinct frames, want 10", len(seen))
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
				checkWidth(t, fast, width)
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
		checkWidth(t, wrapText(in, 5), 5)
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
			if got := cleanText(tc.in); got != tc.want {
				t.Errorf("cleanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
