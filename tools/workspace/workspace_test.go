package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for the listing cache.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func filesOf(t *testing.T, ws *Workspace, dir string) []string {
	t.Helper()
	got, err := ws.Files(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestListingCache(t *testing.T) {
	touch := func(t *testing.T, root, name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := map[string]struct {
		git     bool
		refresh func(t *testing.T, ws *Workspace, clock *fakeClock)
	}{
		"Invalidate":     {refresh: func(t *testing.T, ws *Workspace, _ *fakeClock) { ws.Invalidate() }},
		"ResolveWrite":   {refresh: func(t *testing.T, ws *Workspace, _ *fakeClock) { ws.ResolveWrite("new.txt") }},
		"TTL":            {refresh: func(t *testing.T, ws *Workspace, c *fakeClock) { c.advance(listingTTL) }},
		"git index":      {git: true, refresh: func(t *testing.T, ws *Workspace, _ *fakeClock) { gitT(t, ws.Root, "add", "new.txt") }},
		"git Invalidate": {git: true, refresh: func(t *testing.T, ws *Workspace, _ *fakeClock) { ws.Invalidate() }},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if tt.git {
				isolateGit(t, "")
				gitT(t, root, "init", "-q")
			}
			touch(t, root, "old.txt")
			ws, err := NewWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			clock := &fakeClock{t: time.Unix(1e9, 0)}
			ws.clock = clock.now
			if got := filesOf(t, ws, "."); !slices.Equal(got, []string{"old.txt"}) {
				t.Fatalf("first listing = %v", got)
			}
			touch(t, root, "new.txt")
			clock.advance(listingTTL / 2)
			// Within the TTL and with nothing to say the tree changed, the
			// cached listing is used (this is what makes the cache worth it).
			if got := filesOf(t, ws, "."); !slices.Equal(got, []string{"old.txt"}) {
				t.Fatalf("cached listing = %v, want the old one", got)
			}
			tt.refresh(t, ws, clock)
			if got := filesOf(t, ws, "."); !slices.Equal(got, []string{"new.txt", "old.txt"}) {
				t.Errorf("after refresh = %v, want both files", got)
			}
		})
	}
}

func TestFilesConcurrent(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{".gitignore": "*.tmp\n", "a/b.go": "", "c.go": "", "x.tmp": ""})
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "a/b.go", "c.go"}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 0 {
				ws.Invalidate()
			}
			got, err := ws.Files(context.Background(), ".")
			if err != nil || !slices.Equal(got, want) {
				errs <- "got " + filepath.Join(got...) + " " + errString(err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestFilesErrors(t *testing.T) {
	root := t.TempDir()
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.Files(ctx, "."); err == nil {
		t.Error("Files with a cancelled context succeeded")
	}
	if _, err := ws.Files(context.Background(), filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Files of a missing directory outside the root succeeded")
	}
}

// TestGitFallback checks that without a usable git binary a repository is
// still listed with .gitignore and .git/info/exclude applied.
func TestGitFallback(t *testing.T) {
	isolateGit(t, "")
	root := t.TempDir()
	gitT(t, root, "init", "-q")
	mkTree(t, root, map[string]string{".gitignore": "*.log\n", "a.log": "", "b.txt": "", "info_ex.txt": ""})
	if err := os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte("info_ex.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := gitVisible(t, root)
	t.Setenv("PATH", t.TempDir()) // no git here
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := filesOf(t, ws, "."); !slices.Equal(got, want) {
		t.Errorf("fallback listing differs from git:\n%s", setDiff(got, want))
	}
}

func TestFindGitDir(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{"repo/.git/HEAD": "", "repo/sub/x": "", "wt/.git": "gitdir: ../repo/.git\n", "plain/x": ""})
	tests := map[string]string{
		"repo/sub": filepath.Join(root, "repo", ".git"),
		"wt":       filepath.Join(root, "repo", ".git"),
		"plain":    "",
	}
	for dir, want := range tests {
		t.Run(dir, func(t *testing.T) {
			got := findGitDir(filepath.Join(root, dir))
			if want == "" {
				// An ancestor of the temp dir may be a repository; only one
				// inside root would be wrong.
				if strings.HasPrefix(got, root+string(filepath.Separator)) {
					t.Errorf("findGitDir(%s) = %s, want none inside root", dir, got)
				}
				return
			}
			if want != "" && got != want {
				t.Errorf("findGitDir(%s) = %s, want %s", dir, got, want)
			}
		})
	}
}
