package worktree

import (
	"fmt"
	"io"
	"strings"

	"covey/internal/excerpt"
	"covey/internal/plural"
)

// WriteList writes one block per worktree: branch, owner, changes, folder
// and base, then a line on what `prune` would do.
func WriteList(w io.Writer, entries []Entry) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "no worktrees made by covey in this repository")
		return err
	}
	orphans := 0
	var b strings.Builder
	for _, e := range entries {
		owner := fmt.Sprintf("in use by covey (pid %d)", e.PID)
		switch {
		case e.Forged != "":
			owner = "FORGED RECORD, refused (" + e.Forged + ")"
		case e.Kept:
			orphans++
			owner = "kept (its child finished; the change was not applied)"
		case !e.Live:
			orphans++
			owner = "left behind"
			if e.PID > 0 {
				owner += fmt.Sprintf(" (covey pid %d has exited)", e.PID)
			}
		}
		fmt.Fprintf(&b, "%s  %s, %s\n", excerpt.TermSafe(e.Branch), excerpt.TermSafe(owner), e.ChangeSummary())
		fmt.Fprintf(&b, "    %s\n", excerpt.TermSafe(e.Path))
		if e.Head != "" {
			fmt.Fprintf(&b, "    from %s, created %s", e.BaseDescription(), e.Created.Local().Format("2006-01-02 15:04"))
			if e.Session != "" {
				fmt.Fprintf(&b, " by session %s", e.Session)
			}
			b.WriteString("\n")
		}
	}
	if orphans > 0 {
		fmt.Fprintf(&b, "\n%d left behind: `covey worktrees apply BRANCH` merges one's changes into your files (all or nothing) and removes it;\n"+
			"`covey worktrees prune` removes %s with %s branch, changes and all.\n",
			orphans, plural.Pick(orphans, "it", "them"), plural.Pick(orphans, "its", "their"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ChangeSummary says how many files the worktree changed.
func (e Entry) ChangeSummary() string {
	switch {
	case e.Missing:
		return "folder missing"
	case !e.Usable() && e.Live:
		return "being created"
	case !e.Usable():
		return "incomplete: covey stopped while creating it, so it can only be pruned"
	case e.Changed < 0:
		return "changes unknown"
	case e.Changed == 0:
		return "no changes"
	}
	return fmt.Sprintf("%d %s changed", e.Changed, plural.Noun(e.Changed, "file"))
}

// OrphanNotice is the start-up note about worktrees left behind, or "".
func OrphanNotice(orphans []Entry) string { return orphanNotice(orphans, "/worktrees") }

// OrphanNoticeCLI is OrphanNotice naming covey worktrees, for a run with
// no TUI.
func OrphanNoticeCLI(orphans []Entry) string { return orphanNotice(orphans, "covey worktrees") }

func orphanNotice(orphans []Entry, cmd string) string {
	if len(orphans) == 0 {
		return ""
	}
	names := make([]string, 0, len(orphans))
	for _, e := range orphans {
		names = append(names, e.Branch+" ("+e.ChangeSummary()+")")
	}
	return fmt.Sprintf("%d %s left behind (a crash, a conflict, or a change nobody applied): %s. %s lists %s; %s apply BRANCH merges one into your files; %s prune removes %s, changes and all.",
		len(orphans), plural.Noun(len(orphans), "worktree"), strings.Join(names, ", "),
		cmd, plural.Pick(len(orphans), "it", "them"), cmd, cmd, plural.Pick(len(orphans), "it", "them"))
}
