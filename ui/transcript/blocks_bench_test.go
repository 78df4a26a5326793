package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"

	"covey/agent"
	"covey/tools/tool"
)

// markdown20KB is about 20 KB of typical answer markdown: headed sections
// of prose, lists and code.
func markdown20KB() string {
	var b strings.Builder
	for i := 0; b.Len() < 20_000; i++ {
		fmt.Fprintf(&b, "## Step %d\n\nThe loop reads the **stream** and hands each `delta` to the accumulator, which joins the fragments of tool calls by index and id. ", i)
		b.WriteString("When the server sends a keep-alive comment the reader skips it, and when it sends an error chunk the turn ends with a clear message.\n\n")
		b.WriteString("- first, the request is built\n- then it is sent with retries\n- finally the events are emitted\n\n")
		b.WriteString("```go\nfor ev := range events {\n\temit(ev)\n}\n```\n\n")
	}
	return b.String()
}

// BenchmarkAssistantAppendToken appends one token to a streaming 20 KB
// message and renders it, as a frame does while the model writes.
func BenchmarkAssistantAppendToken(b *testing.B) {
	// eol ends a line now and then; in_item starts a new item there, so
	// the open segment is always a list item.
	for name, c := range map[string]struct{ text, eol string }{
		"prose":    {markdown20KB() + "The tail paragraph", "\n"},
		"in_item":  {markdown20KB() + "- the open **item** with `code`", "\n- **item**"},
		"in_fence": {"```go\n" + strings.Repeat("x := compute(a, b, c) // a line of code inside a long fence\n", 340), "\n"},
	} {
		text := c.text
		b.Run(name, func(b *testing.B) {
			ctx := blockCtx(b, 120)
			fresh := func() *AssistantBlock {
				blk := NewAssistantBlock()
				blk.AppendText(text)
				blk.Lines(ctx)
				return blk
			}
			blk := fresh()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if i%500 == 499 {
					// Start over now and then, so the message stays
					// near 20 KB however many times the loop runs.
					b.StopTimer()
					blk = fresh()
					b.StartTimer()
				}
				blk.AppendText(" tok")
				if i%20 == 19 {
					blk.AppendText(c.eol) // lines end now and then
				}
				blk.Lines(ctx)
			}
		})
	}
}

// BenchmarkGlamourFull20KB is what a naive block would pay per token: a
// full render of the message.
func BenchmarkGlamourFull20KB(b *testing.B) {
	ctx := blockCtx(b, 120)
	md := markdown20KB()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ctx.Markdown.Render(md, 120); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSubagentBlockRender draws a live pane on every spinner tick,
// with and without a new event between ticks.
func BenchmarkSubagentBlockRender(b *testing.B) {
	for _, withEvent := range []bool{false, true} {
		b.Run(fmt.Sprintf("event=%v", withEvent), func(b *testing.B) {
			ctx := blockCtx(b, 120)
			blk := newTestPane()
			for i := range 300 {
				blk.Apply(agent.TextDelta{Source: childSource, Text: fmt.Sprintf("chatty line %d of the child's answer\n", i)})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if withEvent {
					blk.Apply(agent.TextDelta{Source: childSource, Text: "more "})
				}
				ctx.Frame++
				ctx.Now = ctx.Now.Add(100 * time.Millisecond)
				blk.Lines(ctx)
			}
		})
	}
}

// BenchmarkFrozenBlockLines is the cost of drawing a finished block again.
func BenchmarkFrozenBlockLines(b *testing.B) {
	ctx := blockCtx(b, 120)
	tb := NewToolBlock(toolStart(toolname.EditFile, `{"path":"agent/loop.go"}`))
	tb.Finish(finished(toolname.EditFile, time.Millisecond, tool.Result{Display: &tool.FileChange{Path: "agent/loop.go", Diff: testDiff}}))
	ab := NewAssistantBlock()
	ab.AppendText(markdown20KB())
	ab.Finish()
	blocks := []Block{tb, ab, testPane("done"), NewUserBlock("hi"), NewNoticeBlock(NoticeInfo, "note")}
	for _, blk := range blocks {
		blk.Lines(ctx)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ctx.Frame++
		for _, blk := range blocks {
			blk.Lines(ctx)
		}
	}
}
