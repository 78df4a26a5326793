package ui

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"covey/tools/workspace"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// This file holds the commands that act on whole turns: /undo and /retry
// (also ctrl+r after a failed turn).

// undoDoneMsg carries the engine's answer to /undo.
type undoDoneMsg struct {
	summary string
	err     error
}

func (m *Model) cmdUndo(string) tea.Cmd {
	if m.turn != nil {
		m.notice(transcript.NoticeError, "a turn is running: press "+keys.Name(m.keys.Cancel)+" to cancel it before /undo")
		return nil
	}
	if m.engine == nil {
		m.notice(transcript.NoticeError, "no engine configured")
		return nil
	}
	ctx, engine := m.ctx, m.engine
	return func() tea.Msg {
		summary, err := engine.Undo(ctx)
		return undoDoneMsg{summary: summary, err: err}
	}
}

// handleUndoDone shows what /undo restored, or why it could not.
func (m *Model) handleUndoDone(msg undoDoneMsg) {
	switch {
	case errors.Is(msg.err, workspace.ErrNothingToUndo):
		m.notice(transcript.NoticeInfo, msg.err.Error())
	case msg.err != nil:
		m.notice(transcript.NoticeError, "undo: "+msg.err.Error())
	case msg.summary == "":
		m.notice(transcript.NoticeInfo, "undone")
	default:
		m.notice(transcript.NoticeInfo, msg.summary)
	}
	m.tr.Bottom()
}

func (m *Model) cmdRetry(string) tea.Cmd { return m.retry() }

// retry runs the last user turn again, like a new turn.
func (m *Model) retry() tea.Cmd {
	if m.turn != nil {
		m.notice(transcript.NoticeError, "a turn is running: press "+keys.Name(m.keys.Cancel)+" to cancel it before /retry")
		return nil
	}
	m.tr.Bottom()
	// The engine says "retrying", naming the message, once it has found it.
	return m.runTurn(func(ctx context.Context, e Engine) error { return e.Retry(ctx) })
}
