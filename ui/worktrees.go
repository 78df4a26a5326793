package ui

import (
	"context"
	"strings"

	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
)

// Worktrees manages the git worktrees covey made for isolated children,
// above all the ones a crashed session left behind. The session provides
// it; every call may run git, so the UI calls it from commands only.
type Worktrees interface {
	// Orphans describes the worktrees no running covey owns, "" when
	// there are none.
	Orphans(ctx context.Context) (string, error)
	// List describes every worktree covey made in this repository.
	List(ctx context.Context) (string, error)
	// Prune removes the orphans (worktree, branch, record) and says what
	// it removed.
	Prune(ctx context.Context) (string, error)
	// Apply merges one orphan's changes into the user's files, all or
	// nothing, then removes it; name is its branch or folder name.
	Apply(ctx context.Context, name string) (string, error)
}

// worktreesMsg carries what a worktree command found, for a notice.
type worktreesMsg struct {
	text  string
	level transcript.NoticeLevel
}

// checkOrphans is the start-up command that notices worktrees left behind.
func checkOrphans(ctx context.Context, w Worktrees) tea.Cmd {
	return func() tea.Msg {
		text, err := w.Orphans(ctx)
		switch {
		case err != nil:
			return worktreesMsg{text: "checking for worktrees left behind failed: " + err.Error(), level: transcript.NoticeWarning}
		case text == "":
			return nil
		}
		return worktreesMsg{text: text, level: transcript.NoticeWarning}
	}
}

// cmdWorktrees implements /worktrees (list), /worktrees prune and
// /worktrees apply BRANCH.
func (m *Model) cmdWorktrees(arg string) tea.Cmd {
	w, ctx := m.worktrees, m.ctx
	if w == nil {
		m.notice(transcript.NoticeInfo, "no worktrees to manage: the workspace is not a git repository")
		return nil
	}
	verb, name, _ := strings.Cut(strings.TrimSpace(arg), " ")
	name = strings.TrimSpace(name)
	switch strings.ToLower(verb) {
	case "apply":
		if name == "" {
			m.notice(transcript.NoticeError, "/worktrees apply needs the branch of a worktree left behind (/worktrees lists them)")
			return nil
		}
		return func() tea.Msg {
			text, err := w.Apply(ctx, name)
			if err != nil {
				return worktreesMsg{text: "apply " + name + ": " + err.Error(), level: transcript.NoticeError}
			}
			return worktreesMsg{text: strings.TrimRight(text, "\n"), level: transcript.NoticeInfo}
		}
	case "":
		return func() tea.Msg {
			text, err := w.List(ctx)
			if err != nil {
				return worktreesMsg{text: "list worktrees: " + err.Error(), level: transcript.NoticeError}
			}
			return worktreesMsg{text: strings.TrimRight(text, "\n"), level: transcript.NoticeInfo}
		}
	case "prune":
		return func() tea.Msg {
			text, err := w.Prune(ctx)
			if err != nil {
				return worktreesMsg{text: strings.TrimRight(text, "\n") + "\nprune worktrees: " + err.Error(), level: transcript.NoticeError}
			}
			return worktreesMsg{text: strings.TrimRight(text, "\n"), level: transcript.NoticeInfo}
		}
	}
	m.notice(transcript.NoticeError, "/worktrees takes no argument (list), prune, or apply BRANCH")
	return nil
}
