package ui

import (
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"covey/theme"
	"covey/ui/markdown"
)

// backgroundMsg is the terminal's answer to the background query (OSC
// 11), which may come long after the first frame, or never.
type backgroundMsg struct{ dark bool }

// handleBackground switches to the palette of the background the
// terminal answered, when the theme is auto and the first frame guessed
// the other one (from the answer kept last time, dark without one):
// everything is drawn anew with it, the conversation as it is.
func (m *Model) handleBackground(msg backgroundMsg) {
	if !m.autoTheme || msg.dark == m.dark {
		return
	}
	m.dark = msg.dark
	md := "light"
	if msg.dark {
		md = "dark"
	}
	st := &theme.New(theme.ModeAuto, msg.dark, false).Styles
	m.styles = st
	m.tr.SetStyles(st, markdown.NewRenderer(md, st))
	m.help = newHelp(st)
	m.input.SetStyles(st)
	m.status.SetStyles(st)
	m.comp.SetStyles(st)
	m.ov.SetStyles(st)
	m.mp.SetStyles(st)
	m.memo = &chromeMemo{}
}

// msgRelay hands a message from another goroutine to the program once it
// exists (the terminal's input is opened before it): a message sent
// before is dropped.
type msgRelay struct {
	mu   sync.Mutex
	send func(tea.Msg)
}

func (r *msgRelay) set(send func(tea.Msg)) {
	r.mu.Lock()
	r.send = send
	r.mu.Unlock()
}

func (r *msgRelay) Send(msg tea.Msg) {
	r.mu.Lock()
	send := r.send
	r.mu.Unlock()
	if send != nil {
		send(msg)
	}
}
