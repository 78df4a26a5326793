package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestMDSplit checks where the stable prefix of a streaming answer ends:
// each bound is written "offset" or "offset+" (the next segment continues
// a tight list), and the result must not depend on how the text arrives.
func TestMDSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{"paragraph open", "one\ntwo", "[]"},
		{"tight list items", "- **a**: one\n- **b**: two\n- c", "[13+ 26+]"},
		{"last item still open", "- a\n- b", "[4+]"},
		{"ordered list", "1. a\n2. b\n3. c", "[5+ 10+]"},
		{"paragraph then list", "Things:\n- a\n- b", "[8 12+]"},
		{"ordered number other than 1 does not interrupt a paragraph", "In\n2024. was\n", "[]"},
		{"item continued lazily", "- a\nmore of a\n- b", "[14+]"},
		{"nested items stay in their item", "- a\n  - a1\n  - a2\n- b", "[18+]"},
		{"loose list: blank then next item", "- a\n\n- b\n", "[5]"},
		{"blank then indented continuation stays in the item", "- a\n\n  more a\n- b", "[14+]"},
		{"blank then paragraph ends the list", "- a\n\npara\n", "[5]"},
		{"blank then a paragraph still streaming ends the list", "- **a**\n\nI'd like", "[9]"},
		{"different bullet starts a new list", "- a\n* b\n", "[4]"},
		{"heading is a block of its own", "intro\n# Title\ntext", "[6 14]"},
		{"heading after a list", "- a\n## H\n", "[4 9]"},
		{"fence closes a block", "```\ncode\n- not an item\n```\nafter", "[27]"},
		{"fence interrupts a paragraph", "text\n```go\nx\n```\n", "[5 17]"},
		{"fence inside an item belongs to it", "- a\n  ```\n  - x\n  ```\n- b", "[22+]"},
		{"thematic break is no item", "- - -\n- a\n", "[6]"},
		{"setext underline is no item", "Title\n---\nbody", "[]"},
		{"crlf", "- a\r\n- b\r\n", "[5+]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, step := range []int{1, 2, 5, len(tc.text)} {
				var s mdSplit
				for i := 0; i < len(tc.text); i += step {
					s.feed(tc.text[:min(i+step, len(tc.text))])
				}
				parts := make([]string, len(s.bounds))
				for i, b := range s.bounds {
					parts[i] = fmt.Sprint(b.at)
					if b.tight {
						parts[i] += "+"
					}
				}
				if got := "[" + strings.Join(parts, " ") + "]"; got != tc.want {
					t.Errorf("step %d: bounds %s, want %s", step, got, tc.want)
				}
			}
		})
	}
}

// TestAssistantStreamsListsRendered checks that a list streams as
// rendered bullets: the finished items are drawn as the final answer
// draws them, the open item hangs its wrapped lines under its text, and
// finishing the answer moves no finished line.
func TestAssistantStreamsListsRendered(t *testing.T) {
	const answer = "Findings:\n\n" +
		"- **loop**: the agent loop retries a failed request four times with exponential backoff and honours Retry-After.\n" +
		"- **provider**: the provider wraps every request in a context with the configured timeout.\n" +
		"- **session**: the session file is written after every turn, so a crash loses at most one turn of work.\n"
	for _, width := range []int{40, 80} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx := blockCtx(t, width)
			final := NewAssistantBlock()
			final.AppendText(answer)
			final.Finish()
			want := plainLines(final.Lines(ctx))

			b := NewAssistantBlock()
			// Stream up to the middle of the third item.
			cut := strings.Index(answer, "session file is written") + len("session file is written")
			for i := 0; i < cut; i += 7 {
				b.AppendText(answer[i:min(i+7, cut)])
				b.Lines(ctx)
			}
			got := plainLines(b.Lines(ctx))
			text := strings.Join(got, "\n")
			// Every line of the finished items is where the final answer has it.
			third := -1
			for i, l := range got {
				if strings.Contains(l, "session") {
					third = i
					break
				}
			}
			if third < 0 {
				t.Fatalf("no open item in:\n%s", text)
			}
			if done := strings.Join(got[:third], "\n"); strings.Contains(done, "**") {
				t.Errorf("finished items are still raw markdown:\n%s", text)
			}
			for i := 0; i < third; i++ {
				if got[i] != want[i] {
					t.Errorf("line %d streams as %q, finishes as %q", i, got[i], want[i])
				}
			}
			// The open item starts with a bullet and hangs under its text.
			if !strings.HasPrefix(got[third], "• ") {
				t.Errorf("open item %q does not start with a bullet", got[third])
			}
			for _, l := range got[third+1:] {
				if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") {
					t.Errorf("wrapped line %q of the open item does not hang under its text", l)
				}
			}
			for _, l := range want {
				if strings.HasPrefix(l, "•") || l == "" || l == "Findings:" {
					continue
				}
				if !strings.HasPrefix(l, "  ") {
					t.Errorf("wrapped line %q of a rendered item does not hang", l)
				}
			}
		})
	}
}

// TestAssistantOpenItemInline checks that the open list item's inline
// markup is drawn as it will be once the item is finished, not as raw
// markers until the next item starts: the streaming lines equal the
// finished answer's, at any width and nesting.
func TestAssistantOpenItemInline(t *testing.T) {
	cases := map[string]string{
		"bullet":  "Notes:\n\n- **loop**: done\n- **provider**: wraps `ctx` in a *timeout* for every request it sends to the server",
		"ordered": "1. first\n2. the **second** item uses `go test` and ~~old~~ new flags",
		"nested":  "- outer\n  - **inner** item with `code`, long enough to wrap on a narrow screen",
	}
	for name, answer := range cases {
		for _, width := range []int{30, 80} {
			t.Run(fmt.Sprint(name, width), func(t *testing.T) {
				ctx := blockCtx(t, width)
				final := NewAssistantBlock()
				final.AppendText(answer)
				final.Finish()
				want := strings.Join(plainLines(final.Lines(ctx)), "\n")

				b := NewAssistantBlock()
				for i := 0; i < len(answer); i += 5 {
					b.AppendText(answer[i:min(i+5, len(answer))])
					b.Lines(ctx)
				}
				got := strings.Join(plainLines(b.Lines(ctx)), "\n")
				if strings.ContainsAny(got, "*`~") {
					t.Errorf("the open item shows raw markup:\n%s", got)
				}
				if got != want {
					t.Errorf("streams as\n%s\nfinishes as\n%s", got, want)
				}
			})
		}
	}
}

func plainLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return out
}

// FuzzMDSplit holds the stable-prefix split to its invariants for any text
// fed in any pieces: bounds rise, each at the start of a line within the
// text, and the streaming answer's lines stay within the width.
func FuzzMDSplit(f *testing.F) {
	f.Add("Findings:\n\n- **a**: one\n- b\n  ```\n  - x\n  ```\n1. c\n# H\ntext\n", uint8(3))
	f.Add("- a\n\n  more\n- - -\n* b\r\n", uint8(1))
	f.Fuzz(func(t *testing.T, text string, step uint8) {
		n := int(step%16) + 1
		var s mdSplit
		b := NewAssistantBlock()
		ctx := blockCtx(t, 30)
		for i := 0; i < len(text); i += n {
			s.feed(text[:min(i+n, len(text))])
			b.AppendText(text[i:min(i+n, len(text))])
			checkWidth(t, b.Lines(ctx), 30)
		}
		prev := 0
		for _, bd := range s.bounds {
			if bd.at <= prev || bd.at > len(text) || text[bd.at-1] != '\n' {
				t.Fatalf("bound %d after %d in %q (bounds %v)", bd.at, prev, text, s.bounds)
			}
			prev = bd.at
		}
	})
}
