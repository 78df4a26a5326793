package ui

import (
	"encoding/json"

	"covey/agent"
	"covey/permission"
	"covey/ui/approval"
	"covey/ui/transcript"
)

// This file draws the questions a recorded session put to the user (the
// journal's ApprovalAsked and ApprovalAnswered, which only a resumed or
// replayed session carries): each request where it was shown live, its
// child's pane marked waiting until the answer, then the one-line record
// the answer left.

// askedBlock is a recorded request on screen, waiting for its answer.
type askedBlock struct {
	block *approval.Block
	pane  *transcript.SubagentBlock
}

// asked shows a recorded request where the live one stood.
func (r *router) asked(e agent.ApprovalAsked) {
	if r.root != "" {
		return // a child's view: the conversation shows it
	}
	var req permission.Request
	if len(e.Request) == 0 || json.Unmarshal(e.Request, &req) != nil {
		req = permission.Request{Tool: e.Tool, Command: e.Summary}
	}
	if e.IsChild() && req.AgentID == "" {
		req.AgentID = e.AgentID
	}
	r.finishAssistant()
	b := newApprovalBlock(req)
	b.SetNote("recorded: the user answers later in the session")
	b.SetRecorded()
	a := &askedBlock{block: b}
	if pane, ok := r.children[req.AgentID]; ok && req.AgentID != "" {
		a.pane = pane
		pane.SetWaitingFor(true, waitingFor(req))
		r.t.Touch(pane)
	}
	r.t.Insert(r.approvalPosition(req), b)
	if r.asks == nil {
		r.asks = map[int64]*askedBlock{}
	}
	r.asks[e.ID] = a
}

// answered resolves a recorded request as the user answered it; one
// withdrawn unanswered leaves the screen, as it did live.
func (r *router) answered(e agent.ApprovalAnswered) {
	a, ok := r.asks[e.ID]
	if !ok {
		return
	}
	delete(r.asks, e.ID)
	if a.pane != nil {
		a.pane.SetWaiting(false)
		r.t.Touch(a.pane)
	}
	switch e.Outcome {
	case agent.OutcomeCancelled:
		r.t.Remove(a.block)
	case agent.OutcomeSession:
		a.block.Resolve(approval.OutcomeSession, e.Detail)
	case agent.OutcomeEdited:
		a.block.Resolve(approval.OutcomeEdited, e.Detail)
	case agent.OutcomeKept:
		a.block.Resolve(approval.OutcomeKept, e.Detail)
	case agent.OutcomeDenied:
		a.block.Resolve(approval.OutcomeDenied, e.Detail)
	default:
		a.block.Resolve(approval.OutcomeAllowed, e.Detail)
	}
	r.t.Touch(a.block)
}

// dropAsks takes the recorded requests never answered (covey stopped
// first) off the screen.
func (r *router) dropAsks() {
	for id, a := range r.asks {
		if a.pane != nil {
			a.pane.SetWaiting(false)
		}
		r.t.Remove(a.block)
		delete(r.asks, id)
	}
}

// approvalPosition is where a request is shown: under its child's pane
// for a child (after the records of its earlier requests), else under the
// main agent's tool call that asks, else at the end.
func (r *router) approvalPosition(req permission.Request) int {
	var after transcript.Block
	if req.AgentID != "" {
		if pane, ok := r.children[req.AgentID]; ok {
			after = pane
		}
	} else {
		after = r.askingToolBlock(req)
	}
	i := r.t.IndexOf(after)
	if after == nil || i < 0 {
		return r.t.Len()
	}
	for i+1 < r.t.Len() {
		next, ok := r.t.At(i + 1).(*approval.Block)
		if !ok || next.Request().AgentID != req.AgentID {
			break
		}
		i++
	}
	return i + 1
}

// askingToolBlock finds the main agent's running call that asks: the
// newest running block of that tool with the same path or command, else the
// newest running block of that tool. One agent's writes run one at a time,
// so this is unambiguous where it matters.
func (r *router) askingToolBlock(req permission.Request) *transcript.ToolBlock {
	var fallback *transcript.ToolBlock
	for i := r.t.Len() - 1; i >= 0; i-- {
		tb, ok := r.t.At(i).(*transcript.ToolBlock)
		if !ok || !tb.Running() || tb.Name() != req.Tool {
			continue
		}
		if sameTarget(req, tb.KeyArg()) {
			return tb
		}
		if fallback == nil {
			fallback = tb
		}
	}
	return fallback
}
