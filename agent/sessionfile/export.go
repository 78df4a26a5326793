package sessionfile

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"covey/agent"
	"covey/internal/excerpt"
	"covey/internal/plural"
)

// Export bounds: whatever a session holds, an export stays readable. A
// child's whole transcript is never inlined: its brief and report are
// (cut at reportRunes), and the export says where the rest is.
const (
	reportRunes = 2000
	resultRunes = 2000
	argRunes    = 80
)

// Markdown writes the conversation of l as markdown: the user's messages,
// the answers, each tool call folded to one line, each subagent's brief
// and report in a section of its own. path is the session file, which the
// export names for a child's whole transcript.
func Markdown(w io.Writer, l *Loaded, path string) error {
	var b strings.Builder
	h := l.Header
	fmt.Fprintf(&b, "# covey session %s\n\n", h.ID)
	fmt.Fprintf(&b, "- workspace: %s\n- started: %s\n- model: %s\n", h.Workspace, h.Created.Local().Format(time.DateTime), l.Model)
	if h.ForkedFrom != "" {
		fmt.Fprintf(&b, "- forked from: %s\n", h.ForkedFrom)
	}
	for _, rec := range l.Replay {
		switch {
		case rec.Message != nil:
			writeMessage(&b, *rec.Message)
		case rec.Event != nil:
			writeChildEvent(&b, l, rec.Event, path)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMessage(b *strings.Builder, m agent.Message) {
	switch m.Role {
	case agent.RoleUser:
		if strings.HasPrefix(m.Content, backgroundNoticePrefix) {
			return // the children's sections show their outcomes
		}
		fmt.Fprintf(b, "\n## You\n\n%s\n", strings.TrimSpace(m.Content))
	case agent.RoleAssistant:
		if t := strings.TrimSpace(m.Content); t != "" {
			fmt.Fprintf(b, "\n## covey\n\n%s\n", t)
		}
		if len(m.ToolCalls) > 0 {
			b.WriteString("\n")
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(b, "- `%s` %s\n", c.Name, excerpt.Cut(excerpt.Line(c.Arguments), argRunes))
		}
	}
}

func writeChildEvent(b *strings.Builder, l *Loaded, e agent.Event, path string) {
	switch ev := e.(type) {
	case agent.ChildStarted:
		if ev.AgentType == agent.ShellType {
			return
		}
		fmt.Fprintf(b, "\n### Subagent %s (%s)\n\n**Brief:** %s\n", childName(ev.Source), ev.AgentType, strings.TrimSpace(ev.Prompt))
		if ev.Worktree != nil {
			fmt.Fprintf(b, "\nIt worked in its own worktree.\n")
		}
	case agent.ChildFinished:
		if ev.AgentType == agent.ShellType {
			return
		}
		report, n := childReport(l, ev.AgentID, ev.Summary)
		fmt.Fprintf(b, "\n**Report of %s** (%s):\n\n%s\n", childName(ev.Source), ev.Reason, excerpt.Clip(report, reportRunes))
		fmt.Fprintf(b, "\n_Its whole transcript (%s) is not inlined: it is in %s, agent %s._\n", plural.Count(n, "message"), path, ev.AgentID)
	}
}

func childName(s agent.Source) string {
	if s.Name != "" {
		return s.Name
	}
	return s.AgentID
}

// childReport is a child's last answer and the length of its history.
func childReport(l *Loaded, id, summary string) (string, int) {
	for _, c := range l.Children {
		if c.Source.AgentID != id {
			continue
		}
		for i := len(c.Messages) - 1; i >= 0; i-- {
			if m := c.Messages[i]; m.Role == agent.RoleAssistant && strings.TrimSpace(m.Content) != "" {
				return strings.TrimSpace(m.Content), len(c.Messages)
			}
		}
		return summary, len(c.Messages)
	}
	return summary, 0
}

// ExportedChild is a subagent in a JSON export: what it was asked and
// what it answered, never its whole transcript.
type ExportedChild struct {
	ID       string `json:"id"`
	Name     string `json:"name,omitempty"`
	Type     string `json:"type,omitempty"`
	Brief    string `json:"brief,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Report   string `json:"report,omitempty"`
	Messages int    `json:"messages"`
	// Transcript says where the child's whole history is.
	Transcript string `json:"transcript"`
}

// Exported is a session as `covey export --format json` prints it.
type Exported struct {
	Header      Header          `json:"session"`
	Model       string          `json:"model"`
	Messages    []agent.Message `json:"messages"`
	Children    []ExportedChild `json:"children"`
	Checkpoints []Checkpoint    `json:"checkpoints,omitempty"`
}

// JSON writes l as one JSON object (Exported): the main conversation with
// each tool result cut at a bound, and each child's brief and report.
func JSON(w io.Writer, l *Loaded, path string) error {
	x := Exported{Header: l.Header, Model: l.Model, Checkpoints: l.Checkpoints, Messages: make([]agent.Message, 0, len(l.Messages)), Children: []ExportedChild{}}
	for _, m := range l.Messages {
		m.Native = nil
		if m.Role == agent.RoleTool {
			m.Content = excerpt.Clip(m.Content, resultRunes)
		}
		x.Messages = append(x.Messages, m)
	}
	briefs := map[string]string{}
	for _, rec := range l.Replay {
		if s, ok := rec.Event.(agent.ChildStarted); ok {
			briefs[s.AgentID] = s.Prompt
		}
	}
	for _, c := range l.Children {
		if c.Source.AgentType == agent.ShellType {
			continue
		}
		report, n := childReport(l, c.Source.AgentID, "")
		x.Children = append(x.Children, ExportedChild{ID: c.Source.AgentID, Name: c.Source.Name, Type: c.Source.AgentType,
			Brief: briefs[c.Source.AgentID], Reason: c.Reason, Report: excerpt.Clip(report, reportRunes), Messages: n,
			Transcript: path + "#" + c.Source.AgentID})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(x)
}
