package ui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/checkpoint"
	"covey/ui/keys"
	"covey/ui/screens"
	"covey/ui/transcript"
)

// Rewinder is the optional part of an Engine that keeps checkpoints
// (/rewind, esc twice on an empty input), forks the session (/fork) and
// exports it (/export).
type Rewinder interface {
	screens.RewindEngine
	// Rewind does what the user chose and returns what happened and,
	// when the conversation changed, its events to draw it again.
	Rewind(ctx context.Context, req checkpoint.Request) (checkpoint.Outcome, []agent.Event, error)
	// Fork goes on in a copy of the session and returns its new ID.
	Fork() (string, error)
	// Export writes the conversation as markdown and returns the path.
	Export(file string) (string, error)
}

// rewoundMsg carries a rewind's outcome.
type rewoundMsg struct {
	out    checkpoint.Outcome
	events []agent.Event
	err    error
}

// forkedMsg and exportedMsg carry /fork's and /export's outcomes.
type forkedMsg struct {
	id  string
	err error
}

type exportedMsg struct {
	path string
	err  error
}

// rewinder is the engine's Rewinder, with a notice when there is none
// or when something runs that a rewind must not cut into.
func (m *Model) rewinder(what string) (Rewinder, bool) {
	r, ok := m.engine.(Rewinder)
	switch {
	case !ok:
		m.notice(transcript.NoticeError, "this session keeps no checkpoints, so it cannot "+what)
	case m.turn != nil || m.bgTurn:
		m.notice(transcript.NoticeError, "a turn is running: press "+keys.Name(m.keys.Cancel)+" to cancel it before /"+what)
	case m.appr.cur != nil:
		m.notice(transcript.NoticeError, "a request waits for your answer: answer it before /"+what)
	case m.rewinding:
		m.notice(transcript.NoticeError, "a rewind is running: wait for it before /"+what)
	default:
		return r, true
	}
	m.tr.Bottom()
	return nil, false
}

func (m *Model) cmdRewind(string) tea.Cmd {
	r, ok := m.rewinder("rewind")
	if !ok {
		return nil
	}
	m.disarmRewind()
	scr := screens.NewRewind(m.ctx, m.styles, m.keys, r)
	m.openScreen(scr)
	return scr.Load()
}

// escRewind is esc on an empty input while nothing runs: the first asks
// for a second, which opens /rewind.
func (m *Model) escRewind() tea.Cmd {
	if m.rewindArmed {
		return m.cmdRewind("")
	}
	m.rewindArmed = true
	m.status.SetHint("press " + m.keys.Rewind.Keys()[0] + " again to rewind")
	return nil
}

// disarmRewind ends the wait for a second esc.
func (m *Model) disarmRewind() {
	if m.rewindArmed {
		m.rewindArmed = false
		m.status.SetHint("")
	}
}

// runRewind runs the rewind the screen chose, in a command.
func (m *Model) runRewind(a screens.RewindTo) tea.Cmd {
	m.closeScreen()
	r, ok := m.rewinder("rewind")
	if !ok {
		return nil
	}
	m.rewinding = true
	m.status.SetNote("rewinding to before " + a.Label + "…")
	ctx := m.ctx
	return func() tea.Msg {
		out, events, err := r.Rewind(ctx, a.Req)
		return rewoundMsg{out: out, events: events, err: err}
	}
}

// handleRewound draws the conversation again when it was cut (the crew
// with it: children started since are gone), puts the message back into
// the input and says what happened.
func (m *Model) handleRewound(msg rewoundMsg) {
	m.status.SetNote("")
	m.rewinding = false
	if msg.err != nil {
		m.notice(transcript.NoticeError, "rewind: "+msg.err.Error())
		return
	}
	if msg.events != nil {
		m.tr.Clear()
		m.rt.reset()
		m.replay(msg.events, "")
	}
	if msg.out.Text != "" {
		m.input.SetValue(msg.out.Text)
	}
	m.focusBack() // a screen opened meanwhile keeps the keys
	m.notice(transcript.NoticeInfo, "Rewound: "+msg.out.Summary+".")
	m.tr.Bottom()
}

func (m *Model) cmdFork(string) tea.Cmd {
	r, ok := m.rewinder("fork")
	if !ok {
		return nil
	}
	return func() tea.Msg {
		id, err := r.Fork()
		return forkedMsg{id: id, err: err}
	}
}

func (m *Model) cmdExport(file string) tea.Cmd {
	r, ok := m.engine.(Rewinder)
	if !ok {
		m.notice(transcript.NoticeError, "this session keeps no session file, so it cannot be exported")
		return nil
	}
	return func() tea.Msg {
		path, err := r.Export(file)
		return exportedMsg{path: path, err: err}
	}
}

// updateRewind handles the messages of this file; false when msg is none
// of them.
func (m *Model) updateRewind(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case rewoundMsg:
		m.handleRewound(msg)
	case forkedMsg:
		if msg.err != nil {
			m.notice(transcript.NoticeError, "fork: "+msg.err.Error())
		} else {
			m.notice(transcript.NoticeInfo, "Forked: this is now session "+msg.id+"; the session before the fork is left as it was.")
		}
	case exportedMsg:
		if msg.err != nil {
			m.notice(transcript.NoticeError, msg.err.Error())
		} else {
			m.notice(transcript.NoticeInfo, "Exported the conversation to "+msg.path)
		}
	default:
		return nil, false
	}
	m.tr.Bottom()
	return nil, true
}
