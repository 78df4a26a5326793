package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"covey/agent"
	"covey/agentdefs"
	"covey/internal/scripted"
	"covey/permission"
	"covey/subagent"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// BenchmarkBestOfThree compares a best-of-3 task with one isolated child
// doing the same brief, against the scripted server answering each of a
// child's 3 requests after 300 ms: the wall time from the task call to
// its result, which covers creating the worktrees, running the children,
// reviewing (the pick answered at once), merging one and removing the
// others. x_one is the ratio of the two (goal ≤ 1.2: the attempts run at
// once). "small" is a project of a few files; "covey" a clone of covey's
// own repository, where each worktree's checkout costs about a second on
// a loaded 2-core machine, and the three checkouts (git worktree add, one
// at a time under the repository's lock) dominate. COVEY_BENCH_TRACE=1
// prints when each child starts and ends.
//
//	go test -run '^$' -bench BestOfThree -benchtime 3x ./subagent/
func BenchmarkBestOfThree(b *testing.B) {
	b.Run("small", func(b *testing.B) {
		root := b.TempDir()
		for name, content := range map[string]string{"go.mod": "module x\n", "a.go": "package a\n", "b.go": "package a\n\nfunc B() {}\n", "README.md": "# x\n"} {
			if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "first"}} {
			if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		benchBestOf(b, root)
	})
	b.Run("covey", func(b *testing.B) {
		out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			b.Skipf("not in a git checkout: %v", err)
		}
		root := filepath.Join(b.TempDir(), "covey")
		if out, err := exec.Command("git", "clone", "--quiet", "--no-hardlinks", strings.TrimSpace(string(out)), root).CombinedOutput(); err != nil {
			b.Fatalf("clone: %v\n%s", err, out)
		}
		benchBestOf(b, root)
	})
}

// benchBestOf runs the benchmark on the repository at root.
func benchBestOf(b *testing.B, root string) {
	srv := scripted.New()
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	const slow = 300 * time.Millisecond
	var n atomic.Int64
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "bench-attempt"}, Turns: []scripted.Turn{
		{Delay: slow, ToolCalls: []scripted.Call{{Name: toolname.ReadFile, Args: map[string]string{"path": "go.mod"}}}},
		{Func: func(scripted.Request) scripted.Turn {
			return scripted.Turn{Delay: slow, ToolCalls: []scripted.Call{{Name: toolname.WriteFile,
				Args: map[string]string{"path": "bench-attempt.txt", "content": fmt.Sprintf("attempt %d\n", n.Add(1))}}}}
		}},
		{Delay: slow, Text: "wrote bench-attempt.txt"},
	}})
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	gate := permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
		return permission.Verdict{Allowed: true, ByUser: true, Attempt: 1} // the first attempt; every write and merge
	})
	var t0 time.Time
	trace := os.Getenv("COVEY_BENCH_TRACE") != ""
	m := subagent.NewManager(subagent.Config{
		Emit: func(e agent.Event) {
			if trace && (e.Kind() == "child_started" || e.Kind() == "child_finished" || e.Kind() == "worktree_result") {
				fmt.Fprintf(os.Stderr, "%6dms %s %s\n", time.Since(t0).Milliseconds(), e.Kind(), e.From().AgentID)
			}
		},
		Defs: agentdefs.NewSet(agentdefs.Builtins()...), Workspace: ws, Gate: gate,
		Resolve: func(agentdefs.Definition) (agent.Provider, string, error) {
			return agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), MaxAttempts: 1}), "m", nil
		},
	})
	defer m.Close()
	tool := m.Tool(agent.Source{AgentID: agent.MainAgentID})
	run := func(attempts int) time.Duration {
		args := map[string]any{"description": "bench", "subagent_type": "general-purpose", "prompt": "bench-attempt", "isolation": "worktree"}
		if attempts > 1 {
			args["attempts"] = attempts
		}
		raw, _ := json.Marshal(args)
		start := time.Now()
		t0 = start
		res := tool.Run(context.Background(), raw)
		d := time.Since(start)
		if trace {
			fmt.Fprintf(os.Stderr, "%6dms done (%d attempts)\n", d.Milliseconds(), attempts)
		}
		if res.IsError || !strings.Contains(res.Content, "Applied the child's changes to bench-attempt.txt") {
			b.Fatalf("task result: %s", res.Content)
		}
		// Back to the base for the next run: the merge wrote the file.
		if out, err := exec.Command("git", "-C", root, "clean", "-fq", "bench-attempt.txt").CombinedOutput(); err != nil {
			b.Fatalf("clean: %v\n%s", err, out)
		}
		return d
	}
	run(1) // warm up git and the server
	var one, three time.Duration
	for b.Loop() {
		one += run(1)
		three += run(3)
	}
	b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "ms_one")
	b.ReportMetric(float64(three.Milliseconds())/float64(b.N), "ms_three")
	b.ReportMetric(float64(three)/float64(one), "x_one")
}
