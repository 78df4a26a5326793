package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/ui/cells"
	"covey/ui/input"
	"covey/ui/transcript"
)

// This file holds two crew members the user reaches from the input and the
// panes: subagents started by name ("@Explore find the retry logic") and
// background shells (a pane whose open key shows the shell's whole output).

// childStartedByUserMsg reports a subagent the user started by name.
type childStartedByUserMsg struct {
	typ, name string
	err       error
}

// shellOutputMsg carries a background shell's whole kept output to its
// full-screen view.
type shellOutputMsg struct {
	id  string
	out string
	cut int64
	// gone is set when the engine no longer has the shell (it ran in an
	// earlier covey, and only its pane came back with the session).
	gone bool
}

// mention splits "@Type brief" into the agent type it names (as the type
// is spelled, matched without regard to case) and the brief; ok is false
// when text does not start with "@" and the name of a type (an "@path"
// is a message like any other).
func mention(text string, types []AgentInfo) (typ, brief string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "@") {
		return "", "", false
	}
	word, rest, _ := strings.Cut(text[1:], " ")
	if i := strings.IndexByte(word, '\n'); i >= 0 {
		word, rest = word[:i], word[i+1:]+" "+rest
	}
	for _, t := range types {
		if strings.EqualFold(t.Name, word) {
			return t.Name, strings.TrimSpace(rest), true
		}
	}
	return "", "", false
}

// startByName starts the subagent text names, showing the user's words
// first; handled is false when text names no agent type.
func (m *Model) startByName(text string) (tea.Cmd, bool) {
	typ, brief, ok := mention(text, m.agents)
	if !ok {
		return nil, false
	}
	starter, can := m.engine.(ChildStarter)
	if !can {
		m.notice(transcript.NoticeError, "this session cannot start subagents by name")
		return nil, true
	}
	if brief == "" {
		m.notice(transcript.NoticeError, fmt.Sprintf("@%s needs a brief: what should it do? e.g. @%s find the retry logic", typ, typ))
		return nil, true
	}
	m.tr.Append(transcript.NewUserBlock(text))
	m.tr.Bottom()
	return func() tea.Msg {
		name, err := starter.StartChild(typ, brief)
		return childStartedByUserMsg{typ: typ, name: name, err: err}
	}, true
}

// fetchShellOutput reads a shell's whole output for its view.
func (m *Model) fetchShellOutput(id string) tea.Cmd {
	r, ok := m.engine.(ShellReader)
	if !ok {
		return nil
	}
	return func() tea.Msg {
		out, cut, ok := r.ShellOutput(id)
		return shellOutputMsg{id: id, out: out, cut: cut, gone: !ok}
	}
}

// refreshShellView asks again for the output of the shell shown
// full-screen when it printed more.
func (m *Model) refreshShellView(ev agent.Event) tea.Cmd {
	cv := m.shownChild()
	if _, ok := ev.(agent.ShellOutput); !ok || cv == nil || cv.Pane().AgentID() != ev.From().AgentID {
		return nil
	}
	return m.fetchShellOutput(ev.From().AgentID)
}

// showShellOutput puts a shell's output into its open view.
func (m *Model) showShellOutput(msg shellOutputMsg) {
	cv := m.shownChild()
	if cv == nil || cv.Pane().AgentID() != msg.id {
		return
	}
	if msg.gone {
		msg.out = "(its output is not kept: it ran in an earlier covey)"
	}
	cv.SetShellOutput(msg.out, msg.cut)
}

// agentEntries are the agent types as completion entries after "@": an
// agent started by name always waits for its brief.
func agentEntries(infos []AgentInfo) []input.Entry {
	out := make([]input.Entry, 0, len(infos))
	for _, a := range infos {
		out = append(out, input.Entry{Name: a.Name, Args: "BRIEF", Help: cells.OneLine(a.Description)})
	}
	return out
}
