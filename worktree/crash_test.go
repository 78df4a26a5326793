package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestIncompleteWorktreeIsOnlyPruned: a worktree whose record does not say
// its creation finished (covey died during `git worktree add`) is listed as
// incomplete, refused by Adopt and Apply, and removed by Prune, together
// with a process still creating it (found by its mark).
func TestIncompleteWorktreeIsOnlyPruned(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := open(t, dir)
	w, err := r.Create(ctx, Options{Name: "half"})
	if err != nil {
		t.Fatal(err)
	}
	var onDisk Record
	data, err := os.ReadFile(w.rec.recordPath(r.root()))
	if err != nil || json.Unmarshal(data, &onDisk) != nil || !onDisk.Complete {
		t.Fatalf("a finished creation is not recorded complete: %s (%v)", data, err)
	}
	// What a crash mid-checkout leaves: files missing, the record not
	// complete, its owner gone, and git still running.
	if err := os.Remove(w.Path() + "/a.txt"); err != nil {
		t.Fatal(err)
	}
	rec := w.Record()
	rec.Complete, rec.PID, rec.PIDStart = false, 1<<22+1, ""
	if err := rec.write(r.root()); err != nil {
		t.Fatal(err)
	}
	creator := exec.Command("sleep", "60")
	creator.Env = append(os.Environ(), creatorEnv(rec.Path))
	if err := creator.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = creator.Wait(); close(exited) }()
	t.Cleanup(func() { _ = creator.Process.Kill(); <-exited })

	list, err := r.List(ctx)
	if err != nil || len(list) != 1 || !strings.Contains(list[0].ChangeSummary(), "incomplete") || list[0].Changed != -1 {
		t.Fatalf("List = %+v (%v), want one incomplete entry with unknown changes", list, err)
	}
	if _, err := r.Adopt(ctx, rec.Branch); !errors.Is(err, ErrIncomplete) {
		t.Errorf("Adopt of an incomplete worktree: %v, want ErrIncomplete", err)
	}
	half := &Worktree{repo: r, rec: rec}
	if _, err := half.Apply(ctx, ApplyOptions{}); !errors.Is(err, ErrIncomplete) {
		t.Errorf("Apply of an incomplete worktree: %v, want ErrIncomplete", err)
	}
	if got, ok := get(t, dir, "a.txt"); !ok || got != tenLines {
		t.Fatalf("a.txt in the user's checkout = %q, %v", got, ok)
	}
	done, err := r.Prune(ctx)
	if err != nil || len(done) != 1 {
		t.Fatalf("Prune = %d entries, %v", len(done), err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Error("Prune left the process creating the worktree running")
	}
	if left, _ := r.List(ctx); len(left) != 0 {
		t.Errorf("after Prune %d worktrees are listed", len(left))
	}
}

// TestLegacyRecord: a record written before records said Complete is
// judged by git's own mark: usable once git removed its "initializing"
// lock, incomplete while the lock is there.
func TestLegacyRecord(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := open(t, dir)
	for name, tc := range map[string]struct {
		lock   string
		usable bool
	}{
		"finished":           {"", true},
		"initializing":       {"initializing", false},
		"locked by the user": {"keep it", true},
	} {
		t.Run(name, func(t *testing.T) {
			w, err := r.Create(ctx, Options{Name: "legacy"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = w.Remove(ctx) })
			rec := w.Record()
			rec.Complete, rec.Version, rec.PID, rec.PIDStart = false, 0, 1<<22+1, ""
			if err := rec.write(r.root()); err != nil {
				t.Fatal(err)
			}
			if tc.lock != "" {
				run(t, dir, "worktree", "lock", "--reason", tc.lock, w.Path())
			}
			_, err = r.Adopt(ctx, rec.Branch)
			if got := !errors.Is(err, ErrIncomplete); got != tc.usable {
				t.Errorf("usable = %v (%v), want %v", got, err, tc.usable)
			}
			if tc.lock != "" {
				run(t, dir, "worktree", "unlock", w.Path())
			}
		})
	}
}
