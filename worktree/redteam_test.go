package worktree

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRedteamNoFilterRuns: covey's git runs outside the sandbox, on a
// repository the model can write (.git/config, .gitattributes): creating
// a child's worktree (a checkout: smudge) and taking its diff (git add:
// clean) must run none of the filter commands configured there.
func TestRedteamNoFilterRuns(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	out := t.TempDir()
	put(t, dir, ".gitattributes", "*.txt filter=x\n")
	run(t, dir, "add", ".gitattributes")
	run(t, dir, "commit", "--quiet", "-m", "attributes")
	for k, v := range map[string]string{"clean": "touch " + out + "/clean; cat", "smudge": "touch " + out + "/smudge; cat", "process": "touch " + out + "/process"} {
		run(t, dir, "config", "filter.x."+k, v)
	}
	w := create(t, open(t, dir), BaseHead)
	put(t, w.Path(), "a.txt", "changed\n")
	if _, err := w.Diff(ctx); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("covey's git ran the repository's %s filter", filepath.Base(e.Name()))
	}
}
