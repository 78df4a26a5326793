package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"covey/worktree"
)

// worktreesCmd is `covey worktrees [prune | --prune | apply BRANCH]`.
func worktreesCmd(stdout, stderr io.Writer) *cobra.Command {
	var prune, asJSON bool
	c := &cobra.Command{
		Use:   "worktrees [prune | apply BRANCH]",
		Short: "list isolated subagents' worktrees; prune those left behind, or apply one",
		Long: "Lists the git worktrees covey made for isolated subagents in this repository.\n" +
			"prune (or --prune) removes those left behind (their covey exited, or their change was kept),\n" +
			"with their branches, changes and all;\n" +
			"apply BRANCH merges one of those into your files (three-way, all or nothing), then removes it.",
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) == 0, len(args) == 1 && args[0] == "prune", len(args) == 2 && args[0] == "apply":
				return nil
			}
			return usageError{fmt.Sprintf("worktrees: unexpected arguments %q (usage: covey worktrees [prune | apply BRANCH])", args)}
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			verb, name := "", ""
			switch {
			case len(args) == 2:
				verb, name = "apply", args[1]
			case prune || len(args) == 1:
				verb = "prune"
			case asJSON:
				verb = "json"
			}
			return asExit(cmdWorktrees(cmd.Context(), verb, name, stdout, stderr))
		},
	}
	c.Flags().BoolVar(&prune, "prune", false, "remove the worktrees left behind")
	c.Flags().BoolVar(&asJSON, "json", false, "list as JSON for scripts")
	return c
}

// cmdWorktrees lists the worktrees covey made for isolated children in this
// repository (verb ""), removes the ones no running covey owns ("prune"),
// or merges one of those into the user's files ("apply" name).
func cmdWorktrees(ctx context.Context, verb, name string, stdout, stderr io.Writer) int {
	root, err := workDir()
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	wt := sessionWorktrees(root)
	var text string
	switch verb {
	case "prune":
		text, err = wt.Prune(ctx)
	case "apply":
		text, err = wt.Apply(ctx, name)
	case "json":
		text, err = wt.JSON(ctx)
	default:
		text, err = wt.List(ctx)
	}
	_, _ = fmt.Fprint(stdout, text)
	if err != nil {
		fmt.Fprintln(stderr, "covey worktrees:", err)
		return exitRun
	}
	return exitOK
}

// repoWorktrees is the ui.Worktrees of the repository around a
// workspace, opened on first use (so a TUI start runs no git for it).
type repoWorktrees struct {
	root string
	once sync.Once
	repo *worktree.Repo
	err  error
}

// sessionWorktrees returns the ui.Worktrees of the workspace at root.
func sessionWorktrees(root string) *repoWorktrees { return &repoWorktrees{root: root} }

func (w *repoWorktrees) open(ctx context.Context) (*worktree.Repo, error) {
	w.once.Do(func() { w.repo, w.err = worktree.Open(ctx, w.root) })
	return w.repo, w.err
}

// Orphans implements ui.Worktrees; outside a repository there are none.
func (w *repoWorktrees) Orphans(ctx context.Context) (string, error) {
	repo, err := w.open(ctx)
	if errors.Is(err, worktree.ErrNotRepo) || errors.Is(err, worktree.ErrNoGit) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	orphans, err := repo.Orphans(ctx)
	if err != nil {
		return "", err
	}
	return worktree.OrphanNotice(orphans), nil
}

// List implements ui.Worktrees.
func (w *repoWorktrees) List(ctx context.Context) (string, error) {
	repo, err := w.open(ctx)
	if err != nil {
		return "", err
	}
	entries, err := repo.List(ctx)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = worktree.WriteList(&b, entries)
	return b.String(), err
}

// JSON lists every worktree covey made here as a JSON array: each record
// with live (its covey runs), missing (its folder is gone) and changed
// (files differing from its base; -1 when unknown).
func (w *repoWorktrees) JSON(ctx context.Context) (string, error) {
	repo, err := w.open(ctx)
	if err != nil {
		return "", err
	}
	entries, err := repo.List(ctx)
	if err != nil {
		return "", err
	}
	type row struct {
		worktree.Record
		Live    bool `json:"live"`
		Missing bool `json:"missing,omitempty"`
		Changed int  `json:"changed"`
	}
	rows := make([]row, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, row{Record: e.Record, Live: e.Live, Missing: e.Missing, Changed: e.Changed})
	}
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return "", err
	}
	return string(data) + "\n", nil
}

// Apply implements ui.Worktrees.
func (w *repoWorktrees) Apply(ctx context.Context, name string) (string, error) {
	repo, err := w.open(ctx)
	if err != nil {
		return "", err
	}
	wt, err := repo.Adopt(ctx, name)
	if err != nil {
		return "", err
	}
	applied, err := wt.Apply(ctx, worktree.ApplyOptions{})
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
func (w *repoWorktrees) Prune(ctx context.Context) (string, error) {
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
