package subagent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"covey/agent"
	"covey/agentdefs"
	"covey/internal/scripted"
	"covey/permission"
	"covey/tools/toolname"
)

// attemptsTask is a task call running the brief prompt three times.
func attemptsTask(prompt string, n int) map[string]any {
	return map[string]any{"description": "rewrite notes", "subagent_type": "general-purpose", "prompt": prompt, "attempts": n}
}

// attempters scripts the children of marker: each writes notes.txt with
// "attempt-K" (K counting the children as their first requests arrive),
// then reports it.
func (h *isoHarness) attempters(marker string, delay time.Duration) {
	var n atomic.Int64
	h.child(marker,
		scripted.Turn{Func: func(scripted.Request) scripted.Turn {
			k := n.Add(1)
			return scripted.Turn{Delay: delay, ToolCalls: []scripted.Call{{Name: toolname.WriteFile,
				Args: map[string]string{"path": "fresh.txt", "content": fmt.Sprintf("attempt-%d\n", k)}}}}
		}},
		scripted.Turn{Delay: delay, Text: "wrote fresh.txt"})
}

// contentOf finds the line attempt a wrote, from its diff.
func contentOf(t *testing.T, a permission.Attempt) string {
	t.Helper()
	if len(a.Changes) != 1 {
		t.Fatalf("attempt %s changed %d files", a.Name, len(a.Changes))
	}
	for _, l := range strings.Split(a.Changes[0].Diff, "\n") {
		if strings.HasPrefix(l, "+attempt-") {
			return l[1:] + "\n"
		}
	}
	t.Fatalf("attempt %s wrote no attempt line:\n%s", a.Name, a.Changes[0].Diff)
	return ""
}

func TestAttemptsUserPicksOne(t *testing.T) {
	var asked permission.Request
	h := newIsoHarness(t, true, func(req permission.Request) permission.Verdict {
		asked = req
		return permission.Verdict{Allowed: true, ByUser: true, Attempt: 2}
	})
	h.mainScript("go", attemptsTask("child-n", 3))
	h.attempters("child-n", 0)
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if asked.Tool != permission.ToolPickAttempt || len(asked.Attempts) != 3 {
		t.Fatalf("asked %+v", asked)
	}
	for _, a := range asked.Attempts {
		if a.Status != agent.StateDone || a.Report != "wrote fresh.txt" || a.Tokens == 0 || !strings.HasPrefix(a.Branch, "covey/") {
			t.Errorf("attempt %+v", a)
		}
	}
	want := contentOf(t, asked.Attempts[1])
	if got, _ := h.read("fresh.txt"); got != want {
		t.Errorf("fresh.txt = %q, want attempt 2's %q", got, want)
	}
	started := h.eventsOf("child_started")
	if len(started) != 3 {
		t.Fatalf("%d children started", len(started))
	}
	for i, e := range started {
		cs := e.(agent.ChildStarted)
		if cs.Attempt != i+1 || cs.Attempts != 3 || cs.Worktree == nil {
			t.Errorf("child %d: attempt %d of %d, worktree %v", i, cs.Attempt, cs.Attempts, cs.Worktree)
		}
	}
	res := h.taskResult("task_1")
	for _, s := range []string{"Best of 3 attempts", "Attempt 2 of 3 (" + asked.Attempts[1].Name + ") was applied: the user picked it",
		"## Attempt 1", "not chosen", "## Attempt 3"} {
		if !strings.Contains(res, s) {
			t.Errorf("task result lacks %q:\n%s", s, res)
		}
	}
	h.manager.Close() // the others are removed in the background
	h.clean()
}

func TestAttemptsKeptWithNobodyToAsk(t *testing.T) {
	h := newIsoHarness(t, true, func(req permission.Request) permission.Verdict {
		return permission.Verdict{Reason: "nobody can be asked in a headless run"}
	})
	h.mainScript("go", attemptsTask("child-k", 2))
	h.attempters("child-k", 0)
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, ok := h.read("fresh.txt"); ok {
		t.Errorf("an attempt was applied: %q", got)
	}
	rs := h.eventsOf("worktree_result")
	if len(rs) != 2 {
		t.Fatalf("%d worktree results", len(rs))
	}
	res := h.taskResult("task_1")
	for _, e := range rs {
		r := e.(agent.WorktreeResult)
		if r.Status != agent.WorktreeKept || !strings.Contains(res, r.Branch) || !strings.Contains(res, r.Path) {
			t.Errorf("result %+v not kept or not named in:\n%s", r, res)
		}
		if got := gitRun(t, h.root, "show", r.Branch+":fresh.txt"); !strings.HasPrefix(got, "attempt-") {
			t.Errorf("branch %s holds %q", r.Branch, got)
		}
		gitRun(t, h.root, "worktree", "remove", "--force", r.Path)
		gitRun(t, h.root, "branch", "-D", r.Branch)
	}
	if !strings.Contains(res, "None was applied: nobody can be asked in a headless run. Every attempt is kept on its branch.") {
		t.Errorf("task result:\n%s", res)
	}
}

func TestAttemptsJudgePicks(t *testing.T) {
	var picked permission.Request
	judge := agentdefs.Definition{Name: "judge", Description: "Picks the best attempt.", Prompt: "You judge attempts.", ReadOnly: true}
	h := newIsoHarnessWith(t, isoOpts{git: true, judge: "judge", defs: []agentdefs.Definition{judge}}, func(req permission.Request) permission.Verdict {
		if req.Tool == permission.ToolPickAttempt {
			picked = req
			return permission.Verdict{Reason: "nobody can be asked in a headless run"}
		}
		return permission.Verdict{Allowed: true} // acceptEdits
	})
	h.mainScript("go", attemptsTask("child-j", 3))
	h.attempters("child-j", 0)
	// More specific than the attempts' script, whose brief the judge's holds.
	h.srv.Add(scripted.Conversation{Name: "judge", Match: scripted.Match{FirstUser: "You are judging 3 attempts", SystemContains: "You judge attempts"},
		Turns: []scripted.Turn{{Text: "PICK: 3\nREASON: it is the shortest."}}})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := contentOf(t, picked.Attempts[2])
	if got, _ := h.read("fresh.txt"); got != want {
		t.Errorf("fresh.txt = %q, want attempt 3's %q", got, want)
	}
	res := h.taskResult("task_1")
	if !strings.Contains(res, "was applied: the judge (judge) picked it: it is the shortest") {
		t.Errorf("task result:\n%s", res)
	}
	// The judge saw the brief and every attempt's diff.
	for _, e := range h.srv.Journal() {
		if strings.HasPrefix(e.FirstUser, "You are judging") {
			for i := range 3 {
				if !strings.Contains(e.FirstUser, contentOf(t, picked.Attempts[i])) {
					t.Errorf("the judge's brief lacks attempt %d's change", i+1)
				}
			}
			if !strings.Contains(e.FirstUser, "child-j") {
				t.Error("the judge's brief lacks the task's brief")
			}
		}
	}
	h.manager.Close()
	h.clean()
}

func TestAttemptsArguments(t *testing.T) {
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"description": "d", "subagent_type": "general-purpose", "prompt": "p", "attempts": 5}, "attempts must be 2 to 4, not 5"},
		{map[string]any{"description": "d", "subagent_type": "general-purpose", "prompt": "p", "attempts": 2, "run_in_background": true}, "cannot run in the background"},
	} {
		h := newIsoHarness(t, true, func(permission.Request) permission.Verdict { return permission.Verdict{Allowed: true} })
		h.mainScript("go", tc.args)
		if _, err := h.main.Run(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		if res := h.taskResult("task_1"); !strings.Contains(res, tc.want) {
			t.Errorf("result %q lacks %q", res, tc.want)
		}
	}
}

// TestAttemptsChosenButConflicting: the attempt picked conflicts with the
// user's file: nothing is written, it is kept, and the result says it was
// chosen, not applied.
func TestAttemptsChosenButConflicting(t *testing.T) {
	var h *isoHarness
	h = newIsoHarness(t, true, func(req permission.Request) permission.Verdict {
		if err := os.WriteFile(filepath.Join(h.root, "fresh.txt"), []byte("mine\n"), 0o644); err != nil {
			t.Error(err)
		}
		return permission.Verdict{Allowed: true, ByUser: true, Attempt: 1}
	})
	h.mainScript("go", attemptsTask("child-c", 2))
	h.attempters("child-c", 0)
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.read("fresh.txt"); got != "mine\n" {
		t.Errorf("fresh.txt = %q, want the user's", got)
	}
	res := h.taskResult("task_1")
	if !strings.Contains(res, "was chosen, but not applied (see below): the user picked it") || !strings.Contains(res, "conflicts") {
		t.Errorf("task result:\n%s", res)
	}
	h.manager.Close()
	for _, e := range h.eventsOf("worktree_result") {
		r := e.(agent.WorktreeResult)
		if r.Status == agent.WorktreeConflict {
			gitRun(t, h.root, "worktree", "remove", "--force", r.Path)
			gitRun(t, h.root, "branch", "-D", r.Branch)
		}
	}
	h.clean()
}
