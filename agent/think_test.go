package agent

import "testing"

func TestThinkSplitter(t *testing.T) {
	tests := map[string]struct {
		deltas               []string
		wantText, wantReason string
	}{
		"plain":                  {[]string{"Hello", " world"}, "Hello world", ""},
		"think block":            {[]string{"<think>weigh it</think>\n\nThe answer."}, "The answer.", "weigh it"},
		"tags split over deltas": {[]string{"<th", "ink>a", "b</th", "ink>", "\n", "Yes"}, "Yes", "ab"},
		"leading whitespace":     {[]string{"\n  <think>x</think>ok"}, "ok", "x"},
		"unclosed think":         {[]string{"<think>still thinking"}, "", "still thinking"},
		"looks like a tag":       {[]string{"<thi", "s is text"}, "<this is text", ""},
		"later tags stay text":   {[]string{"Use <think> tags like <think>x</think>."}, "Use <think> tags like <think>x</think>.", ""},
		"less-than in reasoning": {[]string{"<think>a </ b</think>c"}, "c", "a </ b"},
		"only whitespace":        {[]string{"  "}, "  ", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var s thinkSplitter
			var text, reason string
			for _, d := range tc.deltas {
				tx, r := s.feed(d)
				text, reason = text+tx, reason+r
			}
			tx, r := s.flush()
			text, reason = text+tx, reason+r
			if text != tc.wantText || reason != tc.wantReason {
				t.Fatalf("text %q reasoning %q, want %q and %q", text, reason, tc.wantText, tc.wantReason)
			}
		})
	}
}
