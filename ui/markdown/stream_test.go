package markdown

import (
	"fmt"
	"strings"
	"testing"
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
				var s Split
				for i := 0; i < len(tc.text); i += step {
					s.Feed(tc.text[:min(i+step, len(tc.text))])
				}
				parts := make([]string, len(s.bounds))
				for i, b := range s.bounds {
					parts[i] = fmt.Sprint(b.At)
					if b.Tight {
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
