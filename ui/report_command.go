package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/ui/transcript"
)

// Reporter is the optional part of an Engine that writes the session's
// crew report (/report): the files it wrote and a one-line summary.
type Reporter interface {
	Report() (paths []string, summary string, err error)
}

// reportDoneMsg carries the engine's answer to /report.
type reportDoneMsg struct {
	paths   []string
	summary string
	err     error
}

func (m *Model) cmdReport(string) tea.Cmd {
	r, ok := m.engine.(Reporter)
	if !ok {
		m.notice(transcript.NoticeError, "this session keeps no session file, so it has no crew report")
		return nil
	}
	return func() tea.Msg {
		paths, summary, err := r.Report()
		return reportDoneMsg{paths: paths, summary: summary, err: err}
	}
}

// handleReportDone says where the report went.
func (m *Model) handleReportDone(msg reportDoneMsg) {
	if msg.err != nil {
		m.notice(transcript.NoticeError, "report: "+msg.err.Error())
		return
	}
	m.notice(transcript.NoticeInfo, "crew report: "+msg.summary+"\nwritten to "+strings.Join(msg.paths, " and ")+" (open the html in a browser for the timeline)")
	m.tr.Bottom()
}
