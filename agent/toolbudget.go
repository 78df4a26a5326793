package agent

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"covey/internal/safefile"
)

// DefaultToolResultsBudget bounds the tool results of one assistant
// message together, in bytes, when Config.ToolResultsBudget is 0 (about
// 128k tokens). A hundred parallel reads would otherwise make the next
// request tens of megabytes; the context window work sets the budget from
// the model's window.
const DefaultToolResultsBudget = 512 << 10

// minResultShare is the least a result is cut to, however many share the
// budget (the note alone takes most of a smaller share).
const minResultShare = 1 << 10

// fitToolResults cuts the tool messages of one assistant message so their
// contents total at most budget bytes. The budget is shared fairly:
// results under an equal share keep everything, and what they leave is
// shared among the larger ones, each cut to the same size with a note
// that tells the model what happened and what to do. It returns how many
// results were cut.
func fitToolResults(msgs []Message, budget int) int {
	total := 0
	sizes := make([]int, len(msgs))
	for i, m := range msgs {
		sizes[i] = len(m.Content)
		total += sizes[i]
	}
	if total <= budget || len(msgs) == 0 {
		return 0
	}
	limit := shareCap(sizes, budget)
	cut := 0
	for i := range msgs {
		if sizes[i] <= limit {
			continue
		}
		note := fmt.Sprintf("\n[… result cut from %s to %s: the %d tool results of this message came to %s, over their %s budget. "+
			"Ask for less at a time (offset and limit, a narrower pattern), or fewer calls in one message.]",
			safefile.Size(int64(sizes[i])), safefile.Size(int64(limit)), len(msgs), safefile.Size(int64(total)), safefile.Size(int64(budget)))
		msgs[i].Content = cutAtLine(msgs[i].Content, max(limit-len(note), 0)) + note
		cut++
	}
	return cut
}

// shareCap is the size c at which the sizes, each cut to c, total budget
// (water filling), never below minResultShare.
func shareCap(sizes []int, budget int) int {
	sorted := slices.Clone(sizes)
	slices.Sort(sorted)
	left := budget
	for k, s := range sorted {
		share := left / (len(sorted) - k)
		if s > share {
			return max(share, minResultShare)
		}
		left -= s
	}
	return max(left, minResultShare)
}

// cutAtLine returns at most n bytes of s, ending at a line end when one is
// near (the last fifth) and never inside a UTF-8 sequence.
func cutAtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && i >= n-n/5 {
		s = s[:i+1]
	}
	return s
}
