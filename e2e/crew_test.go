package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"covey/e2e/scripted"
)

// startCrew starts the TUI like startScripted with extra flags.
func startCrew(t *testing.T, args ...string) (*term, *scripted.Server, string) {
	t.Helper()
	srv := scripted.NewTest(t)
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, append([]string{"--model", "e2e-model"}, args...)...)
	tm.waitText(helpLine)
	return tm, srv, ws
}

// writerTask is a general-purpose child's entry for the task tool.
func writerTask(marker, description string) map[string]string {
	return map[string]string{"description": description, "subagent_type": "general-purpose",
		"prompt": marker + " Write the notes file."}
}

// overviewName reads the name of the child whose row shows task in the
// crew overview (the first word of its row).
func overviewName(t *testing.T, screen, task string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, task) {
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "›"))
			if len(f) > 0 {
				return f[0]
			}
		}
	}
	t.Fatalf("no overview row for %q:\n%s", task, frame(screen))
	return ""
}

// TestTUICrewOverviewOpenAndDiff drives the crew views in a real terminal:
// a writing child's pane counts the file it wrote; ctrl+g lists both
// children with their states; enter opens the writer full-screen with its
// tool calls and the diff of its file; esc goes back to the overview, and
// again to the conversation; /diff NAME shows the same diff there.
func TestTUICrewOverviewOpenAndDiff(t *testing.T) {
	t.Parallel()
	tm, srv, ws := startCrew(t, "--permission-mode", "acceptEdits")
	release := newGate(t)
	writer := scripted.Conversation{Name: "writer", Match: scripted.Match{FirstUser: "[e2e:writer]"}, Turns: []scripted.Turn{
		{Text: "Writing the notes.", ToolCalls: []scripted.Call{call("write_file", map[string]any{
			"path": "NOTES.md", "content": "crew notes\nline two\n"})}},
		release.hold(scripted.Turn{Text: "writer report: NOTES.md written."}),
	}}
	reader := child{marker: "[e2e:reader]", description: "scan docs", turns: []scripted.Turn{
		{Text: "Globbing the docs.", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.md"})}},
		release.hold(scripted.Turn{Text: "reader report: two docs."}),
	}}
	srv.Add(writer)
	srv.Add(reader.conversation())
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Text: "Two helpers.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": []map[string]string{
			writerTask("[e2e:writer]", "write notes"), reader.task("Look at the docs."),
		}}}}},
		{Text: "E2E crew answer: notes written.", ChunkSize: 100},
	}})

	tm.submit("write the notes")
	tm.waitMatch(regexp.MustCompile(`\[general-purpose\] write notes\s.*1 tool · 1 file \+2 −0 · `))
	tm.waitMatch(toolsRe("scan docs", 1))

	tm.press("C-g")
	s := tm.waitText("Crew · 2 subagents · 2 running")
	for _, want := range []string{"write notes", "scan docs", "general-purpose", "Explore"} {
		if !strings.Contains(s, want) {
			t.Errorf("the overview lacks %q:\n%s", want, frame(s))
		}
	}
	if strings.Contains(s, "I'll") || strings.Contains(s, "❯ write the notes") {
		t.Errorf("the overview still shows the conversation:\n%s", frame(s))
	}
	name := overviewName(t, s, "write notes")

	// The writer is the first row and selected; enter opens it.
	tm.press("Enter")
	s = tm.waitText("Changed files · 1 file +2 −0", "+crew notes")
	for _, want := range []string{"Writing the notes.", "write_file", "NOTES.md (added, +2 −0)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the writer's full-screen view lacks %q:\n%s", want, frame(s))
		}
	}
	if strings.Contains(s, "Globbing the docs.") {
		t.Errorf("the writer's view shows its sibling's activity:\n%s", frame(s))
	}
	tm.press("Escape")
	tm.waitText("Crew · 2 subagents")
	tm.press("Escape")
	tm.waitText("❯ write the notes")

	release.open()
	tm.waitText("E2E crew answer: notes written.")
	tm.submit("/diff " + name)
	tm.waitText("Files changed by "+name, "+line two")
	if b, err := os.ReadFile(filepath.Join(ws, "NOTES.md")); err != nil || string(b) != "crew notes\nline two\n" {
		t.Errorf("NOTES.md on disk: %q, %v", b, err)
	}
	tm.submit("/diff nobody-at-all")
	tm.waitText("no subagent named nobody-at-all")
	tm.quitAndCheck(helpLine)
}
