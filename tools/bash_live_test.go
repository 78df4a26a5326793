package tools

import (
	"context"
	"slices"
	"testing"

	"covey/tools/tool"
)

func TestLastLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one\n", []string{"one"}},
		{"a\nb\n\n  \nc\nd", []string{"b", "c", "d"}},
		{"progress 10%\rprogress 50%\rprogress 90%\n", []string{"progress 90%"}},
		{"crlf\r\nline\r\n", []string{"crlf", "line"}},
		{"bad \xff byte\n", []string{"bad \uFFFD byte"}},
	}
	for _, tc := range tests {
		if got := lastLines([]byte(tc.in), 3); !slices.Equal(got, tc.want) {
			t.Errorf("lastLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLiveOutputKeepsTheEnd: the writer keeps only the end of a long
// output, and without a progress function nothing watches.
func TestLiveOutputKeepsTheEnd(t *testing.T) {
	if watchOutput(t.Context()) != nil {
		t.Fatal("a context that reports to nobody is watched")
	}
	reports := make(chan tool.Progress, 100)
	ctx := tool.WithProgress(context.Background(), func(p tool.Progress) { reports <- p })
	l := watchOutput(ctx)
	for range 2000 {
		_, _ = l.Write([]byte("filler line of some length\n"))
	}
	_, _ = l.Write([]byte("the last line\n"))
	l.mu.Lock()
	n, last := len(l.buf), lastLines(l.buf, 1)
	l.mu.Unlock()
	l.stop()
	if n > liveBytes || !slices.Equal(last, []string{"the last line"}) {
		t.Errorf("kept %d bytes ending %q", n, last)
	}
}
