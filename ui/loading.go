package ui

import (
	"fmt"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/ui/cells"
	"covey/ui/transcript"
)

// LoadFunc reads a resumed session after the first frame (Options.Load):
// its events to replay, the note that says which session came back, or
// why it could not be read.
type LoadFunc func() (replay []agent.Event, note string, err error)

// loadingText is the line shown while a resumed session is read.
const loadingText = "loading session… (what you type now is sent once it is in)"

// sessionLoadedMsg brings the resumed session read by Options.Load.
type sessionLoadedMsg struct {
	replay []agent.Event
	note   string
	err    error
}

// sessionLoad is the state of a resumed session read in the background:
// the line that says so, and what the user sent meanwhile, in order.
type sessionLoad struct {
	fn      LoadFunc
	line    transcript.Block
	pending []string
	// notes say what is queued; they go when it is sent.
	notes []transcript.Block
}

// startLoading shows the loading line; Init starts the read.
func (m *Model) startLoading(fn LoadFunc) {
	m.load = &sessionLoad{fn: fn, line: transcript.NewNoticeBlock(transcript.NoticeInfo, loadingText)}
	m.tr.Append(m.load.line)
}

// loadCmd reads the session off the UI goroutine.
func (m Model) loadCmd() tea.Cmd {
	if m.load == nil {
		return nil
	}
	fn := m.load.fn
	// After the first frame, so reading never competes with drawing it.
	return tea.Tick(firstFrameDelay, func(time.Time) tea.Msg {
		replay, note, err := fn()
		return sessionLoadedMsg{replay: replay, note: note, err: err}
	})
}

// holdWhileLoading keeps text sent before the session is in; it reports
// whether it did. Nothing reaches the engine before the history is there.
func (m *Model) holdWhileLoading(text string) bool {
	if m.load == nil {
		return false
	}
	m.load.pending = append(m.load.pending, text)
	note := transcript.NewNoticeBlock(transcript.NoticeInfo, fmt.Sprintf("queued until the session is loaded: %s", cells.OneLine(text)))
	m.load.notes = append(m.load.notes, note)
	m.tr.Append(note)
	m.tr.Bottom()
	return true
}

// handleLoaded puts the replay where the loading line was (notices that
// came meanwhile follow it), then sends what the user typed meanwhile.
// A session that cannot be read ends the program: the caller reports why.
func (m *Model) handleLoaded(msg sessionLoadedMsg) tea.Cmd {
	ld := m.load
	m.load = nil
	if ld == nil {
		return nil
	}
	var after []transcript.Block
	if i := m.tr.IndexOf(ld.line); i >= 0 {
		after = m.tr.Blocks()[i+1:]
	}
	m.tr.Remove(ld.line)
	if msg.err != nil {
		m.notice(transcript.NoticeError, "the session could not be loaded: "+msg.err.Error())
		return tea.Quit
	}
	for _, b := range after {
		m.tr.Remove(b)
	}
	m.replay(msg.replay, msg.note)
	for _, b := range after {
		if !slices.Contains(ld.notes, b) { // the messages themselves follow
			m.tr.Append(b)
		}
	}
	if m.engine != nil {
		m.status.SetModel(m.engine.Model())
		m.rt.mainModel = m.engine.Model()
	}
	m.tr.Bottom()
	var cmds []tea.Cmd
	for _, text := range ld.pending {
		cmds = append(cmds, m.submit(text))
	}
	return tea.Batch(cmds...)
}
