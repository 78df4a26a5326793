package transcript

import (
	"strings"
	"testing"
)

// TestHugeMessagesShownCut: a user message or an answer of 20 MB draws at
// most maxShownText of it, with a last line saying how much is left out
// (drawn whole, a 50 MB message kept the first frame waiting 10-45 s).
func TestHugeMessagesShownCut(t *testing.T) {
	line := strings.Repeat("word ", 15) + "\n"
	text := strings.Repeat(line, (20<<20)/len(line)) // about 20 MB of prose
	ans := NewAssistantBlock()
	ans.AppendText(text)
	ans.Finish()
	for name, b := range map[string]Block{"user": NewUserBlock(text), "assistant": ans} {
		t.Run(name, func(t *testing.T) {
			lines := b.Lines(blockCtx(t, 100))
			joined := strings.Join(lines, "\n")
			if len(joined) > 2*maxShownText {
				t.Errorf("%d bytes drawn of a 20 MB message", len(joined))
			}
			if !strings.Contains(joined, "MB more of this message not shown here; the whole message is in the conversation") {
				t.Errorf("no note of what was left out; last lines:\n%s", strings.Join(lines[max(len(lines)-3, 0):], "\n"))
			}
		})
	}
	if got := shownText("short\n"); got != "short\n" {
		t.Errorf("a short message was changed: %q", got)
	}
}
