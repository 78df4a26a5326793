package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"covey/agent"
	"covey/internal/excerpt"
)

// StartByUser starts a child of the main agent that the user asked for by
// name (the TUI's "@Explore find the retry logic"): of type agentType,
// with brief as its prompt, in the background, without a model turn to
// decide it. Its report comes back to the main agent as a background
// child's does (a user-role message that starts a turn when the agent is
// idle). It returns the child's name and ID.
func (m *Manager) StartByUser(agentType, brief string) (name, id string, err error) {
	brief = strings.TrimSpace(brief)
	if brief == "" {
		return "", "", errors.New("no brief: write what the subagent should do after its name")
	}
	spec := TaskSpec{
		Description:  excerpt.Cut(excerpt.Line(brief), 40),
		Prompt:       brief,
		SubagentType: agentType,
		Background:   true,
	}
	// A call ID no call has: the child hangs under no tool call, and its
	// pane follows the user's message.
	parentCall := fmt.Sprintf("user-start-%d", m.byUser.Add(1))
	c, failed := m.spawn(context.Background(), agent.Source{AgentID: agent.MainAgentID}, parentCall, nil, spec)
	if failed != nil {
		return "", "", errors.New(strings.TrimPrefix(failed.text, "Error: "))
	}
	c.asked = "@" + c.def.Name + " " + brief
	m.start(c)
	return c.src.Name, c.src.AgentID, nil
}
