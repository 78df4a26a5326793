package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestTUIRequestNeverAnsweredUnseen: a child's request that arrives while
// the crew overview is open closes it and shows the request under the
// child's pane, so the y the user presses next answers a request on the
// screen (it used to take the keys behind the overview, unseen).
func TestTUIRequestNeverAnsweredUnseen(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			const prompt = "[e2e:unseen] one helper"
			g := newGate(t)
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
				{Text: "Starting a helper.", ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{
					"description": "edit the file", "subagent_type": "general-purpose", "prompt": "[kid-unseen] shout lines 3 and 25"}}}},
				{Text: "UNSEEN DONE."},
			}})
			srv.Add(scripted.Conversation{Name: "kid", Match: scripted.Match{FirstUser: "[kid-unseen]"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "long.txt"})}},
				g.hold(scripted.Turn{ToolCalls: []scripted.Call{call("edit_file", twoHunkEdit("long.txt"))}}),
				{Text: "edited"},
			}})
			files := sampleFiles()
			files["long.txt"] = longText
			tm := startTUI(t, workspace(t, files), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
			tm.waitText(helpLine)
			tm.resize(size[0], size[1])
			tm.submit(prompt)
			tm.waitMatch(regexp.MustCompile(`edit-file \[general-purpose\].*\b1 tool · `))
			tm.press("C-g")
			tm.waitText("Crew · 1 subagent")
			g.open()
			s := tm.waitText("? Allow edit_file long.txt")
			if strings.Contains(s, "Crew · ") {
				t.Fatalf("the request took the keys behind the overview:\n%s", frame(s))
			}
			tm.waitApprovalReady()
			tm.press("y")
			tm.waitText("✓ allowed")
			tm.waitText("UNSEEN DONE.")
		})
	}
}
