package subagent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"covey/agent"
	"covey/agentdefs"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/permission"
	"covey/subagent"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// gitRun runs git in dir for a test.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// isoHarness is a main agent whose task tool runs children in worktrees of
// a real repository, with a gate that answers merges through answer.
type isoHarness struct {
	*harness
	root   string
	mu     sync.Mutex
	merges []permission.Request
	writes []permission.Request
}

func newIsoHarness(t *testing.T, git bool, answer func(req permission.Request) permission.Verdict, defs ...agentdefs.Definition) *isoHarness {
	return newIsoHarnessWith(t, isoOpts{git: git, defs: defs}, answer)
}

// isoOpts vary the harness: a git repository or none, the workspace in
// the folder sub of the repository ("" for its top), the manager's limits
// and undo log, extra definitions.
type isoOpts struct {
	git                bool
	sub                string
	depth, concurrency int
	undo               *workspace.UndoLog
	defs               []agentdefs.Definition
	judge              string
}

// newIsoHarnessWith makes the harness; h.root is the workspace.
func newIsoHarnessWith(t *testing.T, o isoOpts, answer func(req permission.Request) permission.Verdict) *isoHarness {
	t.Helper()
	git, sub, undo, defs := o.git, o.sub, o.undo, o.defs
	top := t.TempDir()
	h := &isoHarness{harness: &harness{t: t, srv: scriptedtest.New(t)}, root: filepath.Join(top, sub)}
	if err := os.MkdirAll(h.root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.root, "notes.txt"), []byte("one\ntwo\nthree\nfour\nfive\nsix\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if git {
		gitRun(t, top, "init", "--quiet", "-b", "main")
		gitRun(t, top, "add", ".")
		gitRun(t, top, "commit", "--quiet", "-m", "first")
	}
	ws, err := workspace.NewWorkspace(h.root)
	if err != nil {
		t.Fatal(err)
	}
	gate := permission.GateFunc(func(ctx context.Context, req permission.Request) permission.Verdict {
		h.mu.Lock()
		if req.Tool == permission.ToolMerge || req.Tool == permission.ToolPickAttempt {
			h.merges = append(h.merges, req)
		} else {
			h.writes = append(h.writes, req)
		}
		h.mu.Unlock()
		if req.Tool == permission.ToolMerge || req.Tool == permission.ToolPickAttempt {
			return answer(req)
		}
		return permission.Verdict{Allowed: req.Isolated || req.Tool == toolname.Bash, Reason: "only isolated writes and commands in this test"}
	})
	h.manager = subagent.NewManager(subagent.Config{
		Defs: agentdefs.NewSet(append(agentdefs.Builtins(), defs...)...), Workspace: ws, Gate: gate,
		Environment: agent.Environment{Root: h.root},
		Resolve: func(def agentdefs.Definition) (agent.Provider, string, error) {
			return h.provider(), "child-model", nil
		},
		Emit: h.emit, Undo: undo, MaxDepth: o.depth, Concurrency: o.concurrency, Judge: o.judge,
	})
	reg := tool.NewRegistry(tools.Builtins(&tools.Env{WS: ws})...)
	reg.Add(h.manager.Tool(agent.Source{AgentID: agent.MainAgentID}))
	h.main = agent.New(agent.Config{
		Provider: h.provider(), Model: "main-model", System: "You are the main test agent.",
		Tools: reg, MaxTurns: 5, Emit: h.emit,
	})
	return h
}

// TestIsolatedMergeUndo: /undo takes an applied merge back with the turn.
func TestIsolatedMergeUndo(t *testing.T) {
	undo, err := workspace.OpenUndoLog(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newIsoHarnessWith(t, isoOpts{git: true, undo: undo}, func(permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} })
	h.mainScript("go", isoTask("edit", "child-u"))
	h.child("child-u",
		scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.ReadFile, Args: map[string]string{"path": "notes.txt"}}}},
		scripted.Turn{ToolCalls: []scripted.Call{
			{Name: toolname.WriteFile, Args: map[string]string{"path": "notes.txt", "content": "changed\n"}},
			{Name: toolname.WriteFile, Args: map[string]string{"path": "made.txt", "content": "made\n"}},
		}},
		scripted.Turn{Text: "done"})
	undo.BeginTurn()
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.read("notes.txt"); got != "changed\n" {
		t.Fatalf("notes.txt = %q after the merge", got)
	}
	if _, err := undo.Undo(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.read("notes.txt"); got != "one\ntwo\nthree\nfour\nfive\nsix\n" {
		t.Errorf("notes.txt after /undo = %q", got)
	}
	if _, ok := h.read("made.txt"); ok {
		t.Error("made.txt survived /undo")
	}
}

func isoTask(desc, prompt string) map[string]string {
	return map[string]string{"description": desc, "subagent_type": "general-purpose", "prompt": prompt, "isolation": "worktree"}
}

// writes scripts a child that writes path with content, then reports.
func (h *isoHarness) writer(marker, path, content string) {
	h.child(marker,
		scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.WriteFile, Args: map[string]string{"path": path, "content": content}}}},
		scripted.Turn{Text: "wrote " + path})
}

func (h *isoHarness) read(rel string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(h.root, rel))
	return string(data), err == nil
}

// clean checks that no worktree or covey branch is left.
func (h *isoHarness) clean() {
	h.t.Helper()
	if out := gitRun(h.t, h.root, "worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
		h.t.Errorf("worktrees left:\n%s", out)
	}
	if out := gitRun(h.t, h.root, "branch", "--list", "covey/*"); out != "" {
		h.t.Errorf("branches left: %s", out)
	}
}

func (h *isoHarness) result() agent.WorktreeResult {
	h.t.Helper()
	rs := h.eventsOf("worktree_result")
	if len(rs) != 1 {
		h.t.Fatalf("%d worktree results, want 1", len(rs))
	}
	return rs[0].(agent.WorktreeResult)
}

func TestIsolatedChildApplied(t *testing.T) {
	var h *isoHarness
	var duringRun string
	h = newIsoHarness(t, true, func(req permission.Request) permission.Verdict {
		// The user's checkout is untouched until the merge is allowed.
		duringRun, _ = h.read("new.txt")
		return permission.Verdict{Allowed: true, ByUser: true}
	})
	h.mainScript("go", isoTask("write it", "child-w"))
	h.writer("child-w", "new.txt", "from the child\n")
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if duringRun != "" {
		t.Errorf("the child's file reached the checkout before the review: %q", duringRun)
	}
	started := h.eventsOf("child_started")[0].(agent.ChildStarted)
	for _, e := range h.srv.Journal() {
		if e.FirstUser != "child-w" {
			continue
		}
		sys := e.Messages[0].Content
		if !strings.Contains(sys, "- Workspace root: "+started.Worktree.Path) || !strings.Contains(sys, "# Your worktree") {
			t.Errorf("the child's system prompt does not place it in its worktree:\n%s", sys)
		}
		break
	}
	if got, _ := h.read("new.txt"); got != "from the child\n" {
		t.Errorf("new.txt = %q after the merge was allowed", got)
	}
	if len(h.merges) != 1 || len(h.merges[0].Changes) != 1 || h.merges[0].Changes[0].Path != "new.txt" || !h.merges[0].Changes[0].Created {
		t.Fatalf("merge requests = %+v", h.merges)
	}
	if len(h.writes) != 1 || !h.writes[0].Isolated {
		t.Errorf("the child's write was not marked isolated: %+v", h.writes)
	}
	if started.Worktree == nil || !strings.HasPrefix(started.Worktree.Branch, "covey/") || !strings.Contains(started.Worktree.Base, "HEAD ") {
		t.Errorf("ChildStarted.Worktree = %+v", started.Worktree)
	}
	files := h.eventsOf("child_files")
	if len(files) == 0 || files[0].(agent.ChildFiles).Files[0].Path != "new.txt" || files[0].(agent.ChildFiles).Files[0].Status != "added" {
		t.Errorf("child_files events = %+v", files)
	}
	if r := h.result(); r.Status != agent.WorktreeApplied || !slices.Equal(r.Files, []string{"new.txt"}) {
		t.Errorf("result = %+v", r)
	}
	if res := h.taskResult("task_1"); !strings.Contains(res, "[worktree] Applied the child's changes to new.txt") {
		t.Errorf("task result does not say the change was applied:\n%s", res)
	}
	h.clean()
}

func TestIsolatedChildAnswers(t *testing.T) {
	tests := map[string]struct {
		verdict    permission.Verdict
		userEdit   string // written to notes.txt before answering
		wantStatus string
		wantNotes  string
		wantNew    bool
		wantKept   bool
		wantText   []string
	}{
		"discarded by the user": {
			verdict: permission.Verdict{Reason: "no thanks", ByUser: true}, wantStatus: agent.WorktreeDiscarded,
			wantNotes: "one\ntwo\nthree\nfour\nfive\nsix\n", wantText: []string{"discarded", "no thanks"},
		},
		"refused with nobody to ask: kept": {
			verdict: permission.Verdict{Reason: "nobody can be asked in a headless run"}, wantStatus: agent.WorktreeKept,
			wantNotes: "one\ntwo\nthree\nfour\nfive\nsix\n", wantKept: true, wantText: []string{"not applied", "nobody can be asked", "covey/"},
		},
		"kept for later by the user": {
			verdict: permission.Verdict{Reason: "kept", ByUser: true, Keep: true}, wantStatus: agent.WorktreeKept,
			wantNotes: "one\ntwo\nthree\nfour\nfive\nsix\n", wantKept: true, wantText: []string{"kept the child's changes (2 files) for later", "covey worktrees apply"},
		},
		"per-file choice": {
			verdict: permission.Verdict{Allowed: true, ByUser: true, Files: []string{"new.txt"}}, wantStatus: agent.WorktreeApplied,
			wantNotes: "one\ntwo\nthree\nfour\nfive\nsix\n", wantNew: true, wantText: []string{"discarded, as the user chose: notes.txt"},
		},
		"merged with the user's edit": {
			verdict: permission.Verdict{Allowed: true, ByUser: true}, userEdit: "ONE\ntwo\nthree\nfour\nfive\nsix\n",
			wantStatus: agent.WorktreeApplied, wantNotes: "ONE\ntwo\nthree\nfour\nfive\nSIX\n", wantNew: true,
		},
		"conflict with the user's edit: kept, nothing written": {
			verdict: permission.Verdict{Allowed: true, ByUser: true}, userEdit: "one\ntwo\nthree\nfour\nfive\nsix (user)\n",
			wantStatus: agent.WorktreeConflict, wantNotes: "one\ntwo\nthree\nfour\nfive\nsix (user)\n", wantKept: true,
			wantText: []string{"conflicts", "notes.txt", "nothing was applied"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var h *isoHarness
			h = newIsoHarness(t, true, func(req permission.Request) permission.Verdict {
				if tc.userEdit != "" {
					if err := os.WriteFile(filepath.Join(h.root, "notes.txt"), []byte(tc.userEdit), 0o644); err != nil {
						t.Error(err)
					}
				}
				return tc.verdict
			})
			h.mainScript("go", isoTask("edit", "child-e"))
			h.child("child-e",
				scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.ReadFile, Args: map[string]string{"path": "notes.txt"}}}},
				scripted.Turn{ToolCalls: []scripted.Call{
					{Name: toolname.WriteFile, Args: map[string]string{"path": "notes.txt", "content": "one\ntwo\nthree\nfour\nfive\nSIX\n"}},
					{Name: toolname.WriteFile, Args: map[string]string{"path": "new.txt", "content": "new\n"}},
				}},
				scripted.Turn{Text: "done"})
			if _, err := h.main.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			r := h.result()
			if r.Status != tc.wantStatus {
				t.Fatalf("status = %s, want %s (%s)", r.Status, tc.wantStatus, r.Message)
			}
			if got, _ := h.read("notes.txt"); got != tc.wantNotes {
				t.Errorf("notes.txt = %q, want %q", got, tc.wantNotes)
			}
			if _, ok := h.read("new.txt"); ok != tc.wantNew {
				t.Errorf("new.txt exists: %v, want %v", ok, tc.wantNew)
			}
			res := h.taskResult("task_1")
			for _, s := range tc.wantText {
				if !strings.Contains(res, s) {
					t.Errorf("task result does not say %q:\n%s", s, res)
				}
			}
			if !tc.wantKept {
				h.clean()
				return
			}
			if !strings.Contains(res, r.Path) || !strings.Contains(res, r.Branch) {
				t.Errorf("a kept change's result must name its folder and branch:\n%s", res)
			}
			// The kept branch holds the child's work as a commit.
			if got := gitRun(t, h.root, "show", r.Branch+":notes.txt"); got != "one\ntwo\nthree\nfour\nfive\nSIX\n" {
				t.Errorf("notes.txt on the kept branch = %q", got)
			}
			if _, err := os.Stat(r.Path); err != nil {
				t.Errorf("kept worktree: %v", err)
			}
			gitRun(t, h.root, "worktree", "remove", "--force", r.Path)
			gitRun(t, h.root, "branch", "-D", r.Branch)
		})
	}
}

func TestIsolationNeedsGit(t *testing.T) {
	h := newIsoHarness(t, false, func(permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} })
	h.mainScript("go", isoTask("write it", "child-w"))
	h.writer("child-w", "new.txt", "x\n")
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := h.taskResult("task_1")
	if !strings.Contains(res, "not inside a git repository") || !strings.Contains(res, "not started") {
		t.Errorf("task result = %q, want the reason it could not be isolated", res)
	}
	for _, e := range h.srv.Journal() {
		if e.FirstUser == "child-w" {
			t.Fatal("the child ran without its worktree")
		}
	}
	if _, ok := h.read("new.txt"); ok {
		t.Error("the child wrote into the workspace")
	}
}

func TestIsolationNeedsGitInstalled(t *testing.T) {
	h := newIsoHarness(t, true, func(permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} })
	h.mainScript("go", isoTask("write it", "child-w"))
	h.writer("child-w", "new.txt", "x\n")
	t.Setenv("PATH", t.TempDir()) // no git to be found
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if res := h.taskResult("task_1"); !strings.Contains(res, "git is not installed") || !strings.Contains(res, "not started") {
		t.Errorf("task result = %q, want the reason it could not be isolated", res)
	}
	if _, ok := h.read("new.txt"); ok {
		t.Error("the child wrote into the workspace")
	}
}

// TestIsolatedChangesOutsideTheWorkspace: in a workspace below the
// repository's top, what a child's command changed outside the workspace
// is not applied, and stays committed on the kept branch.
func TestIsolatedChangesOutsideTheWorkspace(t *testing.T) {
	h := newIsoHarnessWith(t, isoOpts{git: true, sub: "sub"}, func(permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} })
	h.mainScript("go", isoTask("edit", "child-o"))
	h.child("child-o",
		scripted.Turn{ToolCalls: []scripted.Call{
			{Name: toolname.WriteFile, Args: map[string]string{"path": "in.txt", "content": "in\n"}},
			{Name: toolname.Bash, Args: map[string]string{"command": "echo out > ../outside.txt"}},
		}},
		scripted.Turn{Text: "done"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(h.merges) != 1 || len(h.merges[0].Changes) != 1 || h.merges[0].Changes[0].Path != "in.txt" {
		t.Fatalf("merge requests %+v, want in.txt alone", h.merges)
	}
	if got, _ := h.read("in.txt"); got != "in\n" {
		t.Errorf("in.txt = %q", got)
	}
	top := filepath.Dir(h.root)
	if _, err := os.Stat(filepath.Join(top, "outside.txt")); err == nil {
		t.Error("a change outside the workspace was applied")
	}
	r := h.result()
	if r.Status != agent.WorktreeApplied || !strings.Contains(r.Message, "../outside.txt") || !strings.Contains(r.Message, r.Branch) {
		t.Errorf("result %+v", r)
	}
	if got := gitRun(t, top, "show", r.Branch+":outside.txt"); got != "out\n" {
		t.Errorf("outside.txt on the kept branch = %q", got)
	}
	gitRun(t, top, "worktree", "remove", "--force", r.Path)
	gitRun(t, top, "branch", "-D", r.Branch)
}

// TestNestedIsolation: an isolated child's own children work inside its
// worktree (an isolated one in a worktree made from it, merged into it
// without a question); nothing reaches the user's files until the
// isolated child's one merge, which carries them all.
func TestNestedIsolation(t *testing.T) {
	boss := agentdefs.Definition{Name: "boss", Description: "delegates", Isolation: agentdefs.IsolationWorktree,
		Tools: []string{toolname.Task, toolname.ReadFile, toolname.WriteFile}, Prompt: "boss agent", Scope: agentdefs.Project}
	var h *isoHarness
	var before []bool
	h = newIsoHarnessWith(t, isoOpts{git: true, depth: 2, defs: []agentdefs.Definition{boss}}, func(req permission.Request) permission.Verdict {
		for _, f := range []string{"g.txt", "i.txt", "b.txt"} {
			_, ok := h.read(f)
			before = append(before, ok)
		}
		return permission.Verdict{Allowed: true, ByUser: true}
	})
	h.mainScript("go", task("lead", "boss", "child-boss"))
	h.child("child-boss",
		scripted.Turn{ToolCalls: []scripted.Call{
			{Name: toolname.WriteFile, Args: map[string]string{"path": "b.txt", "content": "boss\n"}},
			{Name: "task", Args: map[string]any{"tasks": []map[string]string{
				{"description": "plain", "subagent_type": "general-purpose", "prompt": "child-g"},
				{"description": "isolated", "subagent_type": "general-purpose", "prompt": "child-i", "isolation": "worktree"},
			}}},
		}},
		scripted.Turn{Text: "boss done"})
	h.writer("child-g", "g.txt", "g\n")
	h.writer("child-i", "i.txt", "i\n")
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(before, true) {
		t.Errorf("files reached the user's checkout before the boss's merge: %v", before)
	}
	var userMerges []permission.Request
	for _, m := range h.merges {
		if !m.Isolated {
			userMerges = append(userMerges, m)
		}
	}
	if len(userMerges) != 1 {
		t.Fatalf("%d merges proposed to the user, want the boss's alone: %+v", len(userMerges), h.merges)
	}
	var paths []string
	for _, c := range userMerges[0].Changes {
		paths = append(paths, c.Path)
	}
	if !slices.Equal(paths, []string{"b.txt", "g.txt", "i.txt"}) {
		t.Errorf("the boss's merge carries %v, want its own file and both children's", paths)
	}
	for _, f := range []string{"b.txt", "g.txt", "i.txt"} {
		if _, ok := h.read(f); !ok {
			t.Errorf("%s missing after the merge", f)
		}
	}
	h.clean()
}

// TestIsolatedChildCancelledWhileQueued: a child stopped before it ever
// ran leaves no worktree behind.
func TestIsolatedChildCancelledWhileQueued(t *testing.T) {
	h := newIsoHarnessWith(t, isoOpts{git: true, concurrency: 1}, func(permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} })
	ctx, cancel := context.WithCancel(context.Background())
	// The main agent's turn is cancelled as soon as the child is announced;
	// a concurrency of one keeps the second child queued until then.
	h.mainScript("go", batch(isoTask("first", "child-1"), isoTask("second", "child-2")))
	h.child("child-1", scripted.Turn{Stall: true})
	h.child("child-2", scripted.Turn{Text: "never"})
	go func() {
		for len(h.eventsOf("child_started")) < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	_, _ = h.main.Run(ctx, "go")
	h.manager.Close()
	h.clean()
}

func TestIsolationFromDefinition(t *testing.T) {
	def := agentdefs.Definition{Name: "isolated", Description: "works apart", Isolation: agentdefs.IsolationWorktree, Prompt: "isolated agent", Scope: agentdefs.Project}
	h := newIsoHarness(t, true, func(permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} }, def)
	h.mainScript("go", task("write", "isolated", "child-d"))
	h.writer("child-d", "d.txt", "d\n")
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(h.merges) != 1 {
		t.Fatalf("%d merges, want 1: the definition's isolation was ignored", len(h.merges))
	}
	if got, _ := h.read("d.txt"); got != "d\n" {
		t.Errorf("d.txt = %q", got)
	}
	h.clean()
}

func TestIsolationArgument(t *testing.T) {
	h := newIsoHarness(t, true, func(permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} })
	h.mainScript("go", map[string]string{"description": "x", "subagent_type": "general-purpose", "prompt": "child-x", "isolation": "container"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if res := h.taskResult("task_1"); !strings.Contains(res, `isolation must be "worktree"`) {
		t.Errorf("task result = %q", res)
	}
}

// TestRestoredIsolatedChildResumesInAWorktree checks that a child that
// worked in its own worktree before a restart, resumed by a message, works
// in a new worktree again and its changes come back through a reviewed
// merge, never straight into the user's checkout.
func TestRestoredIsolatedChildResumesInAWorktree(t *testing.T) {
	tests := map[string]struct {
		restored subagent.Restored
	}{
		"isolated by its task call": {restored: subagent.Restored{Isolated: true,
			Source: agent.Source{AgentID: "general-purpose-4", ParentID: agent.MainAgentID, AgentType: "general-purpose", Depth: 1, Name: "isolde"}}},
		"isolated by its definition": {restored: subagent.Restored{
			Source: agent.Source{AgentID: "walled-4", ParentID: agent.MainAgentID, AgentType: "walled", Depth: 1, Name: "isolde"}}},
	}
	walled, _, err := agentdefs.Parse("walled.md", []byte("---\nname: walled\ndescription: d\nisolation: worktree\n---\np\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var h *isoHarness
			var duringRun string
			h = newIsoHarness(t, true, func(req permission.Request) permission.Verdict {
				duringRun, _ = h.read("new.txt")
				return permission.Verdict{Allowed: true, ByUser: true}
			}, walled)
			defer h.closeAll(nil)
			r := tt.restored
			r.Reason = agent.StopOK
			r.Messages = []agent.Message{{Role: agent.RoleUser, Content: "restored-iso: write"}, {Role: agent.RoleAssistant, Content: "not yet"}}
			h.manager.Restore([]subagent.Restored{r})
			h.child("restored-iso", scripted.Turn{Text: "first"},
				scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.WriteFile, Args: map[string]string{"path": "new.txt", "content": "from the child\n"}}}},
				scripted.Turn{Text: "wrote new.txt"})
			h.srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: `[background agent "isolde"`}, Turns: []scripted.Turn{{Text: "noted"}}})
			d := h.manager.NewDriver(h.main, nil)
			defer d.Close()
			if err := h.manager.Send(context.Background(), "isolde", "write it now"); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := d.Wait(context.Background()); !ok {
				t.Fatal("the resumed child's outcome was not delivered")
			}
			h.mu.Lock()
			writes, merges := len(h.writes), len(h.merges)
			isolated := writes == 1 && h.writes[0].Isolated
			h.mu.Unlock()
			if !isolated || merges != 1 {
				t.Fatalf("%d writes (isolated %v) and %d merges, want one isolated write and one merge", writes, isolated, merges)
			}
			if duringRun != "" {
				t.Errorf("the child's file reached the checkout before the review: %q", duringRun)
			}
			if got, _ := h.read("new.txt"); got != "from the child\n" {
				t.Errorf("new.txt = %q after the merge was allowed", got)
			}
			h.clean()
		})
	}
}
