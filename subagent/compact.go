package subagent

import (
	"context"
	"fmt"
	"strings"

	"covey/agent"
	"covey/permission"
)

// reportExcerpt bounds each child's last report in a crew note; a crew of
// more than crowdSize children gets shorter excerpts.
const (
	reportExcerpt = 600
	crowdReport   = 200
	crowdSize     = 12
	// maxAsking bounds the request a crew note names as awaiting approval.
	maxAsking = 120
)

// CrewNote is covey's own record of the crew under the agent parentID,
// for the summary that replaces its history when it compacts: every
// descendant's name, id, type, state and task, its last report (cut, with
// where to get the rest), and the background outcomes still waiting to be
// delivered. It comes from the manager's state, not from the model, so a
// compaction cannot forget a child. "" when the agent has no children.
func (m *Manager) CrewNote(parentID string) string {
	m.mu.Lock()
	var list []*child
	for _, id := range m.order {
		list = append(list, m.children[id])
	}
	m.mu.Unlock()
	var crew []*child
	for _, c := range list {
		if c.src.AgentID != parentID && m.isDescendant(c, parentID) {
			crew = append(crew, c)
		}
	}
	waiting := m.Inbox(parentID).Peek()
	if len(crew) == 0 && len(waiting) == 0 {
		return ""
	}
	limit := reportExcerpt
	if len(crew) > crowdSize {
		limit = crowdReport
	}
	var b strings.Builder
	for _, c := range crew {
		c.mu.Lock()
		state, bg, paused, out, asking := c.state, c.background, c.paused, c.out, c.asking
		a := c.a
		c.mu.Unlock()
		fmt.Fprintf(&b, "- %s (id %s, type %s", c.src.Name, c.src.AgentID, c.src.AgentType)
		if c.src.ParentID != parentID {
			fmt.Fprintf(&b, ", child of %s", c.src.ParentID)
		}
		fmt.Fprintf(&b, "): %s", state)
		if bg {
			b.WriteString(", in the background")
		}
		if paused {
			b.WriteString(", paused")
		}
		if asking != "" {
			fmt.Fprintf(&b, ", waiting for the user's approval of %s", asking)
		}
		if d := strings.TrimSpace(c.src.Description); d != "" {
			fmt.Fprintf(&b, ". Task: %s", d)
		}
		b.WriteString(".")
		report := out.text
		if report == "" && a != nil && !c.isRunning() {
			report = lastAnswer(a.History())
		}
		switch report = strings.TrimSpace(report); {
		case c.isRunning():
			b.WriteString(" Still working: its report will arrive as a message.")
		case report == "":
			b.WriteString(" No report was kept.")
		case len(report) <= limit:
			fmt.Fprintf(&b, " Last report: %s", oneLine(report))
		default:
			fmt.Fprintf(&b, " Last report (first %d of %d characters; send_message to %s to have it repeat the rest): %s …", limit, len(report), c.src.Name, oneLine(report[:limit]))
		}
		b.WriteString("\n")
	}
	if len(waiting) > 0 {
		b.WriteString("Background outcomes not yet delivered (each arrives as its own message after this):\n")
		for _, n := range waiting {
			fmt.Fprintf(&b, "- %s (id %s): %s\n", n.Name, n.ChildID, n.Status)
		}
	}
	b.WriteString("send_message to a name or id reaches the child: a running one reads it before its next step, a finished one resumes with its whole history.")
	return b.String()
}

// noteAsking records the permission request the child waits on (a zero
// Request: none).
func (c *child) noteAsking(req permission.Request) {
	what := oneLine(req.Tool + " " + firstNonEmpty(req.Path, req.Command, req.URL, req.ServerTool))
	if len(what) > maxAsking {
		what = strings.ToValidUTF8(what[:maxAsking], "") + "…"
	}
	c.mu.Lock()
	c.asking = what
	c.mu.Unlock()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// lastAnswer is the text of the last assistant message with any.
func lastAnswer(h []agent.Message) string {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == agent.RoleAssistant && strings.TrimSpace(h[i].Content) != "" {
			return h[i].Content
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Peek returns the notices waiting, leaving them there.
func (in *Inbox) Peek() []Notice {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Notice(nil), in.notices...)
}

// Compact compacts the agent's conversation (/compact) once any turn in
// progress has ended, so it never races a delivered turn.
func (d *Driver) Compact(ctx context.Context, focus string) (agent.Compacted, error) {
	var ev agent.Compacted
	_, err := d.do(ctx, func() (agent.Result, error) {
		var err error
		ev, err = d.a.Compact(ctx, focus)
		return agent.Result{}, err
	})
	return ev, err
}
