package worktree

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// TestRedteamForgedRecord: a record in covey's worktree folder (which the
// model's commands can write) that names a folder outside it, a symbolic
// link out of it, or a branch not covey's is refused by prune and apply,
// named, and nothing it names is removed.
func TestRedteamForgedRecord(t *testing.T) {
	ctx := context.Background()
	for name, forge := range map[string]func(root, victim string) Record{
		"a folder outside": func(_, victim string) Record {
			return Record{Name: "evil-1", Path: victim, Branch: BranchPrefix + "evil-1", Complete: true, BaseCommit: "HEAD"}
		},
		"a path climbing out": func(root, victim string) Record {
			return Record{Name: "evil-2", Path: filepath.Join(root, "..", "..", "..", victim), Branch: BranchPrefix + "evil-2"}
		},
		"a symbolic link out": func(root, victim string) Record {
			if err := os.Symlink(victim, filepath.Join(root, "evil-3")); err != nil {
				t.Fatal(err)
			}
			return Record{Name: "evil-3", Path: filepath.Join(root, "evil-3"), Branch: BranchPrefix + "evil-3"}
		},
		"the user's branch": func(root, _ string) Record {
			return Record{Name: "evil-4", Path: filepath.Join(root, "evil-4"), Branch: "refs/heads/" + BranchPrefix + "../master"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := newRepo(t)
			r := open(t, dir)
			victim := t.TempDir()
			put(t, victim, "precious.txt", "keep me\n")
			if err := os.MkdirAll(r.root(), 0o755); err != nil {
				t.Fatal(err)
			}
			rec := forge(r.root(), victim)
			data, _ := json.Marshal(rec)
			file := filepath.Join(r.root(), filepath.Base(rec.Name)+".json")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := r.Prune(ctx)
			if err == nil || !strings.Contains(err.Error(), "forged record") {
				t.Errorf("prune: err = %v, want the forged record named", err)
			}
			if _, err := r.Adopt(ctx, rec.Name); err == nil {
				t.Errorf("apply adopted the forged record")
			}
			if b, err := os.ReadFile(filepath.Join(victim, "precious.txt")); err != nil || string(b) != "keep me\n" {
				t.Fatalf("the folder the record named was touched: %q %v", b, err)
			}
			if strings.TrimSpace(run(t, dir, "branch", "--list")) == "" {
				t.Fatal("the user's branch was deleted")
			}
		})
	}
}
