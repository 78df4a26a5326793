package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"covey/tools/toolname"

	"covey/agent"
	"covey/tools/tool"
)

// Names of the crew tools.
const (
	ToolSendMessage = toolname.SendMessage
	ToolStopAgent   = toolname.StopAgent
)

// target finds the child named by to among the descendants of from.
func (m *Manager) target(from agent.Source, to string) (*child, error) {
	to = strings.TrimSpace(to)
	if to == "" {
		return nil, errors.New(`"to" is empty: give a child's name or id`)
	}
	c := m.lookup(to)
	if c == nil || c.src.AgentID == from.AgentID || !m.isDescendant(c, from.AgentID) {
		return nil, fmt.Errorf("no child of yours is named %q. Your children: %s", to, m.childrenOf(from.AgentID))
	}
	return c, nil
}

// childrenOf lists the children an agent spawned, "name (id, state)".
func (m *Manager) childrenOf(parentID string) string {
	m.mu.Lock()
	list := make([]*child, 0, len(m.order))
	for _, id := range m.order {
		if c := m.children[id]; c.parentID == parentID {
			list = append(list, c)
		}
	}
	m.mu.Unlock()
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, len(list))
	for i, c := range list {
		c.mu.Lock()
		parts[i] = fmt.Sprintf("%s (%s, %s)", c.src.Name, c.src.AgentID, c.state)
		c.mu.Unlock()
	}
	return strings.Join(parts, ", ")
}

// sendTool is send_message: steer a running child, resume a finished one.
type sendTool struct {
	m    *Manager
	from agent.Source
}

func (t *sendTool) Name() string     { return ToolSendMessage }
func (t *sendTool) ReadOnly() bool   { return false }
func (t *sendTool) Concurrent() bool { return true }

func (t *sendTool) Description() string {
	return `Message one of your subagents by name or id: a running one reads it before its next request; a finished one resumes in the background with its history, and its new report arrives as a message.`
}

func (t *sendTool) Schema() map[string]any { return sendSchema() }

var sendSchema = tool.ArgsSchema[sendArgs](tool.SchemaOpen)

// sendArgs are send_message's arguments.
type sendArgs struct {
	To      string `json:"to" jsonschema:"The subagent's name or id"`
	Message string `json:"message" jsonschema:"What to tell it"`
}

func (t *sendTool) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	var a sendArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Errorf("invalid send_message arguments: %v. Send {\"to\": name-or-id, \"message\": text}", err)
	}
	if strings.TrimSpace(a.Message) == "" {
		return tool.Errorf(`"message" is empty`)
	}
	c, err := t.m.target(t.from, a.To)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	running := c.isRunning()
	if err := c.send(ctx, a.Message); err != nil {
		return tool.Errorf("send to %s: %v", c.src.Name, err)
	}
	if running {
		return tool.Result{Content: fmt.Sprintf("Delivered to %s (%s): it reads it before its next step.", c.src.Name, c.src.AgentID), Summary: "delivered"}
	}
	return tool.Result{Content: fmt.Sprintf("%s (%s) resumed in the background with your message; its report will arrive as a message.", c.src.Name, c.src.AgentID), Summary: "resumed"}
}

// stopTool is stop_agent: cancel one running child.
type stopTool struct {
	m    *Manager
	from agent.Source
}

func (t *stopTool) Name() string     { return ToolStopAgent }
func (t *stopTool) ReadOnly() bool   { return false }
func (t *stopTool) Concurrent() bool { return true }

func (t *stopTool) Description() string {
	return `Stop one of your running subagents by name or id; what it found so far comes back as its report.`
}

func (t *stopTool) Schema() map[string]any { return stopSchema() }

var stopSchema = tool.ArgsSchema[stopArgs](tool.SchemaOpen)

// stopArgs are stop_agent's arguments.
type stopArgs struct {
	To string `json:"to" jsonschema:"The subagent's name or id"`
}

func (t *stopTool) Run(_ context.Context, raw json.RawMessage) tool.Result {
	var a stopArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Errorf("invalid stop_agent arguments: %v. Send {\"to\": name-or-id}", err)
	}
	c, err := t.m.target(t.from, a.To)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	if !c.isRunning() {
		return tool.Errorf("%s (%s) is not running", c.src.Name, c.src.AgentID)
	}
	c.cancelRun(errStopped)
	return tool.Result{Content: fmt.Sprintf("Stopped %s (%s).", c.src.Name, c.src.AgentID), Summary: "stopped"}
}
