package demo

import (
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/tools/toolname"
)

// TestLongTurn checks how a long child answers: its plan's next step, a
// search for the words of a message it was just sent, what that search
// found, and a report that answers the message.
func TestLongTurn(t *testing.T) {
	brief := scripted.Message{Role: "user", Content: longWalkTask + ", listing each."}
	step := func(name, result string) []scripted.Message {
		return []scripted.Message{
			{Role: "assistant", ToolCalls: []scripted.Call{{Name: name}}},
			{Role: "tool", Name: name, Content: result},
		}
	}
	var steps []scripted.Message
	for range longSteps {
		steps = append(steps, step(toolname.ListDir, "a/\nb.go")...)
	}
	msg := scripted.Message{Role: "user", Content: "where is the Greeting defined?"}
	found := step(toolname.Grep, "greet/greet.go")
	cat := func(parts ...[]scripted.Message) []scripted.Message {
		var out []scripted.Message
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name     string
		msgs     []scripted.Message
		wantText []string
		wantCall string // "" for a report
		wantArg  string
	}{
		{"first step", cat([]scripted.Message{brief}), []string{"Step 1 of 8: listing the top level."}, toolname.ListDir, `"."`},
		{"a folder of the first listing", cat([]scripted.Message{brief}, steps[:2]), []string{"Step 2 of 8: listing a/."}, toolname.ListDir, `"a"`},
		{"a message", cat([]scripted.Message{brief}, steps[:2], []scripted.Message{msg}),
			[]string{"Got your message: “where is the Greeting defined?”", "Greeting, defined"}, toolname.Grep, `Greeting|defined`},
		{"what the search found", cat([]scripted.Message{brief}, steps[:2], []scripted.Message{msg}, found),
			[]string{"About your message: Greeting, defined appears in 1 file (greet/greet.go).", "Step 2 of 8"}, toolname.ListDir, `"a"`},
		{"the report", cat([]scripted.Message{brief}, steps[:2], []scripted.Message{msg}, found, steps[2:]),
			[]string{"Done after 8 steps.", "You asked: “where is the Greeting defined?”. About your message: Greeting, defined appears in 1 file (greet/greet.go)."}, "", ""},
		{"a message with no word", cat([]scripted.Message{brief}, steps, []scripted.Message{{Role: "assistant", Content: "Done."}, {Role: "user", Content: "ok?"}}),
			[]string{"It has no word I can search for", "Done after 8 steps.", "You wrote “ok?”"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turn := longTurn(scripted.Request{Entry: scripted.Entry{Messages: tc.msgs}}, walkStep)
			got := turn.Text
			if tc.wantCall == "" && len(turn.ToolCalls) > 0 {
				t.Errorf("calls %v, want a report", turn.ToolCalls)
			}
			if tc.name == "a message with no word" {
				// The report replaces the acknowledgement; the message is in it.
				tc.wantText = tc.wantText[1:]
			}
			for _, w := range tc.wantText {
				if !strings.Contains(got, w) {
					t.Errorf("text %q lacks %q", got, w)
				}
			}
			if tc.wantCall != "" {
				if len(turn.ToolCalls) != 1 || turn.ToolCalls[0].Name != tc.wantCall {
					t.Fatalf("calls %v, want one %s", turn.ToolCalls, tc.wantCall)
				}
				if args := fmtArgs(turn.ToolCalls[0].Args); !strings.Contains(args, tc.wantArg) {
					t.Errorf("args %s lack %s", args, tc.wantArg)
				}
			}
			if turn.Delay != longTurnDelay {
				t.Errorf("delay %v, want the long pacing %v", turn.Delay, longTurnDelay)
			}
		})
	}
}

func fmtArgs(a any) string {
	var b strings.Builder
	if m, ok := a.(map[string]any); ok {
		for k, v := range m {
			b.WriteString(k + "=")
			if s, ok := v.(string); ok {
				b.WriteString(`"` + s + `"`)
			}
			b.WriteString(" ")
		}
	}
	return b.String()
}
