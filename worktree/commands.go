package worktree

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Commands are what a user does with the worktrees covey made in the
// repository around a workspace (covey worktrees, and the TUI's
// /worktrees through ui.Worktrees), as text for a person. The repository
// is opened on first use, so a TUI start runs no git for it.
type Commands struct {
	root string
	once sync.Once
	repo *Repo
	err  error
}

// NewCommands returns the Commands of the workspace at root.
func NewCommands(root string) *Commands { return &Commands{root: root} }

func (w *Commands) open(ctx context.Context) (*Repo, error) {
	w.once.Do(func() { w.repo, w.err = Open(ctx, w.root) })
	return w.repo, w.err
}

// Orphans implements ui.Worktrees; outside a repository there are none.
func (w *Commands) Orphans(ctx context.Context) (string, error) {
	return w.orphans(ctx, OrphanNotice)
}

// OrphansCLI is Orphans for a run with no TUI: the notice names covey
// worktrees.
func (w *Commands) OrphansCLI(ctx context.Context) (string, error) {
	return w.orphans(ctx, OrphanNoticeCLI)
}

func (w *Commands) orphans(ctx context.Context, notice func([]Entry) string) (string, error) {
	repo, err := w.open(ctx)
	if errors.Is(err, ErrNotRepo) || errors.Is(err, ErrNoGit) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	orphans, err := repo.Orphans(ctx)
	if err != nil {
		return "", err
	}
	return notice(orphans), nil
}

// entries lists every worktree covey made in the repository.
func (w *Commands) entries(ctx context.Context) ([]Entry, error) {
	repo, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	return repo.List(ctx)
}

// List implements ui.Worktrees.
func (w *Commands) List(ctx context.Context) (string, error) {
	entries, err := w.entries(ctx)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = WriteList(&b, entries)
	return b.String(), err
}

// JSON lists every worktree covey made here as a JSON array: each record
// with live (its covey runs), missing (its folder is gone) and changed
// (files differing from its base; -1 when unknown).
func (w *Commands) JSON(ctx context.Context) (string, error) {
	entries, err := w.entries(ctx)
	if err != nil {
		return "", err
	}
	type row struct {
		Record
		Live    bool `json:"live"`
		Missing bool `json:"missing,omitempty"`
		Changed int  `json:"changed"`
	}
	rows := make([]row, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, row(e))
	}
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return "", err
	}
	return string(data) + "\n", nil
}

// Apply implements ui.Worktrees.
func (w *Commands) Apply(ctx context.Context, name string) (string, error) {
	repo, err := w.open(ctx)
	if err != nil {
		return "", err
	}
	wt, err := repo.Adopt(ctx, name)
	if err != nil {
		return "", err
	}
	applied, err := wt.Apply(ctx, ApplyOptions{})
	if err != nil {
		return "", err // a conflict names the files and the kept worktree
	}
	msg := fmt.Sprintf("applied %s to %s; ", wt.Branch(), strings.Join(applied, ", "))
	if len(applied) == 0 {
		msg = fmt.Sprintf("%s holds no change your files lack; ", wt.Branch())
	}
	if err := wt.Remove(ctx); err != nil {
		return msg + "removing it failed", err
	}
	return msg + "its worktree and branch were removed\n", nil
}

// Prune implements ui.Worktrees.
func (w *Commands) Prune(ctx context.Context) (string, error) {
	repo, err := w.open(ctx)
	if err != nil {
		return "", err
	}
	done, err := repo.Prune(ctx)
	var b bytes.Buffer
	for _, e := range done {
		fmt.Fprintf(&b, "removed %s (%s) and its branch %s\n", e.Path, e.ChangeSummary(), e.Branch)
	}
	if len(done) == 0 && err == nil {
		b.WriteString("nothing to prune: every worktree covey made here belongs to a running session\n")
		if all, lerr := repo.List(ctx); lerr == nil && len(all) == 0 {
			b.Reset()
			b.WriteString("nothing to prune: no worktrees made by covey in this repository\n")
		}
	}
	return b.String(), err
}
