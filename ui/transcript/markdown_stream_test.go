package transcript

import (
	"fmt"
	"strings"
	"testing"

	"covey/ui/cells/cellstest"
	"covey/ui/markdown"
)

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
			want := cellstest.Plain(final.Lines(ctx))

			b := NewAssistantBlock()
			// Stream up to the middle of the third item.
			cut := strings.Index(answer, "session file is written") + len("session file is written")
			for i := 0; i < cut; i += 7 {
				b.AppendText(answer[i:min(i+7, cut)])
				b.Lines(ctx)
			}
			got := cellstest.Plain(b.Lines(ctx))
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
				want := strings.Join(cellstest.Plain(final.Lines(ctx)), "\n")

				b := NewAssistantBlock()
				for i := 0; i < len(answer); i += 5 {
					b.AppendText(answer[i:min(i+5, len(answer))])
					b.Lines(ctx)
				}
				got := strings.Join(cellstest.Plain(b.Lines(ctx)), "\n")
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

// FuzzMDSplit holds the stable-prefix split to its invariants for any text
// fed in any pieces: bounds rise, each at the start of a line within the
// text, and the streaming answer's lines stay within the width.
func FuzzMDSplit(f *testing.F) {
	f.Add("Findings:\n\n- **a**: one\n- b\n  ```\n  - x\n  ```\n1. c\n# H\ntext\n", uint8(3))
	f.Add("- a\n\n  more\n- - -\n* b\r\n", uint8(1))
	f.Fuzz(func(t *testing.T, text string, step uint8) {
		// At most maxFuzzFrames frames an input: each renders the whole
		// unfinished text again, so a long input cut byte by byte cost the
		// square of its length (minutes for a few KB nested deep).
		n := max(int(step%16)+1, len(text)/maxFuzzFrames)
		var s markdown.Split
		b := NewAssistantBlock()
		ctx := blockCtx(t, 30)
		for i := 0; i < len(text); i += n {
			s.Feed(text[:min(i+n, len(text))])
			b.AppendText(text[i:min(i+n, len(text))])
			checkWidth(t, b.Lines(ctx), 30)
		}
		prev := 0
		for _, bd := range s.Bounds() {
			if bd.At <= prev || bd.At > len(text) || text[bd.At-1] != '\n' {
				t.Fatalf("bound %d after %d in %q (bounds %v)", bd.At, prev, text, s.Bounds())
			}
			prev = bd.At
		}
	})
}
