package transcript

import (
	"strings"
	"testing"

	"covey/agent"
	"covey/tools/tool"
)

// maxFuzzFrames bounds how many frames a fuzz input is streamed in.
const maxFuzzFrames = 64

// FuzzBlocksText streams arbitrary text into an answer and a pane.
func FuzzBlocksText(f *testing.F) {
	f.Add("# T\n\n```go\nx\n\ny\n```\n\n- a\n- b", 7, 40)
	f.Add("\t\r\n\x1b[1m\n\n~~~\n\n", 1, 5)
	f.Add(strings.Repeat("日本語 ", 50), 3, 11)
	f.Add("\xe8\xaa00\xe60\xa5 \x1b[2J\u009b", 3, 12)
	f.Add("x\n| a | b \\| |\n|:-:|--:|\n| 1 |\n\n- [x] ~~y~~ ~~~z~\n- [ ]", 5, 9)
	f.Fuzz(func(t *testing.T, text string, step, width int) {
		step = max(1+abs(step)%32, len(text)/maxFuzzFrames) // see FuzzMDSplit
		width = 1 + abs(width)%160
		ctx := blockCtx(t, width)
		a := NewAssistantBlock()
		p := NewSubagentBlock(agent.ChildStarted{Source: childSource})
		for i := 0; i < len(text); i += step {
			chunk := text[i:min(i+step, len(text))]
			a.AppendText(chunk)
			a.AppendReasoning(chunk)
			p.Apply(agent.TextDelta{Source: childSource, Text: chunk})
			p.Apply(agent.ToolStarted{Source: childSource, CallID: chunk, Name: chunk, KeyArg: chunk})
			checkWidth(t, a.Lines(ctx), width)
			checkWidth(t, p.Lines(ctx), width)
		}
		a.Finish()
		p.Apply(agent.ChildFinished{Source: childSource, Reason: agent.StopError, Error: text, Summary: text})
		checkWidth(t, a.Lines(ctx), width)
		checkWidth(t, p.Lines(ctx), width)
		tb := NewToolBlock(agent.ToolStarted{Name: text, KeyArg: text})
		tb.Finish(agent.ToolFinished{Result: tool.Result{Content: text, Summary: text}})
		tb.SetExpanded(true)
		checkWidth(t, tb.Lines(ctx), width)
		checkWidth(t, NewUserBlock(text).Lines(ctx), width)
		checkWidth(t, NewNoticeBlock(NoticeWarning, text).Lines(ctx), width)
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
