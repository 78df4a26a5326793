package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"covey/agent"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// Bounds of crew_status's answer: a crew of hundreds still answers in a
// few kilobytes, the running children first.
const (
	statusMaxChildren = 30
	statusMaxFiles    = 8
	statusMaxBytes    = 12 << 10
)

// statusTool is crew_status: the parent sees its children as the user's
// panes show them, instead of waiting blind on background work.
type statusTool struct {
	m    *Manager
	from agent.Source
}

func (t *statusTool) Name() string     { return toolname.CrewStatus }
func (t *statusTool) ReadOnly() bool   { return true }
func (t *statusTool) Concurrent() bool { return true }

func (t *statusTool) Description() string {
	return `Your subagents' live state, as the user's panes show it: state, current step, last tool call, turns, elapsed, tokens and budget left, files changed. Check background children with it instead of waiting blind; "to" names one.`
}

func (t *statusTool) Schema() map[string]any { return statusSchema() }

var statusSchema = tool.ArgsSchema[statusArgs](tool.SchemaOpen)

// statusArgs are crew_status's arguments.
type statusArgs struct {
	To string `json:"to,omitempty" jsonschema:"One subagent's name or id; omit for all of yours"`
}

func (t *statusTool) Run(_ context.Context, raw json.RawMessage) tool.Result {
	var a statusArgs
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &a); err != nil {
			return tool.Errorf("invalid crew_status arguments: %v. Send {} or {\"to\": name-or-id}", err)
		}
	}
	var crew []*child
	if strings.TrimSpace(a.To) != "" {
		c, err := t.m.target(t.from, a.To)
		if err != nil {
			return tool.Errorf("%v", err)
		}
		crew = []*child{c}
	} else {
		crew = t.m.descendants(t.from.AgentID)
	}
	if len(crew) == 0 {
		return tool.Result{Content: "You have no subagents.", Summary: "no subagents"}
	}
	return tool.Result{Content: t.m.statusOf(crew, t.from.Depth), Summary: countStates(crew)}
}

// descendants lists every child under the agent parentID, in start order.
func (m *Manager) descendants(parentID string) []*child {
	m.mu.Lock()
	list := make([]*child, 0, len(m.order))
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
	return crew
}

// statusOf writes the status of each child, running ones first when the
// list must be cut.
func (m *Manager) statusOf(crew []*child, depth int) string {
	shown := crew
	if len(crew) > statusMaxChildren {
		shown = make([]*child, 0, statusMaxChildren)
		for _, c := range crew {
			if c.isRunning() && len(shown) < statusMaxChildren {
				shown = append(shown, c)
			}
		}
		for _, c := range crew {
			if !c.isRunning() && len(shown) < statusMaxChildren {
				shown = append(shown, c)
			}
		}
	}
	var b strings.Builder
	for i, c := range shown {
		entry := c.status(depth)
		if b.Len()+len(entry) > statusMaxBytes {
			fmt.Fprintf(&b, "… %d more not shown (ask with \"to\" for one)\n", len(shown)-i)
			break
		}
		b.WriteString(entry)
	}
	if len(crew) > len(shown) {
		fmt.Fprintf(&b, "… %d more finished or queued not shown (ask with \"to\" for one)\n", len(crew)-len(shown))
	}
	return strings.TrimRight(b.String(), "\n")
}

// status is one child's entry: a header line and indented details.
func (c *child) status(parentDepth int) string {
	c.mu.Lock()
	state, bg, paused, asking := c.state, c.background, c.paused, c.asking
	maxTurns, maxTokens, maxCost, timeout := c.maxTurns, c.maxTokens, c.maxCost, c.timeout
	a, model := c.a, c.model
	c.mu.Unlock()
	elapsed := c.workTime()
	act := c.act.view()
	indent := strings.Repeat("  ", max(0, c.src.Depth-parentDepth-1))
	var b strings.Builder
	fmt.Fprintf(&b, "%s- %s (id %s, type %s", indent, c.src.Name, c.src.AgentID, c.src.AgentType)
	if model != "" {
		fmt.Fprintf(&b, ", model %s", model)
	}
	fmt.Fprintf(&b, "): %s\n", shownState(state, bg, paused, asking))
	d := indent + "  "
	running := state == agent.StateRunning || state == agent.StateQueued
	if running {
		switch {
		case act.step != "":
			fmt.Fprintf(&b, "%snow: %s\n", d, act.step)
		case act.thinking:
			fmt.Fprintf(&b, "%snow: the model is answering\n", d)
		}
	}
	if act.last != "" {
		mark := "ok"
		if act.lastErr {
			mark = "failed"
		}
		fmt.Fprintf(&b, "%slast call: %s (%s, %s ago)\n", d, act.last, mark, roundAgo(time.Since(act.lastAt)))
	}
	fmt.Fprintf(&b, "%sturns %d of %d, %d tool calls", d, act.turns, maxTurns, c.calls.Load())
	if act.failed > 0 {
		fmt.Fprintf(&b, " (%d failed)", act.failed)
	}
	fmt.Fprintf(&b, ", elapsed %s", roundAgo(elapsed))
	if running && timeout > 0 {
		fmt.Fprintf(&b, " of %s", roundAgo(timeout))
	}
	b.WriteString("\n")
	if a != nil {
		u := a.Usage()
		fmt.Fprintf(&b, "%stokens %s in, %s out", d, agent.FormatTokens(u.InputTokens), agent.FormatTokens(u.OutputTokens))
		if maxTokens > 0 {
			fmt.Fprintf(&b, ", %s left of %s", agent.FormatTokens(max(0, maxTokens-u.Total())), agent.FormatTokens(maxTokens))
		}
		if maxCost > 0 {
			fmt.Fprintf(&b, ", cost $%.4f of $%.4f", a.Cost(), maxCost)
		}
		b.WriteString("\n")
	}
	if n := len(act.changed); n > 0 {
		files := act.changed
		if n > statusMaxFiles {
			files = files[:statusMaxFiles]
		}
		fmt.Fprintf(&b, "%sfiles changed (%d): %s", d, n, strings.Join(files, ", "))
		if n > statusMaxFiles {
			fmt.Fprintf(&b, ", +%d more", n-statusMaxFiles)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// shownState is a child's state in the words its pane uses.
func shownState(state string, bg, paused bool, asking string) string {
	running := state == agent.StateRunning || state == agent.StateQueued
	var s string
	switch {
	case running && paused:
		s = "paused"
	case running && asking != "":
		s = "waiting for the user's approval of " + asking
	case state == agent.StateCutShort:
		s = "cut short"
	default:
		s = state
	}
	if bg && running {
		s += ", in the background"
	}
	return s
}

// countStates is crew_status's one-line summary: "2 running, 1 paused",
// the states in the order of a child's life, whatever order the children
// started in.
func countStates(crew []*child) string {
	counts := map[string]int{}
	for _, c := range crew {
		c.mu.Lock()
		st := c.state
		if c.paused && (st == agent.StateRunning || st == agent.StateQueued) {
			st = agent.StatePaused
		}
		c.mu.Unlock()
		counts[st]++
	}
	var parts []string
	for _, st := range []string{agent.StateRunning, agent.StateQueued, agent.StatePaused, agent.StateDone,
		agent.StateFailed, agent.StateCutShort, agent.StateCancelled, agent.StateInterrupted} {
		if n := counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(st, "_", " ")))
		}
	}
	return strings.Join(parts, ", ")
}

// roundAgo writes a duration as a person reads it: 4s, 2m10s, 1h5m.
func roundAgo(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return strings.TrimSuffix(d.Round(time.Second).String(), "0s")
	default:
		return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
	}
}
