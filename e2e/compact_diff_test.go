package e2e

import (
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestCompactTUIDiff: /diff NAME shows the changes a subagent made before
// a compaction, after it, and again in the session resumed with
// --continue: it reads the subagent's recorded changes, which the summary
// does not replace.
func TestCompactTUIDiff(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "writer", Match: scripted.Match{FirstUser: "[e2e:cdiff-writer]"}, Turns: []scripted.Turn{
		{Text: "Writing the notes.", ToolCalls: []scripted.Call{call("write_file", map[string]any{
			"path": "NOTES.md", "content": "compact notes\nsecond line kept\n"})}},
		{Text: "writer report: NOTES.md written."},
	}})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: "delegate the notes"}, Turns: []scripted.Turn{
		{Text: "One helper.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": []map[string]string{
			writerTask("[e2e:cdiff-writer]", "write notes"),
		}}}}},
		{Text: "E2E cdiff answer: notes written."},
	}})
	summary := make([]scripted.Turn, 20)
	for i := range summary {
		summary[i] = scripted.Turn{Text: "Summary: a helper wrote NOTES.md."}
	}
	srv.Add(scripted.Conversation{Name: "summary", Match: scripted.Match{SystemContains: "conversation summariser"}, Turns: summary})

	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, "--model", "e2e-model", "--permission-mode", "acceptEdits")
	tm.waitText(helpLine)
	tm.submit("delegate the notes")
	tm.waitText("E2E cdiff answer: notes written.")
	tm.press("C-g")
	name := overviewName(t, tm.waitText("Crew · 1 subagent"), "write notes")
	tm.press("Escape")
	tm.waitText("❯ delegate the notes")

	tm.submit("/compact")
	tm.waitText("context compacted:")
	tm.submit("/diff " + name)
	tm.waitText("Files changed by "+name, "NOTES.md (added, +2 −0)", "+second line kept")
	tm.quitAndCheck(helpLine)

	// The resumed session replays the file; the summary is what the model
	// gets, the subagent's changes are still there to show.
	tm = startTUI(t, ws, env, "--continue", "--model", "e2e-model", "--permission-mode", "acceptEdits")
	tm.waitText("resumed session", "context compacted:")
	tm.submit("/diff " + name)
	tm.waitText("Files changed by "+name, "NOTES.md (added, +2 −0)", "+second line kept")
	tm.quitAndCheck(helpLine)
}
