package subagent

import (
	"errors"
	"fmt"
	"strings"

	"covey/agent"
)

// forked is the conversation a forked child starts from: its parent's
// system prompt and history, as they were when the task call ran.
type forked struct {
	system  string
	history []agent.Message
	len     int // of the history it started with, calls answered
}

// errNoConversation refuses a fork whose parent's conversation covey does
// not hold.
var errNoConversation = errors.New("fork: the parent's conversation is not available here; start the child without fork")

// conversationOf returns the system prompt and history of the agent with
// AgentID id: the main agent (or another agent a Driver serves), or a
// child.
func (m *Manager) conversationOf(id string) (*forked, error) {
	m.mu.Lock()
	a := m.tops[id]
	c := m.children[id]
	m.mu.Unlock()
	if a == nil && c != nil {
		c.mu.Lock()
		a = c.a
		c.mu.Unlock()
	}
	if a == nil {
		return nil, errNoConversation
	}
	return &forked{system: a.System(), history: a.History()}, nil
}

// forkHistory is the history a forked child starts with: its parent's,
// unchanged (so its first request begins with the very messages of the
// parent's last one), with the calls of the parent's last message
// answered, since every tool call needs its result before the next
// request: the call that started the child says so, the others that they
// run on in the parent.
func forkHistory(parent []agent.Message, ownCall string) []agent.Message {
	h := append([]agent.Message(nil), parent...)
	if len(h) == 0 {
		return h
	}
	last := h[len(h)-1]
	if last.Role != agent.RoleAssistant || len(last.ToolCalls) == 0 {
		return h
	}
	for _, tc := range last.ToolCalls {
		content := "[running in the parent agent; you will not see its result]"
		if tc.ID == ownCall {
			content = "[this call started you, a forked subagent: your parent waits for your report]"
		}
		h = append(h, agent.Message{Role: agent.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: content})
	}
	return h
}

// forkBrief is the first message of a forked child: who it is now, what it
// may use, and its brief. Its type's instructions come here, not in the
// system prompt, which stays its parent's so the prefix is shared.
func (c *child) forkBrief(prompt string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are now a forked subagent of type %s. The conversation above is your parent's, up to the call that started you: "+
		"you know what it knows. From here you work on your own on the brief below, then end with a final report for your parent "+
		"(only that report goes back to it). You cannot ask questions.\n\n", c.def.Name)
	var names []string
	if c.a != nil {
		names = c.a.Tools().Names()
	}
	if len(names) == 0 {
		b.WriteString("You have no tools: answer from what you know.\n\n")
	} else {
		fmt.Fprintf(&b, "Your tools are only these: %s. Tool calls above that name other tools were your parent's; you cannot make them.\n\n", strings.Join(names, ", "))
	}
	if c.iso != nil {
		fmt.Fprintf(&b, "You work in a git worktree of your own at %s, not in the user's checkout: use paths there. "+
			"Every file you change is proposed to the user as one change to review; do not commit, stash or switch branches.\n\n", c.iso.wt.Path())
	}
	if p := strings.TrimSpace(c.def.Prompt); p != "" {
		b.WriteString("# Instructions of your type\n" + p + "\n\n")
	}
	b.WriteString("# Your brief\n" + prompt)
	return b.String()
}
