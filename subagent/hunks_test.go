package subagent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/agent"
	"covey/internal/scripted"
	"covey/permission"
	"covey/tools/toolname"
)

// TestIsolatedMergeByHunk applies part of a child's change: the file gets
// the hunks taken only, and the task result names each dropped hunk and
// the user's note; the worktree and branch go.
func TestIsolatedMergeByHunk(t *testing.T) {
	var long, changed strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
		switch i {
		case 3, 25:
			fmt.Fprintf(&changed, "LINE %d\n", i)
		default:
			fmt.Fprintf(&changed, "line %d\n", i)
		}
	}
	var asked permission.Request
	h := newIsoHarness(t, true, func(req permission.Request) permission.Verdict {
		asked = req
		return permission.Verdict{Allowed: true, ByUser: true, Dropped: map[string][]int{"long.txt": {1}}, Note: "line 25 stays"}
	})
	if err := os.WriteFile(filepath.Join(h.root, "long.txt"), []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, h.root, "add", "long.txt")
	gitRun(t, h.root, "commit", "--quiet", "-m", "long")
	h.mainScript("go", isoTask("edit", "child-h"))
	h.child("child-h",
		scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.ReadFile, Args: map[string]string{"path": "long.txt"}}}},
		scripted.Turn{ToolCalls: []scripted.Call{{Name: toolname.WriteFile, Args: map[string]string{"path": "long.txt", "content": changed.String()}}}},
		scripted.Turn{Text: "done"})
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(asked.Changes) != 1 || strings.Count(asked.Changes[0].Diff, "\n@@ ") != 2 {
		t.Fatalf("the merge did not show two hunks: %+v", asked.Changes)
	}
	want := strings.Replace(long.String(), "line 3\n", "LINE 3\n", 1)
	if got, _ := h.read("long.txt"); got != want {
		t.Errorf("long.txt = %q, want %q", got, want)
	}
	if r := h.result(); r.Status != agent.WorktreeApplied {
		t.Errorf("result = %+v", r)
	}
	res := h.taskResult("task_1")
	for _, s := range []string{"dropped and are NOT in the files", "long.txt:\n@@ -22,7 +22,7 @@\n line 22\n line 23\n line 24\n-line 25\n+LINE 25\n",
		"The user's note: line 25 stays", "Its worktree and branch were removed."} {
		if !strings.Contains(res, s) {
			t.Errorf("task result does not say %q:\n%s", s, res)
		}
	}
	h.clean()
}
