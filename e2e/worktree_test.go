package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// sharedText is a file two isolated children edit at once: one line near
// the top, one near the bottom (a clean three-way merge), or the same line
// (a conflict).
const sharedText = "alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\ngolf\nhotel\nindia\njuliet\n"

// worktreeFiles is the sample project plus the shared file.
func worktreeFiles() map[string]string {
	files := sampleFiles()
	files["shared.txt"] = sharedText
	return files
}

// isolatedEdit scripts an isolated child (found by marker) that reads
// shared.txt and replaces old with new in it, then reports.
func isolatedEdit(srv *scripted.Server, marker, old, new string) {
	srv.Add(scripted.Conversation{Name: marker, Match: scripted.Match{FirstUser: marker}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "shared.txt"})}},
		{ToolCalls: []scripted.Call{call("edit_file", map[string]any{"path": "shared.txt", "old_string": old, "new_string": new})}},
		{Text: marker + " edited shared.txt"},
	}})
}

// isolatedTasks is the main agent's one task call starting two isolated
// children, then its answer.
func isolatedTasks(srv *scripted.Server, prompt, answer string, markers ...string) {
	var tasks []map[string]any
	for _, m := range markers {
		tasks = append(tasks, map[string]any{"description": "edit " + m, "subagent_type": "general-purpose",
			"prompt": m + " edit shared.txt", "isolation": "worktree"})
	}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{Text: "Two children, each in its own worktree.", ToolCalls: []scripted.Call{{ID: "call_iso_tasks", Name: "task", Args: map[string]any{"tasks": tasks}}}},
		{Text: answer, ChunkSize: 200},
	}})
}

// gitOut runs git in dir and returns its output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// noWorktreesLeft checks that the repository has its one checkout, no
// covey branch and no ownership record.
func noWorktreesLeft(t *testing.T, ws string) {
	t.Helper()
	if out := gitOut(t, ws, "worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
		t.Errorf("worktrees left behind:\n%s", out)
	}
	if out := gitOut(t, ws, "branch", "--list", "covey/*"); strings.TrimSpace(out) != "" {
		t.Errorf("branches left behind: %s", out)
	}
	if ents, _ := os.ReadDir(filepath.Join(ws, ".git", "covey-worktrees")); len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("records or folders left in .git/covey-worktrees: %v", names)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTUIWorktreeChildrenMerge runs two isolated children editing one file
// at once. The user's checkout stays untouched while they work; each
// child's change comes up as one merge approval, applied in turn with y,
// the second merged three-way onto the first; no worktree or branch is left.
func TestTUIWorktreeChildrenMerge(t *testing.T) {
	t.Parallel()
	const (
		prompt = "[e2e:worktree-merge] edit shared.txt twice"
		answer = "E2E worktree answer: both edits are in."
	)
	srv := scriptedtest.New(t)
	isolatedTasks(srv, prompt, answer, "[wt-top]", "[wt-bottom]")
	isolatedEdit(srv, "[wt-top]", "bravo\n", "BRAVO from top\n")
	isolatedEdit(srv, "[wt-bottom]", "india\n", "INDIA from bottom\n")
	ws := workspace(t, worktreeFiles())
	shared := filepath.Join(ws, "shared.txt")
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit(prompt)

	// Both children have written and answered (the second one's merge
	// waits its turn behind the first).
	s := tm.waitText("? Apply its changes to 1 file", "y apply the chosen files", "n discard all",
		"[wt-top] edited shared.txt", "[wt-bottom] edited shared.txt")
	if !strings.Contains(s, "in its own worktree (covey/") || !strings.Contains(s, "from HEAD ") {
		t.Errorf("the panes do not say where the children work and from which base:\n%s", frame(s))
	}
	// Both children wrote their edit before asking; the checkout is as it was.
	if got := readFile(t, shared); got != sharedText {
		t.Fatalf("shared.txt changed before any merge was allowed:\n%s", got)
	}
	if st := gitOut(t, ws, "status", "--porcelain"); st != "" {
		t.Fatalf("the checkout is not clean while the children run:\n%s", st)
	}
	if lines := strings.Count(gitOut(t, ws, "worktree", "list"), "\n"); lines != 3 {
		t.Errorf("git worktree list has %d entries while both children wait, want 3", lines)
	}
	tm.waitApprovalReady()
	tm.press("y")
	// The answer is recorded at once; the merge itself follows, and its
	// outcome shows under the pane.
	tm.waitText("✓ apply 1 file", "Applied the child's changes to shared.txt")
	tm.waitFor("the second merge", waitLong, func(s string) bool {
		return strings.Contains(s, "? Apply its changes") && strings.Count(s, "✓ apply 1 file") == 1
	})
	if got := readFile(t, shared); !strings.Contains(got, "from top") && !strings.Contains(got, "from bottom") {
		t.Fatalf("after the first y, shared.txt has neither edit:\n%s", got)
	}
	tm.waitApprovalReady()
	tm.press("y")
	s = tm.waitText(answer)
	if n := strings.Count(s, "✓ apply 1 file"); n != 2 {
		t.Errorf("%d merge records, want 2:\n%s", n, frame(s))
	}
	want := strings.NewReplacer("bravo\n", "BRAVO from top\n", "india\n", "INDIA from bottom\n").Replace(sharedText)
	if got := readFile(t, shared); got != want {
		t.Errorf("shared.txt after both merges =\n%s\nwant\n%s", got, want)
	}
	res := toolResult(t, srv, "call_iso_tasks")
	if strings.Count(res, "[worktree] Applied the child's changes to shared.txt") != 2 {
		t.Errorf("the task result does not report both merges:\n%s", res)
	}
	noWorktreesLeft(t, ws)
	tm.quitAndCheck(helpLine)
}

// worktreeJSON is the part of -p --output-format json that reports
// isolated children.
type worktreeJSON struct {
	Children []struct {
		AgentID  string `json:"agent_id"`
		Worktree *struct {
			Status    string   `json:"status"`
			Path      string   `json:"path"`
			Branch    string   `json:"branch"`
			Commit    string   `json:"commit"`
			Files     []string `json:"files"`
			Conflicts []string `json:"conflicts"`
			Message   string   `json:"message"`
		} `json:"worktree"`
	} `json:"children"`
}

// TestHeadlessWorktreeConflict: with acceptEdits two isolated children that
// change the same line are applied in turn; the first lands, the second
// conflicts and is not written at all, its worktree and branch kept and
// named on stderr and in the JSON; once covey has exited, `covey worktrees`
// lists it and `covey worktrees prune` removes it.
func TestHeadlessWorktreeConflict(t *testing.T) {
	t.Parallel()
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, worktreeFiles()), box: newSandbox(t)}
	const prompt = "[e2e:worktree-conflict] change delta twice"
	isolatedTasks(h.srv, prompt, "E2E conflict answer", "[wt-one]", "[wt-two]")
	isolatedEdit(h.srv, "[wt-one]", "delta\n", "DELTA one\n")
	isolatedEdit(h.srv, "[wt-two]", "delta\n", "DELTA two\n")
	r := h.run(t, "", "-p", prompt, "--permission-mode", "acceptEdits", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var out worktreeJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	var statuses []string
	var kept string
	var keptBranch string
	for _, c := range out.Children {
		if c.Worktree == nil {
			t.Fatalf("child %s has no worktree outcome in the JSON:\n%s", c.AgentID, r.stdout)
		}
		statuses = append(statuses, c.Worktree.Status)
		if c.Worktree.Status == "conflict" {
			kept, keptBranch = c.Worktree.Path, c.Worktree.Branch
			if !slices.Equal(c.Worktree.Conflicts, []string{"shared.txt"}) || c.Worktree.Commit == "" {
				t.Errorf("the conflict names %v (commit %q), want shared.txt and the kept commit", c.Worktree.Conflicts, c.Worktree.Commit)
			}
		}
	}
	slices.Sort(statuses)
	if !slices.Equal(statuses, []string{"applied", "conflict"}) {
		t.Fatalf("worktree outcomes %v, want one applied and one conflict\nstderr:\n%s", statuses, r.stderr)
	}
	for _, want := range []string{"worktree conflict", kept, keptBranch, "shared.txt", "nothing was applied"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	// Exactly one edit landed, whole.
	got := readFile(t, filepath.Join(h.ws, "shared.txt"))
	one, two := strings.Replace(sharedText, "delta", "DELTA one", 1), strings.Replace(sharedText, "delta", "DELTA two", 1)
	if got != one && got != two {
		t.Fatalf("shared.txt after a conflict =\n%s\nwant exactly one child's edit", got)
	}
	if strings.Contains(got, "<<<<<<<") {
		t.Fatal("conflict markers were written into the checkout")
	}
	// The kept change is on its branch, whole.
	if show := gitOut(t, h.ws, "show", keptBranch+":shared.txt"); show == got || !strings.Contains(show, "DELTA") {
		t.Errorf("the kept branch does not hold the other child's edit:\n%s", show)
	}

	env := h.box.env()
	list := runCovey(t, h.ws, env, "", "worktrees")
	if list.code != 0 || !strings.Contains(list.stdout, keptBranch) || !strings.Contains(list.stdout, "kept (its child finished") || !strings.Contains(list.stdout, "1 file changed") {
		t.Fatalf("covey worktrees (exit %d):\n%s%s", list.code, list.stdout, list.stderr)
	}
	// Applying it now conflicts again: refused whole, nothing written.
	again := runCovey(t, h.ws, env, "", "worktrees", "apply", keptBranch)
	if again.code == 0 || !strings.Contains(again.stderr, "shared.txt") || !strings.Contains(again.stderr, "nothing was applied") {
		t.Errorf("covey worktrees apply of a conflicting change (exit %d):\n%s%s", again.code, again.stdout, again.stderr)
	}
	if now := readFile(t, filepath.Join(h.ws, "shared.txt")); now != got {
		t.Fatalf("a refused apply changed shared.txt:\n%s", now)
	}
	prune := runCovey(t, h.ws, env, "", "worktrees", "prune")
	if prune.code != 0 || !strings.Contains(prune.stdout, "removed "+kept) {
		t.Fatalf("covey worktrees prune (exit %d):\n%s%s", prune.code, prune.stdout, prune.stderr)
	}
	noWorktreesLeft(t, h.ws)
}

// TestHeadlessWorktreeDefaultKeeps: in the default mode nobody can allow
// the merge, so it is not applied; the kept branch and folder are named on
// stderr, in the JSON and in the stream-json events.
func TestHeadlessWorktreeDefaultKeeps(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, worktreeFiles()), box: newSandbox(t)}
			const prompt = "[e2e:worktree-keep] change echo"
			isolatedTasks(h.srv, prompt, "E2E keep answer", "[wt-keep]")
			isolatedEdit(h.srv, "[wt-keep]", "echo\n", "ECHO kept\n")
			r := h.run(t, "", "-p", prompt, "--output-format", format)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			if got := readFile(t, filepath.Join(h.ws, "shared.txt")); got != sharedText {
				t.Fatalf("the default mode applied the merge:\n%s", got)
			}
			var path, branch string
			if format == "json" {
				var out worktreeJSON
				if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Children) != 1 || out.Children[0].Worktree == nil {
					t.Fatalf("JSON: %v\n%s", err, r.stdout)
				}
				w := out.Children[0].Worktree
				if w.Status != "kept" || !strings.Contains(w.Message, "acceptEdits") {
					t.Errorf("worktree outcome %+v, want kept with how to allow it", w)
				}
				path, branch = w.Path, w.Branch
			} else {
				for _, line := range strings.Split(r.stdout, "\n") {
					var ev struct {
						Type   string `json:"type"`
						Status string `json:"status"`
						Path   string `json:"path"`
						Branch string `json:"branch"`
					}
					if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "worktree_result" {
						if ev.Status != "kept" {
							t.Errorf("worktree_result status %q, want kept", ev.Status)
						}
						path, branch = ev.Path, ev.Branch
					}
				}
			}
			if path == "" || !strings.HasPrefix(branch, "covey/") {
				t.Fatalf("no kept worktree named in the %s output:\n%s", format, r.stdout)
			}
			for _, want := range []string{"worktree kept", path, branch} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not name %q:\n%s", want, r.stderr)
				}
			}
			if show := gitOut(t, h.ws, "show", branch+":shared.txt"); !strings.Contains(show, "ECHO kept") {
				t.Errorf("the kept branch lacks the child's edit:\n%s", show)
			}
			// Once covey has exited, the kept change can still be applied.
			ap := runCovey(t, h.ws, h.box.env(), "", "worktrees", "apply", branch)
			if ap.code != 0 || !strings.Contains(ap.stdout, "applied "+branch+" to shared.txt") {
				t.Fatalf("covey worktrees apply (exit %d):\n%s%s", ap.code, ap.stdout, ap.stderr)
			}
			if got := readFile(t, filepath.Join(h.ws, "shared.txt")); got != strings.Replace(sharedText, "echo", "ECHO kept", 1) {
				t.Errorf("shared.txt after covey worktrees apply:\n%s", got)
			}
			noWorktreesLeft(t, h.ws)
		})
	}
}

// TestWorktreeKilledMidChild kills covey with SIGKILL while an isolated
// child works: its worktree is left behind, `covey worktrees` lists it, the
// next covey says so at start, and /worktrees prune cleans everything up.
func TestWorktreeKilledMidChild(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	const prompt = "[e2e:worktree-kill] start a slow child"
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_slow", Name: "task", Args: map[string]any{
			"description": "slow edit", "subagent_type": "general-purpose", "prompt": "[wt-slow] edit", "isolation": "worktree"}}}},
		{Text: "never reached"},
	}})
	srv.Add(scripted.Conversation{Name: "slow", Match: scripted.Match{FirstUser: "[wt-slow]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "slow.txt", "content": "half done\n"})}},
		{Stall: true},
	}})
	srv.Add(scripted.Conversation{Name: "later", Match: scripted.Match{FirstUser: "[e2e:after-kill]"}, Turns: []scripted.Turn{{Text: "ok"}}})
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit(prompt)
	tm.waitText("in its own worktree (covey/")
	tm.waitFor("the child's write", waitLong, func(string) bool {
		for _, e := range srv.Journal() {
			if strings.Contains(e.FirstUser, "[wt-slow]") && len(e.Messages) > 2 {
				return true // its second request carries the write's result
			}
		}
		return false
	})
	if err := syscall.Kill(tm.coveyPID(), syscall.SIGKILL); err != nil {
		t.Fatalf("kill covey: %v", err)
	}
	if code, _, s := tm.exited(); code != "137" {
		t.Fatalf("covey exited with %q after SIGKILL, want 137:\n%s", code, frame(s))
	}
	if _, err := os.Stat(filepath.Join(ws, "slow.txt")); err == nil {
		t.Fatal("the isolated child's write reached the checkout")
	}

	list := runCovey(t, ws, env, "", "worktrees")
	if list.code != 0 || !strings.Contains(list.stdout, "left behind (covey pid") || !strings.Contains(list.stdout, "1 file changed") {
		t.Fatalf("covey worktrees after the kill (exit %d):\n%s%s", list.code, list.stdout, list.stderr)
	}

	js := runCovey(t, ws, env, "", "worktrees", "--json")
	var rows []struct {
		Branch  string `json:"branch"`
		PID     int    `json:"pid"`
		Live    bool   `json:"live"`
		Changed int    `json:"changed"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &rows); err != nil || len(rows) != 1 || rows[0].Live || rows[0].Changed != 1 || !strings.HasPrefix(rows[0].Branch, "covey/slow-edit-") {
		t.Errorf("covey worktrees --json = %s (%v)", js.stdout, err)
	}

	// A headless run says so too, naming the command to run.
	if h := runCovey(t, ws, env, "", "-p", "[e2e:after-kill] hi", "--model", "e2e-model"); h.code != 0 ||
		!strings.Contains(h.stderr, "1 worktree left behind") || !strings.Contains(h.stderr, "covey worktrees prune") {
		t.Errorf("covey -p after the kill (exit %d) does not mention the worktree left behind:\n%s", h.code, h.stderr)
	}

	tm2 := startTUI(t, ws, env, "--model", "e2e-model")
	s := tm2.waitText("1 worktree left behind (a crash, a conflict, or a change nobody applied)", "/worktrees prune")
	if !strings.Contains(s, "covey/") {
		t.Errorf("the start-up notice does not name the branch:\n%s", frame(s))
	}
	tm2.submit("/worktrees prune")
	tm2.waitText("ℹ removed ", "branch covey/slow-edit-")
	noWorktreesLeft(t, ws)
	if got := runCovey(t, ws, env, "", "worktrees"); got.code != 0 || !strings.Contains(got.stdout, "no worktrees made by covey") {
		t.Errorf("covey worktrees after prune (exit %d):\n%s%s", got.code, got.stdout, got.stderr)
	}
	tm2.quitAndCheck(helpLine)
}

// TestTUIWorktreeDiscard: n on a merge discards the child's change whole;
// the checkout stays as it was and no worktree or branch is left.
func TestTUIWorktreeDiscard(t *testing.T) {
	t.Parallel()
	const (
		prompt = "[e2e:worktree-discard] edit shared.txt"
		answer = "E2E discard answer"
	)
	srv := scriptedtest.New(t)
	isolatedTasks(srv, prompt, answer, "[wt-discard]")
	isolatedEdit(srv, "[wt-discard]", "golf\n", "GOLF discarded\n")
	ws := workspace(t, worktreeFiles())
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit(prompt)
	tm.waitText("? Apply its changes to 1 file", "GOLF discarded")
	tm.waitApprovalReady()
	tm.press("n")
	s := tm.waitText(answer, "The user discarded the child's changes")
	if !strings.Contains(s, "✗ discarded 1 file") {
		t.Errorf("no record of the discard:\n%s", frame(s))
	}
	if got := readFile(t, filepath.Join(ws, "shared.txt")); got != sharedText {
		t.Errorf("shared.txt after a discard:\n%s", got)
	}
	if st := gitOut(t, ws, "status", "--porcelain"); st != "" {
		t.Errorf("the checkout is not clean after a discard:\n%s", st)
	}
	noWorktreesLeft(t, ws)
	tm.quitAndCheck(helpLine)
}
