package ui

import (
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// compactDoneMsg carries the engine's answer to /compact.
type compactDoneMsg struct{ err error }

func (m *Model) cmdCompact(focus string) tea.Cmd {
	if m.turn != nil {
		m.notice(transcript.NoticeError, "a turn is running: /compact after it ends (or press "+keys.Name(m.keys.Cancel)+" to cancel it)")
		return nil
	}
	c, ok := m.engine.(Compacter)
	if !ok {
		m.notice(transcript.NoticeError, "this session cannot compact its conversation")
		return nil
	}
	if m.compacting {
		return nil
	}
	// The engine's Compacting event draws the divider as it starts.
	m.compacting = true
	m.tr.Bottom()
	ctx := m.ctx
	return func() tea.Msg {
		_, err := c.Compact(ctx, focus)
		return compactDoneMsg{err: err}
	}
}

// handleCompactDone says why /compact did nothing; a compaction that
// happened shows as its divider.
func (m *Model) handleCompactDone(msg compactDoneMsg) {
	m.compacting = false
	switch {
	case errors.Is(msg.err, agent.ErrNothingToCompact):
		m.notice(transcript.NoticeInfo, "nothing to compact yet")
	case msg.err != nil:
		m.notice(transcript.NoticeError, "compact: "+msg.err.Error())
	}
	m.tr.Bottom()
}
