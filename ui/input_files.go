package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// filesTimeout bounds one listing.
const filesTimeout = 10 * time.Second

// filesListedMsg carries a listing of the workspace's files.
type filesListedMsg struct {
	files []string
	err   error
}

// listFiles asks the engine for the workspace's files.
func listFiles(ctx context.Context, l FileLister) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, filesTimeout)
		defer cancel()
		files, err := l.WorkspaceFiles(ctx)
		return filesListedMsg{files: files, err: err}
	}
}
