package main

import (
	"context"
	"fmt"
	"io"

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
	wt := worktree.NewCommands(root)
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
