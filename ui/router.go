package ui

import (
	"fmt"
	"strings"
	"time"

	"covey/agent"
	"covey/ui/approval"
	"covey/ui/cells"
	"covey/ui/screens"
	"covey/ui/transcript"
)

// routeEffect is what one event means to the root model beyond the blocks.
type routeEffect struct {
	done bool // the main agent's run ended
	// retrying is set by a Retrying event of the main agent: the status
	// bar counts retryWait down, saying retryReason.
	retrying    bool
	retryReason string
	retryWait   time.Duration
	// background is set by a BackgroundResult to the main agent: the
	// engine calls the model again with it, a turn the UI did not start.
	background bool
	// interrupted is set when the run ended cancelled in the middle of an
	// answer, which the transcript now marks "interrupted".
	interrupted bool
}

// router sends each agent event to the block it belongs to: the main
// agent's text to the current assistant block, its tool calls to tool
// blocks, and everything of a child to that child's pane.
type router struct {
	t *transcript.Transcript

	assistant *transcript.AssistantBlock                              // the main agent's live answer, if any
	tools     map[string]*transcript.ToolBlock                        // main-agent tool calls by CallID
	children  map[string]*transcript.SubagentBlock                    // panes by AgentID
	order     []*transcript.SubagentBlock                             // panes in start order, for /cost
	depth     map[*transcript.SubagentBlock]int                       // nesting depth of each pane
	batches   map[string][]*transcript.SubagentBlock                  // panes by the task call that spawned them
	callOwner map[string]*transcript.SubagentBlock                    // child tool calls by CallID, for nested tasks
	parent    map[*transcript.SubagentBlock]*transcript.SubagentBlock // nil for the root's own children

	usage agent.Usage // the session's tokens, children included
	// fill is the root agent's last context report: the gauge.
	fill agent.ContextReported

	// root is the agent whose events are "the conversation": "" for the
	// main agent; a child's AgentID in that child's full-screen view,
	// where its own children become panes.
	root string
	// keepLog keeps every child event in log, so a child's full-screen
	// view can be built from its history when it is opened.
	keepLog bool
	log     []screens.Logged

	now       time.Time // the time of the batch being routed
	cost      CostFunc  // prices tokens; nil when no price table is set
	mainModel string    // the main agent's model, for its cost
	mainCost  float64   // what the main agent's own requests cost
	treeCache []*transcript.SubagentBlock
	// retryHint ends the notice of a failed run ("ctrl+r retries"), from
	// the KeyMap so a rebinding changes it; "" adds nothing.
	retryHint string
	// trailer is a block kept after the root's own blocks (a child view's
	// list of changed files): a live answer followed only by it goes on
	// in the same block.
	trailer transcript.Block
	// compacting is the divider of the root's compaction under way.
	compacting *transcript.CompactionBlock
	// asks are the recorded requests shown and not yet answered, by the
	// journal's ID (a resumed or replayed session).
	asks map[int64]*askedBlock
}

// CostFunc prices usage of a model in dollars; ok is false when the model
// has no price.
type CostFunc func(model string, u agent.Usage) (cost float64, ok bool)

func newRouter(t *transcript.Transcript) *router {
	r := &router{t: t}
	r.reset()
	return r
}

// isRoot reports whether src is the agent whose conversation this router
// draws as the transcript.
func (r *router) isRoot(src agent.Source) bool {
	if r.root == "" {
		return !src.IsChild()
	}
	return src.AgentID == r.root
}

// reset forgets every block and the session totals (/clear).
func (r *router) reset() {
	r.assistant = nil
	r.tools = map[string]*transcript.ToolBlock{}
	r.children = map[string]*transcript.SubagentBlock{}
	r.order = nil
	r.depth = map[*transcript.SubagentBlock]int{}
	r.batches = map[string][]*transcript.SubagentBlock{}
	r.callOwner = map[string]*transcript.SubagentBlock{}
	r.parent = map[*transcript.SubagentBlock]*transcript.SubagentBlock{}
	r.usage = agent.Usage{}
	r.log = nil
	r.mainCost = 0
	r.treeCache = nil
	r.compacting = nil
	r.asks = nil
}

// finishAssistant freezes the current answer so later text starts a new one.
func (r *router) finishAssistant() {
	if r.assistant != nil {
		r.assistant.Finish()
		r.assistant = nil
	}
}

// currentAssistant returns the live answer block, starting one after the
// last block when there is none.
func (r *router) currentAssistant() *transcript.AssistantBlock {
	if r.assistant == nil || r.lastOwn() != transcript.Block(r.assistant) {
		r.finishAssistant()
		r.assistant = transcript.NewAssistantBlock()
		r.t.Append(r.assistant)
	}
	return r.assistant
}

// lastOwn is the transcript's last block, not counting the trailer.
func (r *router) lastOwn() transcript.Block {
	last := r.t.Last()
	if last == nil || last != r.trailer {
		return last
	}
	if n := r.t.Len(); n >= 2 {
		return r.t.At(n - 2)
	}
	return nil
}

// route applies one event.
func (r *router) route(ev agent.Event) routeEffect {
	switch e := ev.(type) {
	case agent.ApprovalAsked:
		r.asked(e)
		return routeEffect{}
	case agent.ApprovalAnswered:
		r.answered(e)
		return routeEffect{}
	}
	if !r.isRoot(ev.From()) {
		if r.keepLog {
			r.log = append(r.log, screens.Logged{Event: ev, At: r.now})
		}
		r.routeChild(ev)
		return routeEffect{}
	}
	switch e := ev.(type) {
	case agent.BackgroundResult:
		r.finishAssistant()
		r.t.Append(transcript.NewNoticeBlock(transcript.NoticeInfo, backgroundNote(e)))
		return routeEffect{background: r.root == ""}
	case agent.ChildMessage:
		// In a child's own view, a message sent to it is a user turn.
		r.finishAssistant()
		r.t.Append(transcript.NewUserBlock(e.Text))
	case agent.UserMessage:
		// Only a replayed session carries the user's messages as events.
		r.finishAssistant()
		r.t.Append(transcript.NewUserBlock(e.Text))
	case agent.TextDelta:
		b := r.currentAssistant()
		b.AppendText(e.Text)
	case agent.ReasoningDelta:
		b := r.currentAssistant()
		b.AppendReasoning(e.Text)
	case agent.ToolStarted:
		r.finishAssistant()
		b := transcript.NewToolBlock(e)
		r.tools[e.CallID] = b
		r.t.Append(b)
	case agent.ToolFinished:
		if b, ok := r.tools[e.CallID]; ok {
			b.Finish(e)
		}
	case agent.ToolProgress:
		if b, ok := r.tools[e.CallID]; ok {
			b.SetProgress(e.Progress)
		}
	case agent.HookRan:
		r.finishAssistant()
		r.t.Append(hookNotice(e))
	case agent.MCPStatus:
		if n := mcpNotice(e); n != nil {
			r.finishAssistant()
			r.t.Append(n)
		}
	case agent.ContextReported:
		r.fill = e
	case agent.UsageReported:
		r.usage.Add(e.Usage)
		if r.cost != nil {
			if c, ok := r.cost(r.mainModel, e.Usage); ok {
				r.mainCost += c
			}
		}
	case agent.Retrying:
		reason := cells.OneLine(e.Reason)
		if reason == "" {
			reason = "request failed"
		}
		note := fmt.Sprintf("%s: retry %d in %s", reason, e.Attempt, transcript.WaitText(e.Wait))
		r.t.Append(transcript.NewNoticeBlock(transcript.NoticeWarning, note))
		return routeEffect{retrying: true, retryReason: reason, retryWait: e.Wait}
	case agent.ErrorEvent:
		r.finishAssistant()
		r.t.Append(transcript.NewNoticeBlock(transcript.NoticeError, r.withRetryHint(e.Message)))
	case agent.Notice:
		level := transcript.NoticeInfo
		if e.Level == agent.NoticeWarning {
			level = transcript.NoticeWarning
		}
		r.finishAssistant()
		r.t.Append(transcript.NewNoticeBlock(level, e.Message))
	case agent.Compacting:
		r.finishAssistant()
		r.compacting = transcript.NewCompactingBlock(e)
		r.t.Append(r.compacting)
	case agent.Compacted:
		if r.compacting != nil {
			r.compacting.Finish(e)
			r.compacting = nil
			break
		}
		r.finishAssistant()
		r.t.Append(transcript.NewCompactionBlock(e))
	case agent.Done:
		cut := e.Reason == agent.StopCancelled && r.assistant != nil && r.lastOwn() == transcript.Block(r.assistant) && r.assistant.Text() != ""
		r.finishAssistant()
		if cut {
			// Live and resumed alike, a cut answer does not pass for a
			// whole one.
			r.t.Append(transcript.NewNoticeBlock(transcript.NoticeWarning, interruptedMark(e)))
		}
		if r.compacting != nil {
			// A compaction that never ended (covey stopped while the
			// summary was written, in a replayed session).
			r.compacting.Finish(agent.Compacted{Source: e.Source, Error: "interrupted"})
			r.compacting = nil
		}
		if note := agent.CutOffNote(e.Reason); note != "" {
			// The answer stays; the notice says it is not the whole of it.
			r.t.Append(transcript.NewNoticeBlock(transcript.NoticeWarning, note))
		}
		return routeEffect{done: true, interrupted: cut}
	case agent.Collision:
		r.collision(e)
	case agent.ChildStarted, agent.ChildFinished:
		// A child event without a depth is malformed; ignore it rather
		// than guess where it belongs.
	}
	return routeEffect{}
}

// interruptedMark is what follows an answer cut by a cancel: "interrupted",
// or the reason covey gave when it stopped while the answer streamed.
func interruptedMark(e agent.Done) string {
	if strings.HasPrefix(e.Error, "interrupted:") {
		return e.Error
	}
	return "interrupted"
}

// collision marks a collision on the panes of both agents; when the
// writer is the agent this transcript belongs to, a notice says it here.
func (r *router) collision(e agent.Collision) {
	if b := r.children[e.AgentID]; b != nil {
		b.ApplyCollision(e, true)
		r.t.Touch(b)
	} else if r.isRoot(e.Source) {
		r.finishAssistant()
		r.t.Append(transcript.NewNoticeBlock(transcript.NoticeWarning, collisionNote(e)))
	}
	if b := r.children[e.WithID]; b != nil {
		b.ApplyCollision(e, false)
		r.t.Touch(b)
	}
}

// collisionNote is the notice of a collision whose writer has no pane.
func collisionNote(e agent.Collision) string {
	if e.Action == "declared" {
		return fmt.Sprintf("overlap: the paths declared overlap those of %s: %s", e.WithName, e.Path)
	}
	return fmt.Sprintf("collision: wrote %s, which %s %s %s ago", e.Path, e.WithName, e.Action, cells.Elapsed(e.Ago))
}

// withRetryHint ends the notice of a failed run with the retry key, in the
// main transcript only (a child's view has no retry).
func (r *router) withRetryHint(msg string) string {
	if r.retryHint != "" && r.root == "" {
		return msg + "; " + r.retryHint
	}
	return msg
}

// routeChild sends a child's event to its pane, creating the pane on
// ChildStarted right under the task call that spawned it.
func (r *router) routeChild(ev agent.Event) {
	src := ev.From()
	if e, ok := ev.(agent.ChildStarted); ok {
		if old, dup := r.children[src.AgentID]; dup {
			old.Observe(r.now)
			old.Apply(e) // a finished child resumed
			r.t.Touch(old)
			return
		}
		b := transcript.NewSubagentBlock(e)
		b.Observe(r.now)
		r.children[src.AgentID] = b
		r.order = append(r.order, b)
		r.depth[b] = src.Depth
		r.parent[b] = r.callOwner[src.ParentCallID]
		r.t.Insert(r.insertAt(src), b)
		r.batches[src.ParentCallID] = append(r.batches[src.ParentCallID], b)
		// Priced from the start, so a budget reads "$0.00/$0.50" as it
		// will later, not "budget $0.50" until the first usage.
		r.price(b)
		return
	}
	if e, ok := ev.(agent.Collision); ok {
		r.collision(e)
		return
	}
	b, ok := r.children[src.AgentID]
	if !ok {
		return // events of a child we never saw start (e.g. after /clear)
	}
	switch e := ev.(type) {
	case agent.ContextReported:
		b.SetContext(e.Tokens, e.Window)
		r.t.Touch(b)
		return
	case agent.ToolStarted:
		r.callOwner[e.CallID] = b
	case agent.UsageReported:
		r.usage.Add(e.Usage)
	case agent.WorktreeResult:
		r.worktreeNotice(b, e)
		return
	case agent.HookRan:
		r.t.Append(hookNotice(e))
		return
	}
	b.Observe(r.now)
	for p := r.parent[b]; p != nil; p = r.parent[p] {
		p.MarkActive(r.now)
	}
	b.Apply(ev)
	switch ev.(type) {
	case agent.UsageReported, agent.ChildFinished:
		r.price(b)
	}
	r.t.Touch(b)
}

// price sets a pane's cost from its usage, when its model has a price.
func (r *router) price(b *transcript.SubagentBlock) {
	if r.cost == nil {
		return
	}
	if c, ok := r.cost(b.Model(), b.Usage()); ok {
		b.SetCost(c)
	}
}

// backgroundNote is the line that says a background child's result came
// back to the main agent (and started the turn that follows).
func backgroundNote(e agent.BackgroundResult) string {
	name := cells.OneLine(e.Name)
	if name == "" {
		name = cells.OneLine(e.ChildID)
	}
	text := "background child " + name + " " + agent.EndVerb(e.Status) + ": its result goes to the main agent"
	if first := cells.OneLine(e.Text); strings.TrimSpace(first) != "" {
		text += "\n" + first
	}
	return text
}

// worktreeNotice says under a child's pane (and the record of its merge
// approval) what became of its worktree: a kept or conflicting change names
// its branch and folder, so it is never lost from sight.
func (r *router) worktreeNotice(pane *transcript.SubagentBlock, e agent.WorktreeResult) {
	level := transcript.NoticeInfo
	if e.Status == agent.WorktreeKept || e.Status == agent.WorktreeConflict {
		level = transcript.NoticeWarning
	}
	i := r.t.IndexOf(pane)
	if i < 0 {
		r.t.Append(transcript.NewNoticeBlock(level, e.Message))
		return
	}
	for i+1 < r.t.Len() {
		ab, ok := r.t.At(i + 1).(*approval.Block)
		if !ok || ab.Request().AgentID != e.AgentID {
			break
		}
		i++
	}
	r.t.Insert(i+1, transcript.NewNoticeBlock(level, e.Message))
}

// insertAt is where a new pane goes: after the earlier panes of its batch,
// else right after the task call (a main-agent tool block or, for a nested
// task, the pane of the child that made the call); then past any deeper
// panes that belong to the block it follows. Unknown parents go last.
func (r *router) insertAt(src agent.Source) int {
	var after transcript.Block
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
	for i+1 < r.t.Len() {
		next, ok := r.t.At(i + 1).(*transcript.SubagentBlock)
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

// tree lists every child depth first, each right under its parent, in
// start order among siblings. Parents never change and children are only
// added, so the list is rebuilt only when a child started.
func (r *router) tree() []*transcript.SubagentBlock {
	if r.treeCache != nil && len(r.treeCache) == len(r.order) {
		return r.treeCache
	}
	kids := make(map[*transcript.SubagentBlock][]*transcript.SubagentBlock, len(r.order))
	for _, b := range r.order {
		p := r.parent[b]
		kids[p] = append(kids[p], b)
	}
	out := make([]*transcript.SubagentBlock, 0, len(r.order))
	var walk func(p *transcript.SubagentBlock)
	walk = func(p *transcript.SubagentBlock) {
		for _, c := range kids[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(nil)
	r.treeCache = out
	return out
}

// find looks a child up by its name or AgentID, exactly, then ignoring
// case.
func (r *router) find(handle string) *transcript.SubagentBlock {
	handle = strings.TrimSpace(handle)
	if b, ok := r.children[handle]; ok {
		return b
	}
	for _, b := range r.order {
		if b.Name() == handle {
			return b
		}
	}
	for _, b := range r.order {
		if strings.EqualFold(b.Name(), handle) {
			return b
		}
	}
	return nil
}

// within reports whether b is anc or one of its descendants.
func (r *router) within(b, anc *transcript.SubagentBlock) bool {
	for ; b != nil; b = r.parent[b] {
		if b == anc {
			return true
		}
	}
	return false
}

// Route applies ev, which the UI got at now (screens.Router).
func (r *router) Route(ev agent.Event, now time.Time) {
	r.now = now
	r.route(ev)
}

// FinishAssistant ends the answer being streamed (screens.Router).
func (r *router) FinishAssistant() { r.finishAssistant() }

// Pane is agentID's pane, nil when r has none (screens.Router).
func (r *router) Pane(agentID string) *transcript.SubagentBlock { return r.children[agentID] }

// history is every logged event of the child b and its descendants, in
// order: what its full-screen view is built from.
func (r *router) history(b *transcript.SubagentBlock) []screens.Logged {
	var out []screens.Logged
	for _, le := range r.log {
		if p, ok := r.children[le.Event.From().AgentID]; ok && r.within(p, b) {
			out = append(out, le)
		}
	}
	return out
}
