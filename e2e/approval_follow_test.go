package e2e

import (
	"fmt"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestTUIAnsweredRequestFollowsTheEnd: a child's request shown under its
// pane, with a sibling's busy pane below it, scrolls the transcript away
// from its end; once the request is answered, the transcript follows the
// end again, so the main agent's answer after it shows without "new output
// below". At 80x24 the request and the pane below it do not fit together;
// at 200x50 they do.
func TestTUIAnsweredRequestFollowsTheEnd(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			const (
				prompt = "[e2e:follow] two helpers"
				answer = "THE END of the story."
			)
			answered := newGate(t)
			var intro strings.Builder
			for i := 1; i <= 12; i++ {
				fmt.Fprintf(&intro, "Paragraph %d of a long introduction.\n\n", i)
			}
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
				{Text: intro.String() + "Starting two helpers.", ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{"tasks": []map[string]string{
					{"description": "edit the file", "subagent_type": "general-purpose", "prompt": "[kid-edit] shout lines 3 and 25"},
					{"description": "wait a while", "subagent_type": "Explore", "prompt": "[kid-wait] look around"},
				}}}}},
				{Text: answer},
			}})
			srv.Add(scripted.Conversation{Name: "kid-edit", Match: scripted.Match{FirstUser: "[kid-edit]"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "long.txt"})}},
				{ToolCalls: []scripted.Call{call("edit_file", twoHunkEdit("long.txt"))}},
				{Text: "edited"},
			}})
			srv.Add(scripted.Conversation{Name: "kid-wait", Match: scripted.Match{FirstUser: "[kid-wait]"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{call("list_dir", map[string]any{"path": "."})}},
				{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "*.txt"})}},
				{Text: "Step three, thinking it over.", ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "long.txt"})}},
				answered.hold(scripted.Turn{Text: "waited and done"}),
			}})
			files := sampleFiles()
			files["long.txt"] = longText
			tm := startTUI(t, workspace(t, files), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
			tm.waitText(helpLine)
			tm.resize(size[0], size[1])
			tm.submit(prompt)
			tm.waitText("? Allow edit_file long.txt")
			tm.waitApprovalReady()
			// The sibling below has made its calls: its pane is as tall as
			// it gets while the request waits.
			tm.waitFor("the sibling's third call", waitLong, func(string) bool {
				for _, e := range srv.Journal() {
					if strings.Contains(e.FirstUser, "[kid-wait]") && len(e.Messages) >= 8 {
						return true
					}
				}
				return false
			})
			tm.press("y")
			tm.waitText("✓ allowed")
			answered.open()
			s := tm.waitText(answer)
			if strings.Contains(s, "new output below") {
				t.Errorf("the transcript does not follow its end after the answer:\n%s", frame(s))
			}
		})
	}
}
