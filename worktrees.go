package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"covey/worktree"
)

// worktreesCmd is `covey worktrees [prune|--prune]`.
func worktreesCmd(stdout, stderr io.Writer) *cobra.Command {
	var prune bool
	c := &cobra.Command{
		Use:   "worktrees [prune]",
		Short: "list isolated subagents' worktrees; prune those left behind",
		Args: func(_ *cobra.Command, args []string) error {
			for _, a := range args {
				if a != "prune" {
					return usageError{fmt.Sprintf("covey worktrees: unknown argument %q (usage: covey worktrees [prune])", a)}
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return asExit(cmdWorktrees(cmd.Context(), prune || len(args) > 0, stdout, stderr))
		},
	}
	c.Flags().BoolVar(&prune, "prune", false, "remove the worktrees no running covey owns")
	return c
}

// cmdWorktrees lists the worktrees covey made for isolated children in this
// repository, or with prune removes the ones no running covey owns.
func cmdWorktrees(ctx context.Context, prune bool, stdout, stderr io.Writer) int {
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	repo, err := worktree.Open(ctx, root)
	if err != nil {
		fmt.Fprintln(stderr, "covey worktrees:", err)
		return exitRun
	}
	wt := repoWorktrees{repo}
	var text string
	if prune {
		text, err = wt.Prune(ctx)
	} else {
		text, err = wt.List(ctx)
	}
	fmt.Fprint(stdout, text)
	if err != nil {
		fmt.Fprintln(stderr, "covey worktrees:", err)
		return exitRun
	}
	return exitOK
}

// repoWorktrees is the ui.Worktrees of a repository.
type repoWorktrees struct{ repo *worktree.Repo }

// sessionWorktrees returns the ui.Worktrees of the workspace at root, or
// nil when it is not in a git repository (or git is missing).
func sessionWorktrees(ctx context.Context, root string) *repoWorktrees {
	repo, err := worktree.Open(ctx, root)
	if err != nil {
		return nil
	}
	return &repoWorktrees{repo}
}

// Orphans implements ui.Worktrees.
func (w repoWorktrees) Orphans(ctx context.Context) (string, error) {
	orphans, err := w.repo.Orphans(ctx)
	if err != nil {
		return "", err
	}
	return worktree.OrphanNotice(orphans), nil
}

// List implements ui.Worktrees.
func (w repoWorktrees) List(ctx context.Context) (string, error) {
	entries, err := w.repo.List(ctx)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = worktree.WriteList(&b, entries)
	return b.String(), err
}

// Prune implements ui.Worktrees.
func (w repoWorktrees) Prune(ctx context.Context) (string, error) {
	done, err := w.repo.Prune(ctx)
	var b bytes.Buffer
	for _, e := range done {
		fmt.Fprintf(&b, "removed %s (%s) and its branch\n", e.Path, e.ChangeSummary())
	}
	if len(done) == 0 && err == nil {
		b.WriteString("nothing to prune: every worktree covey made here belongs to a running session\n")
		if all, lerr := w.repo.List(ctx); lerr == nil && len(all) == 0 {
			b.Reset()
			b.WriteString("nothing to prune: no worktrees made by covey in this repository\n")
		}
	}
	return b.String(), err
}
