package ui

import "covey/agent"

// ToolBlock shows one tool call of the main agent.
type ToolBlock struct {
	start    agent.ToolStarted
	end      agent.ToolFinished
	finished bool
	expanded bool
}

// NewToolBlock returns the block of a tool call that just started.
func NewToolBlock(ev agent.ToolStarted) *ToolBlock { return &ToolBlock{start: ev} }

// Finish records the call's outcome.
func (b *ToolBlock) Finish(ev agent.ToolFinished) { b.end, b.finished = ev, true }

// CallID is the tool call's ID.
func (b *ToolBlock) CallID() string { return b.start.CallID }

// Name is the tool's name.
func (b *ToolBlock) Name() string { return b.start.Name }

// Running reports whether the call has not finished yet.
func (b *ToolBlock) Running() bool { return !b.finished }

// Lines implements Block.
func (b *ToolBlock) Lines(ctx RenderContext) []string {
	return []string{clipLine(b.start.Name+" "+b.start.KeyArg, ctx.Width)}
}

// Focusable implements Block.
func (b *ToolBlock) Focusable() bool { return true }

// Expanded implements Block.
func (b *ToolBlock) Expanded() bool { return b.expanded }

// SetExpanded implements Block.
func (b *ToolBlock) SetExpanded(v bool) { b.expanded = v }

// Live implements Block.
func (b *ToolBlock) Live() bool { return !b.finished }
