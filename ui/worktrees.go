package ui

import (
	"context"
	"strings"

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
}

// worktreesMsg carries what a worktree command found, for a notice.
type worktreesMsg struct {
	text  string
	level NoticeLevel
}

// checkOrphans is the start-up command that notices worktrees left behind.
func checkOrphans(ctx context.Context, w Worktrees) tea.Cmd {
	return func() tea.Msg {
		text, err := w.Orphans(ctx)
		switch {
		case err != nil:
			return worktreesMsg{text: "checking for worktrees left behind failed: " + err.Error(), level: NoticeWarning}
		case text == "":
			return nil
		}
		return worktreesMsg{text: text, level: NoticeWarning}
	}
}

// cmdWorktrees implements /worktrees (list) and /worktrees prune.
func (m *Model) cmdWorktrees(arg string) tea.Cmd {
	w, ctx := m.worktrees, m.ctx
	if w == nil {
		m.notice(NoticeInfo, "no worktrees to manage: the workspace is not a git repository")
		return nil
	}
	switch strings.ToLower(strings.TrimSpace(arg)) {
	case "":
		return func() tea.Msg {
			text, err := w.List(ctx)
			if err != nil {
				return worktreesMsg{text: "list worktrees: " + err.Error(), level: NoticeError}
			}
			return worktreesMsg{text: strings.TrimRight(text, "\n"), level: NoticeInfo}
		}
	case "prune":
		return func() tea.Msg {
			text, err := w.Prune(ctx)
			if err != nil {
				return worktreesMsg{text: strings.TrimRight(text, "\n") + "\nprune worktrees: " + err.Error(), level: NoticeError}
			}
			return worktreesMsg{text: strings.TrimRight(text, "\n"), level: NoticeInfo}
		}
	}
	m.notice(NoticeError, "/worktrees takes no argument (list) or prune")
	return nil
}
