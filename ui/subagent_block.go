package ui

import "covey/agent"

// SubagentBlock is the live pane of one child agent.
type SubagentBlock struct {
	src      agent.Source
	usage    agent.Usage
	finished bool
	expanded bool
	waiting  bool
}

// NewSubagentBlock returns the pane of a child that just started.
func NewSubagentBlock(ev agent.ChildStarted) *SubagentBlock { return &SubagentBlock{src: ev.Source} }

// Apply updates the pane with one event of its child.
func (b *SubagentBlock) Apply(ev agent.Event) {
	switch e := ev.(type) {
	case agent.UsageReported:
		b.usage.Add(e.Usage)
	case agent.ChildFinished:
		b.finished = true
	}
}

// SetWaiting marks the child as waiting for the user's approval.
func (b *SubagentBlock) SetWaiting(v bool) { b.waiting = v }

// AgentID is the child's agent ID.
func (b *SubagentBlock) AgentID() string { return b.src.AgentID }

// ParentCallID is the task call that spawned the child.
func (b *SubagentBlock) ParentCallID() string { return b.src.ParentCallID }

// Running reports whether the child has not finished.
func (b *SubagentBlock) Running() bool { return !b.finished }

// Usage is the child's token usage so far.
func (b *SubagentBlock) Usage() agent.Usage { return b.usage }

// Type is the child's agent type.
func (b *SubagentBlock) Type() string { return b.src.AgentType }

// Description is the child's task description.
func (b *SubagentBlock) Description() string { return b.src.Description }

// Lines implements Block.
func (b *SubagentBlock) Lines(ctx RenderContext) []string {
	return []string{clipLine("["+b.src.AgentType+"] "+b.src.Description, ctx.Width)}
}

// Focusable implements Block.
func (b *SubagentBlock) Focusable() bool { return true }

// Expanded implements Block.
func (b *SubagentBlock) Expanded() bool { return b.expanded }

// SetExpanded implements Block.
func (b *SubagentBlock) SetExpanded(v bool) { b.expanded = v }

// Live implements Block.
func (b *SubagentBlock) Live() bool { return !b.finished }
