package transcript

import (
	"strings"
	"testing"
)

func TestNoticeBlockGolden(t *testing.T) {
	tests := map[string]struct {
		level NoticeLevel
		text  string
		width int
	}{
		"info_multiline": {NoticeInfo, "Tokens by child:\n  [Explore] find retries    in 15k  out 3.1k\n  total                     in 40k  out 9.2k", 60},
		"warning":        {NoticeWarning, "rate limited, retrying in 12s", 60},
		"error_wrapped":  {NoticeError, "provider: 401 Unauthorized: check OPENAI_API_KEY or the base URL in your configuration file", 40},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := NewNoticeBlock(tc.level, tc.text)
			if b.Level() != tc.level || b.Focusable() || b.Live() || b.Expanded() {
				t.Fatal("a notice is a static block of its level")
			}
			golden(t, b.Lines(blockCtx(t, tc.width)), tc.width)
		})
	}
}

func TestUserBlock(t *testing.T) {
	tests := map[string]struct {
		text  string
		width int
		want  []string
	}{
		"short":     {"fix the tests", 40, []string{"❯ fix the tests"}},
		"wrapped":   {"please fix the failing tests in agent", 20, []string{"❯ please fix the", "  failing tests in", "  agent"}},
		"multiline": {"one\ntwo\n", 20, []string{"❯ one", "  two"}},
		"narrow":    {"hello", 1, []string{"…", "…", "…", "…", "…"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := NewUserBlock(tc.text)
			ctx := blockCtx(t, tc.width)
			got := b.Lines(ctx)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Lines = %q, want %q", got, tc.want)
			}
			again := b.Lines(ctx)
			if &again[0] != &got[0] {
				t.Error("second render at the same width was not served from the cache")
			}
			if b.Focusable() || b.Live() {
				t.Error("a user message is static")
			}
		})
	}
}
