package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMarkdownRenderer(t *testing.T) {
	for _, style := range []string{"dark", "light", "notty", "ascii"} {
		t.Run(style, func(t *testing.T) {
			blockCtx(t, 40) // sets the ASCII profile
			m := NewMarkdownRenderer(style)
			if m.Err() != nil {
				t.Fatalf("known style reported %v", m.Err())
			}
			lines, err := m.Render("# Title\n\nSome *text* that is long enough to wrap at forty columns.\n\n```\n\tcode with a tab and a very long line that cannot wrap at all\n```\n", 40)
			if err != nil {
				t.Fatal(err)
			}
			checkWidth(t, lines, 40)
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
		m := NewMarkdownRenderer("neon")
		if m.Err() == nil || !strings.Contains(m.Err().Error(), "neon") {
			t.Fatalf("Err = %v, want one naming the style", m.Err())
		}
		if lines, err := m.Render("still *works*", 20); err != nil || len(lines) != 1 {
			t.Errorf("fallback renderer gave %q, %v", lines, err)
		}
	})
	t.Run("renderers per width are bounded", func(t *testing.T) {
		m := NewMarkdownRenderer("dark")
		for w := 10; w < 30; w++ {
			if _, err := m.Render("x", w); err != nil {
				t.Fatal(err)
			}
		}
		if len(m.byWidth) > markdownWidths || len(m.order) != len(m.byWidth) {
			t.Errorf("kept %d renderers, want at most %d", len(m.byWidth), markdownWidths)
		}
		if lines, _ := m.Render("x", 0); lines != nil {
			t.Errorf("width 0 rendered %q", lines)
		}
	})
}
