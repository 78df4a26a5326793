package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// longText is 30 numbered lines: changes to lines 3 and 25 are two hunks.
var longText = func() string {
	var sb strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}()

// twoHunkEdit is edit_file's arguments changing lines 3 and 25 of path.
func twoHunkEdit(path string) map[string]any {
	return map[string]any{"path": path, "edits": []map[string]any{
		{"old_string": "line 3\n", "new_string": "LINE 3\n"},
		{"old_string": "line 25\n", "new_string": "LINE 25\n"},
	}}
}

// TestTUIEditByHunk drops one hunk of an edit: the file lands with the
// other hunk only, the next request's tool result names the dropped hunk,
// and /undo restores the file.
func TestTUIEditByHunk(t *testing.T) {
	t.Parallel()
	const (
		prompt = "[e2e:hunk-edit] shout lines 3 and 25"
		answer = "E2E hunk answer: line 3 only."
	)
	files := sampleFiles()
	files["long.txt"] = longText
	tm, srv, ws := startApproval(t, files, prompt,
		scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_read_long", Name: "read_file", Args: map[string]any{"path": "long.txt"}}}},
		scripted.Turn{Text: "Editing both lines.", ToolCalls: []scripted.Call{{ID: "call_edit_long", Name: "edit_file", Args: twoHunkEdit("long.txt")}}},
		scripted.Turn{Text: answer, ChunkSize: 100},
	)
	tm.waitText("? Allow edit_file long.txt", "s take/drop hunk", "}/{ next/previous hunk", "[x] @@ -22,7 +22,7 @@")
	// One key at a time: keys that arrive together read as typed text.
	tm.waitApprovalReady()
	tm.waitText("▸ [x] @@ -1,6 +1,6 @@") // the cursor starts on the first hunk
	tm.press("}")
	tm.waitText("▸ [x] @@ -22,7 +22,7 @@")
	tm.press("s")
	s := tm.waitText("▸ [ ] @@ -22,7 +22,7 @@  (dropped)", "(1 of 2 hunks)", "y allow the hunks taken")
	if !strings.Contains(s, "[x] @@ -1,6 +1,6 @@") {
		t.Errorf("the first hunk is not shown taken:\n%s", frame(s))
	}
	tm.press("t") // side by side keeps the choice
	tm.waitText("▸ [ ] @@ -22,7 +22,7 @@  (dropped)", "│")
	tm.press("y")
	s = tm.waitText(answer)
	if recs := approvalRecords(s); len(recs) != 1 || !strings.Contains(recs[0], "✓ allowed 1 of 2 hunks") {
		t.Errorf("approval records %q:\n%s", recs, frame(s))
	}
	want := strings.Replace(longText, "line 3\n", "LINE 3\n", 1)
	if got := readFile(t, filepath.Join(ws, "long.txt")); got != want {
		t.Fatalf("long.txt =\n%s\nwant\n%s", got, want)
	}
	res := toolResult(t, srv, "call_edit_long")
	for _, s := range []string{"took 1 of the 2 hunks", "@@ -22,7 +22,7 @@\n line 22\n line 23\n line 24\n-line 25\n+LINE 25\n"} {
		if !strings.Contains(res, s) {
			t.Errorf("the tool result the model received lacks %q:\n%s", s, res)
		}
	}
	if strings.Contains(res, "as proposed") {
		t.Errorf("a trimmed edit is reported as proposed:\n%s", res)
	}
	tm.submit("/undo")
	tm.waitFor("the undo", waitLong, func(string) bool { return readFile(t, filepath.Join(ws, "long.txt")) == longText })
	tm.quitAndCheck(helpLine)
}

// TestTUIWorktreeMergeByHunk applies part of an isolated child's change:
// one hunk dropped in the merge review, the other merged; nothing left.
func TestTUIWorktreeMergeByHunk(t *testing.T) {
	t.Parallel()
	const (
		prompt = "[e2e:hunk-merge] edit long.txt in a worktree"
		answer = "E2E hunk merge answer."
	)
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_iso", Name: "task", Args: map[string]any{"description": "shout lines", "subagent_type": "general-purpose",
			"prompt": "[hunk-child] shout lines 3 and 25 of long.txt", "isolation": "worktree"}}}},
		{Text: answer, ChunkSize: 200},
	}})
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[hunk-child]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "long.txt"})}},
		{ToolCalls: []scripted.Call{call("edit_file", twoHunkEdit("long.txt"))}},
		{Text: "shouted both"},
	}})
	files := sampleFiles()
	files["long.txt"] = longText
	ws := workspace(t, files)
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit(prompt)
	tm.waitText("? Apply its changes to 1 file", "s take/drop hunk", "[x] @@ -22,7 +22,7 @@")
	tm.waitApprovalReady()
	tm.press("}")
	tm.waitText("▸ [x] @@ -1,6 +1,6 @@")
	tm.press("s")
	tm.waitText("▸ [ ] @@ -1,6 +1,6 @@  (dropped)")
	tm.press("y")
	s := tm.waitText(answer)
	if !strings.Contains(s, "✓ apply 1 file, 1 hunk dropped") {
		t.Errorf("the merge record does not say a hunk was dropped:\n%s", frame(s))
	}
	want := strings.Replace(longText, "line 25\n", "LINE 25\n", 1)
	if got := readFile(t, filepath.Join(ws, "long.txt")); got != want {
		t.Fatalf("long.txt =\n%s\nwant\n%s", got, want)
	}
	res := toolResult(t, srv, "call_iso")
	for _, s := range []string{"[worktree] Applied the child's changes to long.txt", "long.txt:\n@@ -1,6 +1,6 @@\n line 1\n line 2\n-line 3\n+LINE 3\n"} {
		if !strings.Contains(res, s) {
			t.Errorf("the task result lacks %q:\n%s", s, res)
		}
	}
	noWorktreesLeft(t, ws)
	tm.quitAndCheck(helpLine)
}

// scriptAttempts scripts a best-of-N task: the main agent asks for n
// attempts at a brief; each child, held until release is open (so all
// are seen running at once), writes fresh.txt with "attempt-K" (K in
// the order they ask) and reports what it wrote.
func scriptAttempts(srv *scripted.Server, prompt, answer string, n int, release *gate) {
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_best", Name: "task", Args: map[string]any{"description": "write fresh", "subagent_type": "general-purpose",
			"prompt": "[best-child] write fresh.txt", "attempts": n}}}},
		{Text: answer, ChunkSize: 200},
	}})
	var k atomic.Int64
	first := scripted.Turn{Func: func(scripted.Request) scripted.Turn {
		i := k.Add(1)
		if release != nil {
			<-release.ch
		}
		return scripted.Turn{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "fresh.txt", "content": fmt.Sprintf("attempt-%d\n", i)})}}
	}}
	report := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls {
				data, _ := json.Marshal(c.Args)
				if w := attemptRe.FindString(string(data)); w != "" {
					return scripted.Turn{Text: "wrote " + w}
				}
			}
		}
		return scripted.Turn{Text: "wrote nothing"}
	}}
	srv.Add(scripted.Conversation{Name: "attempt", Match: scripted.Match{FirstUser: "[best-child]"}, Turns: []scripted.Turn{first, report}})
}

var attemptRe = regexp.MustCompile(`attempt-\d`)

// TestTUIBestOfThree runs three attempts at once, applies the second from
// the side-by-side review, and leaves no worktree or branch behind.
func TestTUIBestOfThree(t *testing.T) {
	t.Parallel()
	const (
		prompt = "[e2e:best-of-3] write fresh.txt three ways"
		answer = "E2E best answer."
	)
	srv := scriptedtest.New(t)
	release := newGate(t)
	scriptAttempts(srv, prompt, answer, 3, release)
	ws := workspace(t, sampleFiles())
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit(prompt)
	// All three run at once, one group of panes, each in its worktree.
	tm.waitText("write-fresh [general-purpose] attempt 1/3", "write-fresh-2 [general-purpose] attempt 2/3", "write-fresh-3 [general-purpose] attempt 3/3")
	tm.waitFor("three children asking at once", waitLong, func(string) bool {
		n := 0
		for _, e := range srv.Journal() {
			if strings.Contains(e.FirstUser, "[best-child]") && e.Turn == 0 {
				n++
			}
		}
		return n == 3
	})
	if lines := strings.Count(gitOut(t, ws, "worktree", "list"), "\n"); lines != 4 {
		t.Errorf("git worktree list has %d entries while the attempts run, want 4", lines)
	}
	release.open()
	s := tm.waitText("? Apply one of 3 attempts", "showing 1:", "←/→ other attempt", "y apply this attempt", "n apply none")
	for _, w := range []string{"1 write-fresh", "2 write-fresh-2", "3 write-fresh-3", "wrote attempt-"} {
		if !strings.Contains(s, w) {
			t.Errorf("the review does not show %q:\n%s", w, frame(s))
		}
	}
	tm.waitApprovalReady()
	tm.press("Right")
	tm.waitText("showing 2: write-fresh-2")
	tm.press("y")
	s = tm.waitText(answer)
	if !strings.Contains(s, "✓ applied attempt 2 (write-fresh-2)") {
		t.Errorf("no record of the applied attempt:\n%s", frame(s))
	}
	res := toolResult(t, srv, "call_best")
	m := regexp.MustCompile(`## Attempt 2 \(write-fresh-2, done\): applied\nwrote (attempt-\d)`).FindStringSubmatch(res)
	if m == nil || !strings.Contains(res, "Attempt 2 of 3 (write-fresh-2) was applied: the user picked it") {
		t.Fatalf("the task result does not say attempt 2 was applied:\n%s", res)
	}
	if got := readFile(t, filepath.Join(ws, "fresh.txt")); got != m[1]+"\n" {
		t.Errorf("fresh.txt = %q, want attempt 2's %q", got, m[1])
	}
	// The others' worktrees go once the result is back.
	tm.waitFor("the other attempts removed", waitLong, func(string) bool {
		return strings.Count(gitOut(t, ws, "worktree", "list"), "\n") == 1 && strings.TrimSpace(gitOut(t, ws, "branch", "--list", "covey/*")) == ""
	})
	noWorktreesLeft(t, ws)
	tm.quitAndCheck(helpLine)
}

// TestHeadlessBestOfKeepsAll: with nobody to ask and no judge, every
// attempt is kept, its branch and folder named on stderr and in the JSON.
func TestHeadlessBestOfKeepsAll(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	const prompt = "[e2e:best-headless] write fresh.txt twice"
	scriptAttempts(h.srv, prompt, "E2E kept answer", 2, nil)
	r := h.run(t, "", "-p", prompt, "--permission-mode", "acceptEdits", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var out worktreeJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	var numbered struct {
		Children []struct{ Attempt, Attempts int } `json:"children"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &numbered); err != nil || len(numbered.Children) != 2 ||
		numbered.Children[0].Attempt != 1 || numbered.Children[1].Attempt != 2 || numbered.Children[1].Attempts != 2 {
		t.Errorf("the JSON does not number the attempts (%v):\n%s", err, r.stdout)
	}
	kept := 0
	for _, c := range out.Children {
		if c.Worktree == nil || c.Worktree.Status != "kept" {
			t.Errorf("child %s: %+v", c.AgentID, c.Worktree)
			continue
		}
		kept++
		for _, w := range []string{c.Worktree.Branch, c.Worktree.Path} {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("stderr does not name %s:\n%s", w, r.stderr)
			}
		}
		if got := gitOut(t, h.ws, "show", c.Worktree.Branch+":fresh.txt"); !strings.HasPrefix(got, "attempt-") {
			t.Errorf("branch %s holds %q", c.Worktree.Branch, got)
		}
	}
	if kept != 2 {
		t.Fatalf("%d attempts kept, want 2\nstdout:\n%s", kept, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "fresh.txt")); err == nil {
		t.Error("an attempt was applied with nobody to choose")
	}
	if res := toolResult(t, h.srv, "call_best"); !strings.Contains(res, "Every attempt is kept on its branch") {
		t.Errorf("task result:\n%s", res)
	}
}

// TestHeadlessBestOfJudge: subagents.judge names an agent type that picks
// one attempt with a reason; under acceptEdits it is applied and the rest
// removed.
func TestHeadlessBestOfJudge(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files[".covey/config.yaml"] = "subagents:\n  judge: judge\n"
	files[".covey/agents/judge.md"] = "---\nname: judge\ndescription: Picks the best attempt.\ntools: read_file\n---\nYou judge attempts.\n"
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, files), box: newSandbox(t)}
	const prompt = "[e2e:best-judge] write fresh.txt three ways"
	scriptAttempts(h.srv, prompt, "E2E judged answer", 3, nil)
	h.srv.Add(scripted.Conversation{Name: "judge", Match: scripted.Match{FirstUser: "You are judging 3 attempts", SystemContains: "You judge attempts"},
		Turns: []scripted.Turn{{Text: "PICK: 3\nREASON: the third is best."}}})
	start := time.Now()
	// subagents.judge names an agent covey runs by itself: it needs trust.
	r := h.run(t, "", "-p", prompt, "--permission-mode", "acceptEdits", "--output-format", "stream-json", "--trust-project")
	if r.code != 0 {
		t.Fatalf("exit %d after %s\nstderr:\n%s", r.code, time.Since(start), r.stderr)
	}
	res := toolResult(t, h.srv, "call_best")
	m := regexp.MustCompile(`## Attempt 3 \(write-fresh-3, done\): applied\nwrote (attempt-\d)`).FindStringSubmatch(res)
	if m == nil || !strings.Contains(res, "was applied: the judge (judge) picked it: the third is best") {
		t.Fatalf("the task result does not report the judge's pick:\n%s", res)
	}
	if got := readFile(t, filepath.Join(h.ws, "fresh.txt")); got != m[1]+"\n" {
		t.Errorf("fresh.txt = %q, want attempt 3's %q", got, m[1])
	}
	if !strings.Contains(r.stdout, `"status":"applied"`) || strings.Count(r.stdout, `"status":"discarded"`) != 2 {
		t.Errorf("stream-json lacks one applied and two discarded worktree results:\n%s", r.stdout)
	}
	noWorktreesLeft(t, h.ws)
}
