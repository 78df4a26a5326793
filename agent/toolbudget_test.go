package agent

import (
	"strings"
	"testing"
)

func TestShareCap(t *testing.T) {
	tests := map[string]struct {
		sizes  []int
		budget int
		want   int
	}{
		"equal sizes share equally":   {sizes: []int{4000, 4000, 4000, 4000}, budget: 8000, want: 2000},
		"small ones leave room":       {sizes: []int{100, 100, 10000, 10000}, budget: 8200, want: 4000},
		"never below the least share": {sizes: []int{9000, 9000, 9000}, budget: 30, want: minResultShare},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := shareCap(tc.sizes, tc.budget); got != tc.want {
				t.Fatalf("shareCap = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestFitToolResults(t *testing.T) {
	msgs := []Message{{Content: "short"}, {Content: strings.Repeat("line\n", 2000)}, {Content: strings.Repeat("é", 5000)}}
	if n := fitToolResults(msgs, 8000); n != 2 {
		t.Fatalf("cut %d results, want 2", n)
	}
	total := 0
	for _, m := range msgs {
		total += len(m.Content)
		if !strings.Contains(m.Content, "over their 7.8 KB budget") && m.Content != "short" {
			t.Errorf("a cut result without its note: %q", m.Content[len(m.Content)-200:])
		}
	}
	if total > 8000 || msgs[0].Content != "short" {
		t.Fatalf("total %d bytes, first %q", total, msgs[0].Content)
	}
	if !strings.HasSuffix(strings.SplitN(msgs[1].Content, "\n[…", 2)[0], "line\n") {
		t.Errorf("not cut at a line end: %q", msgs[1].Content[:50])
	}
	if fitToolResults([]Message{{Content: "a"}}, 10) != 0 {
		t.Error("cut results under the budget")
	}
}
