package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/theme"
)

// fakeWorktrees answers for one orphan until it is pruned.
type fakeWorktrees struct {
	mu     sync.Mutex
	pruned int
}

func (f *fakeWorktrees) Orphans(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pruned > 0 {
		return "", nil
	}
	return "1 worktree left behind: covey/general-1-abc123", nil
}

func (f *fakeWorktrees) List(context.Context) (string, error) {
	return "covey/general-1-abc123  left behind, 2 files changed\n", nil
}

func (f *fakeWorktrees) Apply(_ context.Context, name string) (string, error) {
	if name != "covey/general-1-abc123" {
		return "", fmt.Errorf("no worktree named %q", name)
	}
	return "applied covey/general-1-abc123 to a.go, b.go", nil
}

func (f *fakeWorktrees) Prune(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pruned++
	return "removed covey/general-1-abc123\n", nil
}

func TestWorktreesNoticeAndCommand(t *testing.T) {
	wt := &fakeWorktrees{}
	m := New(Options{Engine: newFakeEngine(), Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii", Worktrees: wt})
	m.clock = func() time.Time { return fixedNow }
	h := &harness{t: t, m: m, eng: newFakeEngine(), msgs: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	h.spawn(h.m.Init())
	h.send(await[worktreesMsg](h))
	if !h.screenContains("1 worktree left behind: covey/general-1-abc123") {
		t.Fatalf("no start-up notice of the orphan:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	steps := []struct{ typed, want string }{
		{"/worktrees", "2 files changed"},
		{"/worktrees apply covey/nope", `apply covey/nope: no worktree named "covey/nope"`},
		{"/worktrees apply covey/general-1-abc123", "applied covey/general-1-abc123 to a.go, b.go"},
		{"/worktrees prune", "removed covey/general-1-abc123"},
	}
	for _, s := range steps {
		h.typeText(s.typed)
		h.key(tea.KeyEnter)
		if s.typed == "/worktrees" {
			h.key(tea.KeyEnter) // the first completes "/worktrees " (it takes an optional argument)
		}
		h.send(await[worktreesMsg](h))
		if !h.screenContains(s.want) {
			t.Errorf("after %s the screen does not show %q:\n%s", s.typed, s.want, strings.Join(h.screenLines(), "\n"))
		}
	}
	if wt.pruned != 1 {
		t.Errorf("pruned %d times, want 1", wt.pruned)
	}
	h.typeText("/worktrees bogus")
	h.key(tea.KeyEnter)
	if !h.screenContains("/worktrees takes no argument (list), prune, or apply BRANCH") {
		t.Error("a bad argument is not explained")
	}
}
