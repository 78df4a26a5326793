package ui

import (
	"fmt"
	"time"

	"covey/agent"
)

// routeEffect is what one event means to the root model beyond the blocks.
type routeEffect struct {
	done bool // the main agent's run ended
	// retrying is set by a Retrying event of the main agent: the status
	// bar counts retryWait down, saying retryReason.
	retrying    bool
	retryReason string
	retryWait   time.Duration
}

// router sends each agent event to the block it belongs to: the main
// agent's text to the current assistant block, its tool calls to tool
// blocks, and everything of a child to that child's pane.
type router struct {
	t *transcript

	assistant *AssistantBlock             // the main agent's live answer, if any
	tools     map[string]*ToolBlock       // main-agent tool calls by CallID
	children  map[string]*SubagentBlock   // panes by AgentID
	order     []*SubagentBlock            // panes in start order, for /cost
	depth     map[*SubagentBlock]int      // nesting depth of each pane
	batches   map[string][]*SubagentBlock // panes by the task call that spawned them
	callOwner map[string]*SubagentBlock   // child tool calls by CallID, for nested tasks

	usage agent.Usage // the session's tokens, children included
}

func newRouter(t *transcript) *router {
	r := &router{t: t}
	r.reset()
	return r
}

// reset forgets every block and the session totals (/clear).
func (r *router) reset() {
	r.assistant = nil
	r.tools = map[string]*ToolBlock{}
	r.children = map[string]*SubagentBlock{}
	r.order = nil
	r.depth = map[*SubagentBlock]int{}
	r.batches = map[string][]*SubagentBlock{}
	r.callOwner = map[string]*SubagentBlock{}
	r.usage = agent.Usage{}
}

// finishAssistant freezes the current answer so later text starts a new one.
func (r *router) finishAssistant() {
	if r.assistant != nil {
		r.assistant.Finish()
		r.t.Touch(r.assistant)
		r.assistant = nil
	}
}

// currentAssistant returns the live answer block, starting one after the
// last block when there is none.
func (r *router) currentAssistant() *AssistantBlock {
	if r.assistant == nil || r.t.Last() != Block(r.assistant) {
		r.finishAssistant()
		r.assistant = NewAssistantBlock()
		r.t.Append(r.assistant)
	}
	return r.assistant
}

// route applies one event.
func (r *router) route(ev agent.Event) routeEffect {
	if ev.From().IsChild() {
		r.routeChild(ev)
		return routeEffect{}
	}
	switch e := ev.(type) {
	case agent.UserMessage:
		// Only a replayed session carries the user's messages as events.
		r.finishAssistant()
		r.t.Append(NewUserBlock(e.Text))
	case agent.TextDelta:
		b := r.currentAssistant()
		b.AppendText(e.Text)
		r.t.Touch(b)
	case agent.ReasoningDelta:
		b := r.currentAssistant()
		b.AppendReasoning(e.Text)
		r.t.Touch(b)
	case agent.ToolStarted:
		r.finishAssistant()
		b := NewToolBlock(e)
		r.tools[e.CallID] = b
		r.t.Append(b)
	case agent.ToolFinished:
		if b, ok := r.tools[e.CallID]; ok {
			b.Finish(e)
			r.t.Touch(b)
		}
	case agent.UsageReported:
		r.usage.Add(e.Usage)
	case agent.Retrying:
		reason := oneLine(e.Reason)
		if reason == "" {
			reason = "request failed"
		}
		note := fmt.Sprintf("%s: retry %d in %s", reason, e.Attempt, waitText(e.Wait))
		r.t.Append(NewNoticeBlock(NoticeWarning, note))
		return routeEffect{retrying: true, retryReason: reason, retryWait: e.Wait}
	case agent.ErrorEvent:
		r.finishAssistant()
		r.t.Append(NewNoticeBlock(NoticeError, e.Message))
	case agent.Done:
		r.finishAssistant()
		return routeEffect{done: true}
	case agent.ChildStarted, agent.ChildFinished:
		// A child event without a depth is malformed; ignore it rather
		// than guess where it belongs.
	}
	return routeEffect{}
}

// routeChild sends a child's event to its pane, creating the pane on
// ChildStarted right under the task call that spawned it.
func (r *router) routeChild(ev agent.Event) {
	src := ev.From()
	if e, ok := ev.(agent.ChildStarted); ok {
		if _, dup := r.children[src.AgentID]; dup {
			return
		}
		b := NewSubagentBlock(e)
		r.children[src.AgentID] = b
		r.order = append(r.order, b)
		r.depth[b] = src.Depth
		r.t.Insert(r.insertAt(src), b)
		r.batches[src.ParentCallID] = append(r.batches[src.ParentCallID], b)
		return
	}
	b, ok := r.children[src.AgentID]
	if !ok {
		return // events of a child we never saw start (e.g. after /clear)
	}
	switch e := ev.(type) {
	case agent.ToolStarted:
		r.callOwner[e.CallID] = b
	case agent.UsageReported:
		r.usage.Add(e.Usage)
	}
	b.Apply(ev)
	r.t.Touch(b)
}

// insertAt is where a new pane goes: after the earlier panes of its batch,
// else right after the task call (a main-agent tool block or, for a nested
// task, the pane of the child that made the call); then past any deeper
// panes that belong to the block it follows. Unknown parents go last.
func (r *router) insertAt(src agent.Source) int {
	var after Block
	if sibs := r.batches[src.ParentCallID]; len(sibs) > 0 {
		after = sibs[len(sibs)-1]
	} else if tb, ok := r.tools[src.ParentCallID]; ok {
		after = tb
	} else if owner, ok := r.callOwner[src.ParentCallID]; ok {
		after = owner
	}
	i := r.t.IndexOf(after)
	if after == nil || i < 0 {
		return r.t.Len()
	}
	blocks := r.t.entries
	for i+1 < len(blocks) {
		next, ok := blocks[i+1].b.(*SubagentBlock)
		if !ok || r.depth[next] <= src.Depth {
			break
		}
		i++
	}
	return i + 1
}

// childUsage is one row of /cost.
type childUsage struct {
	Type, Description string
	Usage             agent.Usage
	Running           bool
}

// costs lists every child's tokens in start order.
func (r *router) costs() []childUsage {
	out := make([]childUsage, 0, len(r.order))
	for _, b := range r.order {
		out = append(out, childUsage{Type: b.Type(), Description: b.Description(), Usage: b.Usage(), Running: b.Running()})
	}
	return out
}

// runningChildren counts the panes still running, so a cancel can say how
// many children it reaches.
func (r *router) runningChildren() int {
	n := 0
	for _, b := range r.order {
		if b.Running() {
			n++
		}
	}
	return n
}
