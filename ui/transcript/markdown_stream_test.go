package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

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

// TestAssistantStreamsOpenBlocks: a code fence still open streams as the
// highlighted code it will be (a string open across lines stays a
// string), and a table whose rows are still arriving streams as a table
// of its complete rows: at every step the lines drawn are those the
// finished answer draws (the open code line as far as it goes), with no
// fence marker or pipe row shown raw.
func TestAssistantStreamsOpenBlocks(t *testing.T) {
	const code = "Here is the fix:\n\n```go\nfunc greet() string {\n\ts := `a raw string\nacross lines`\n\treturn s // done\n}\n```\n\nDone."
	const table = "The results:\n\n| test | time | result |\n|------|-----:|--------|\n| TestLoop | 1.2s | ok |\n| TestProvider | 0.3s | FAIL |\n| TestSession | 12s | ok |\n\nTwo passed."
	for name, answer := range map[string]string{"code": code, "table": table} {
		for _, width := range []int{40, 80} {
			t.Run(fmt.Sprint(name, width), func(t *testing.T) {
				ctx := blockCtx(t, width)
				// Colours on: the highlighting is compared too.
				lipgloss.SetColorProfile(termenv.TrueColor)
				t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
				final := NewAssistantBlock()
				final.AppendText(answer)
				final.Finish()
				want := final.Lines(ctx)
				b := NewAssistantBlock()
				start := strings.Index(answer, "\n\n") + 2 // the block's first byte
				end := strings.LastIndex(answer, "\n\n")   // its last line's end
				for i := 0; i <= end; i++ {
					b.AppendText(answer[i : i+1])
					got := b.Lines(ctx)
					plain := cellstest.Plain(got)
					for _, l := range plain {
						if strings.Contains(l, "```") || strings.HasPrefix(strings.TrimSpace(l), "|--") {
							t.Fatalf("after %q the block shows raw:\n%s", answer[:i+1], strings.Join(plain, "\n"))
						}
					}
					if name == "table" {
						// Columns widen as rows arrive: the rows are drawn as
						// a table, and as the finished one once all are in.
						if i < start || !markdown.TableStart(answer[start:i+1]) {
							continue
						}
						if !strings.Contains(strings.Join(plain, "\n"), "│") || strings.Contains(strings.Join(plain[2:], "\n"), "|") {
							t.Fatalf("after %q the table is not drawn as one:\n%s", answer[:i+1], strings.Join(plain, "\n"))
						}
						if i < end {
							continue
						}
					}
					// The complete lines are the finished answer's.
					n := len(got)
					if name == "code" && answer[i] != '\n' && n > 0 {
						n-- // the open line: checked below
					}
					for j := 0; j < n; j++ {
						if j >= len(want) || got[j] != want[j] {
							t.Fatalf("after %q line %d streams as %q, finishes as %q\nstreaming:\n%s", answer[:i+1], j, got[j], want[min(j, len(want)-1)], strings.Join(plain, "\n"))
						}
					}
				}
				// The open code line, as far as it goes, is drawn as code.
				if name == "code" {
					b := NewAssistantBlock()
					b.AppendText(code[:strings.Index(code, "done")])
					got := cellstest.Plain(b.Lines(ctx))
					if last := got[len(got)-1]; last != "      return s //" {
						t.Errorf("the open code line is drawn %q", last)
					}
				}
			})
		}
	}
}
