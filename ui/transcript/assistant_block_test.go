package transcript

import (
	"fmt"
	"strings"
	"testing"
)

const testAnswer = "## Where retries happen\n\nThe loop calls `provider.Stream` and **retries** on 429 and 5xx.\n\n```go\nfor attempt := 0; attempt < 4; attempt++ {\n\n\tif err == nil {\n\t\tbreak\n\t}\n}\n```\n\n- backoff doubles\n- capped at 60 s\n\nThe tail is still being writ"

func TestAssistantBlockGolden(t *testing.T) {
	tests := map[string]struct {
		text, reasoning string
		finish, expand  bool
		width           int
	}{
		"streaming":          {text: testAnswer, width: 80},
		"streaming_in_fence": {text: "Here is the fix:\n\n```go\nfunc a() {\n\n\treturn", width: 60},
		"finished":           {text: testAnswer + "ten.\n", finish: true, width: 80},
		"finished_narrow":    {text: testAnswer + "ten.\n", finish: true, width: 40},
		"reasoning_collapsed": {text: "Short answer.", reasoning: "First I read the loop.\nThen the provider.\nThen the tests.\nThen I thought about backoff.\nDone thinking.",
			width: 60},
		"reasoning_expanded": {text: "Short answer.", reasoning: "First I read the loop.\nThen the provider.\nThen the tests.\nThen I thought about backoff.\nDone thinking.",
			expand: true, width: 60},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := NewAssistantBlock()
			b.AppendReasoning(tc.reasoning)
			// Stream in small pieces, as a model does.
			for i := 0; i < len(tc.text); i += 7 {
				b.AppendText(tc.text[i:min(i+7, len(tc.text))])
			}
			if tc.finish {
				b.Finish()
			}
			b.SetExpanded(tc.expand)
			golden(t, b.Lines(blockCtx(t, tc.width)), tc.width)
		})
	}
}

func TestAssistantStableBoundaries(t *testing.T) {
	tests := map[string]struct {
		text string
		want []int // byte offsets where stable segments end (a closing fence ends its block)
	}{
		"no break":            {"one paragraph\nstill going", nil},
		"one break":           {"para one\n\npara two", []int{10}},
		"break not yet ended": {"para one\n", nil},
		"double blank":        {"a\n\n\n\nb", []int{3}},
		"leading blank":       {"\n\na", nil},
		"blank in fence":      {"x\n\n```\ncode\n\nmore\n```\n\ny", []int{3, 22}},
		"tilde fence":         {"~~~\n\n~~~\n\nz", []int{9}},
		"unclosed fence":      {"```\na\n\nb\n\n", nil},
		"longer close":        {"````\na\n```\n\nstill code\n````\n\nz", []int{28}},
		"blank with spaces":   {"a\n   \nb", []int{6}},
		"crlf":                {"a\r\n\r\nb", []int{5}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// The result must not depend on how the text is split.
			for _, step := range []int{1, 3, len(tc.text)} {
				b := NewAssistantBlock()
				for i := 0; i < len(tc.text); i += step {
					b.AppendText(tc.text[i:min(i+step, len(tc.text))])
				}
				var got []int
				for _, bd := range b.split.Bounds() {
					got = append(got, bd.At)
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("step %d: bounds = %v, want %v", step, got, tc.want)
				}
			}
		})
	}
}

func TestAssistantAppendIsIncremental(t *testing.T) {
	ctx := blockCtx(t, 80)
	b := NewAssistantBlock()
	b.AppendText("First paragraph with **markdown**.\n\nSecond one, streaming")
	b.Lines(ctx)
	if ctx.Markdown.Renders() != 1 {
		t.Fatalf("first render made %d glamour calls, want 1 (the stable paragraph)", ctx.Markdown.Renders())
	}
	for _, tok := range []string{" more", " words", " here."} {
		b.AppendText(tok)
		lines := b.Lines(ctx)
		if !strings.HasSuffix(lines[len(lines)-1], tok) {
			t.Errorf("tail %q does not end with the token %q", lines[len(lines)-1], tok)
		}
	}
	if ctx.Markdown.Renders() != 1 {
		t.Errorf("appending tokens called glamour %d times in all, want no new calls", ctx.Markdown.Renders())
	}
	b.AppendText("\n\nThird")
	b.Lines(ctx)
	if ctx.Markdown.Renders() != 2 {
		t.Errorf("a new paragraph break made %d calls in all, want 2 (only the new segment)", ctx.Markdown.Renders())
	}
	b.Finish()
	b.Lines(ctx)
	b.Lines(ctx)
	if ctx.Markdown.Renders() != 3 {
		t.Errorf("Finish rendered %d times in all, want one more call", ctx.Markdown.Renders())
	}
	v := b.Version()
	b.AppendText("late")
	if b.Version() != v || strings.Contains(b.Text(), "late") {
		t.Error("text appended after Finish changed the block")
	}
}

func TestAssistantCacheAndWidths(t *testing.T) {
	b := NewAssistantBlock()
	b.AppendReasoning(strings.Repeat("think ", 100))
	b.AppendText(testAnswer)
	for _, width := range []int{1, 10, 40, 60, 120} {
		t.Run(fmt.Sprintf("width %d", width), func(t *testing.T) {
			ctx := blockCtx(t, width)
			n := b.recompute
			first := b.Lines(ctx)
			second := b.Lines(ctx)
			if b.recompute != n+1 || len(first) == 0 || &first[0] != &second[0] {
				t.Errorf("two renders at one width computed %d times", b.recompute-n)
			}
			checkWidth(t, first, width)
			ctx.Markdown = nil // plain fallback
			b.SetExpanded(true)
			checkWidth(t, b.Lines(ctx), width)
			b.SetExpanded(false)
		})
	}
	if !b.Focusable() || b.Live() {
		t.Error("a block with reasoning must be focusable and never live")
	}
	if NewAssistantBlock().Focusable() {
		t.Error("a block without reasoning is focusable")
	}
}
