package ui

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"covey/tools/toolname"
	"covey/ui/approval"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"

	"covey/permission"
)

// This file holds the root model's side of the approval flow: the queue of
// waiting requests, where each one is shown, what its keys ask of the root
// (the block matches them: approval.HandleKey), and the permission mode key.

// approvals is the queue of requests waiting for the user: the one shown
// and the ones behind it, first come first served.
type approvals struct {
	cur   *pendingApproval
	block *approval.Block
	pane  *transcript.SubagentBlock // the asking child's pane, marked as waiting
	queue []*pendingApproval
	// turns are requests waiting their turn in the policy, behind the
	// one shown: never shown, their children's panes say they wait.
	turns []*pendingApproval
	// queued are the panes of children whose requests wait in queue or
	// turns, marked so (markQueued).
	queued []*transcript.SubagentBlock
	// follow: the transcript followed its end when the first request
	// came. Showing a request scrolls it into view, which stops the
	// following when the request is above the end (under its child's
	// pane, or its tool call with later blocks below) or taller than the
	// transcript; the last answer gives the end back.
	follow bool
}

// enqueueApproval shows p, or queues it behind the one shown, and watches
// its context so a cancelled request leaves the screen.
func (m *Model) enqueueApproval(p *pendingApproval) tea.Cmd {
	if p.ctx.Err() != nil {
		p.drop()
		return nil
	}
	if p.turn {
		m.appr.turns = append(m.appr.turns, p)
		m.markQueued()
		return watchApproval(m.ctx, p)
	}
	if m.appr.cur == nil {
		m.appr.follow = m.tr.Following()
		m.showApproval(p, false)
	} else {
		m.appr.queue = append(m.appr.queue, p)
		m.appr.block.SetWaiting(len(m.appr.queue))
		m.markQueued()
	}
	return watchApproval(m.ctx, p)
}

// markQueued tells each child whose request waits behind the shown one
// how many requests are before it, so its pane says it waits rather than
// spinning; the panes of children no longer queued stop saying so.
func (m *Model) markQueued() {
	ahead := map[*transcript.SubagentBlock]int{}
	var panes []*transcript.SubagentBlock
	waiting := append(slices.Clip(m.appr.queue), m.appr.turns...)
	for i, p := range waiting {
		pane, ok := m.rt.children[p.req.AgentID]
		if !ok || p.req.AgentID == "" || pane == m.appr.pane || p.done || p.ctx.Err() != nil {
			continue
		}
		if _, seen := ahead[pane]; !seen {
			ahead[pane] = i + 1
			panes = append(panes, pane)
		}
	}
	for _, pane := range m.appr.queued {
		if _, still := ahead[pane]; !still {
			pane.SetApprovalQueued(0)
		}
	}
	for _, pane := range panes {
		pane.SetApprovalQueued(ahead[pane])
	}
	m.appr.queued = panes
}

// showApproval puts p's block where its tool call stands and gives it the
// keyboard, unless the user is typing a message: then a stray "y" of the
// draft could answer it, so the keyboard stays with the input until tab.
// hadFocus says the previous request had the keyboard.
func (m *Model) showApproval(p *pendingApproval, hadFocus bool) {
	b := newApprovalBlock(p.req)
	b.SetWaiting(len(m.appr.queue))
	m.appr.cur, m.appr.block = p, b
	if pane, ok := m.rt.children[p.req.AgentID]; ok && p.req.AgentID != "" {
		m.appr.pane = pane
		pane.SetWaitingFor(true, waitingFor(p.req))
	}
	m.tr.Insert(m.rt.approvalPosition(p.req), b)
	typing := m.focus != keys.FocusTranscript && m.input.Value() != ""
	if hadFocus || !typing {
		m.focusApproval()
	}
	m.startGrace()
	m.layout()
	m.tr.ScrollTo(b)
}

// sameTarget reports whether a call's key argument names req's path or
// command (the argument may be absolute or unclean where req's is not).
func sameTarget(req permission.Request, arg string) bool {
	if req.Tool == toolname.Bash {
		return cells.OneLine(arg) == cells.OneLine(req.Command)
	}
	if approval.CallRequest(req) {
		return req.Tool == toolname.WebFetch && arg == req.URL
	}
	if arg == "" || req.Path == "" {
		return false
	}
	a := path.Clean(filepath.ToSlash(arg))
	p := path.Clean(filepath.ToSlash(req.Path))
	return a == p || strings.HasSuffix(a, "/"+p)
}

// focusApproval gives the keyboard to the waiting request. It takes the
// keys only where it can be seen: a screen that cannot show it (the
// overview, /mcp, another child's view) gives way to the conversation,
// where it stands under its call or its child's pane, so a y meant for
// the screen never answers a request the user has not seen.
func (m *Model) focusApproval() {
	if m.appr.block == nil {
		return
	}
	for m.scr != nil && m.viewApproval() == nil {
		m.closeScreen()
	}
	m.focus = keys.FocusApproval
	m.appr.block.SetActive(true)
	m.tr.Blur()
	m.input.Blur()
}

// focusInputFromApproval lets the user type while the request waits.
// In a screen the screen takes them, unless a message to a child is being
// typed there.
func (m *Model) focusInputFromApproval() {
	if m.appr.block != nil {
		m.appr.block.SetActive(false)
	}
	m.focusBack()
}

// handleApprovalKey gives a key to the shown request, which owns its keys,
// and runs what it asks; handled is false for keys it leaves to the global
// bindings.
func (m *Model) handleApprovalKey(k tea.KeyMsg) (cmd tea.Cmd, handled bool) {
	b := m.appr.block
	if b == nil {
		m.focusBack()
		return nil, false
	}
	a, cmd, handled := b.HandleKey(k, m.keys)
	return tea.Batch(cmd, m.runApprovalAction(a)), handled
}

// runApprovalAction does what the shown request's key asked.
func (m *Model) runApprovalAction(a approval.Action) tea.Cmd {
	switch a := a.(type) {
	case approval.Allow:
		v := permission.Verdict{Allowed: true, Files: a.Files, Dropped: a.Dropped, Attempt: a.Attempt, Note: a.Note}
		m.answer(v, approval.OutcomeAllowed, a.Note)
	case approval.Deny:
		m.deny(a.Feedback)
	case approval.GrantSession:
		rules := m.perms.Grant(m.appr.block.Request())
		m.answer(permission.Verdict{Allowed: true, Granted: rules}, approval.OutcomeSession, strings.Join(rules, ", "))
	case approval.Keep:
		m.answer(permission.Verdict{Reason: "the user kept the change on its branch for later", Keep: true}, approval.OutcomeKept, "")
	case approval.Edit:
		return m.startEdit()
	case approval.ToInput:
		m.focusInputFromApproval()
	case approval.CancelTurn:
		// The request belongs to the running turn: cancelling the turn
		// withdraws it. With no turn of ours running, deny it instead.
		if m.turn != nil {
			m.cancelTurn()
		} else {
			m.deny("")
		}
	case approval.Say:
		m.say(a.Text)
	case approval.Answer:
		m.answer(permission.Verdict{Allowed: true, Answer: a.Text}, approval.OutcomeAllowed, a.Text)
	case approval.Decline:
		m.answer(permission.Verdict{Reason: permission.DeclinedAnswer}, approval.OutcomeDenied, "")
	case approval.ApprovePlan:
		if m.perms != nil {
			m.perms.SetMode(a.Mode)
			m.status.SetMode(string(a.Mode))
		}
		m.answer(permission.Verdict{Allowed: true, Mode: a.Mode}, approval.OutcomeAllowed, string(a.Mode))
	}
	return nil
}

// deny answers the shown request with a refusal carrying the user's
// feedback, if any, for the model to read.
func (m *Model) deny(feedback string) {
	reason := reasonDenied
	if feedback != "" {
		reason = reasonFeedback + feedback
	}
	m.answer(permission.Verdict{Reason: reason}, approval.OutcomeDenied, feedback)
}

// answer settles the shown request, leaves its record, and shows the next.
func (m *Model) answer(v permission.Verdict, o approval.Outcome, detail string) {
	p, b := m.appr.cur, m.appr.block
	if p == nil {
		return
	}
	p.settle(v)
	b.Resolve(o, detail)
	m.closeCurrent()
}

// closeCurrent forgets the shown request and shows the next one still
// waiting; with none left the keyboard goes back to the input.
func (m *Model) closeCurrent() {
	if m.appr.pane != nil {
		m.appr.pane.SetWaiting(false)
	}
	hadFocus := m.focus == keys.FocusApproval
	m.appr.cur, m.appr.block, m.appr.pane = nil, nil, nil
	for len(m.appr.queue) > 0 {
		p := m.appr.queue[0]
		m.appr.queue = m.appr.queue[1:]
		if p.done || p.ctx.Err() != nil {
			p.drop()
			continue
		}
		m.showApproval(p, hadFocus)
		m.markQueued()
		return
	}
	m.markQueued()
	if m.appr.follow {
		m.tr.Bottom()
		m.appr.follow = false
	}
	if hadFocus {
		m.focusBack()
	}
}

// approvalGone takes a request whose context ended off the screen.
func (m *Model) approvalGone(id int64) {
	if p := m.appr.cur; p != nil && p.id == id {
		p.drop()
		m.tr.Remove(m.appr.block)
		m.closeCurrent()
		return
	}
	for i, p := range m.appr.turns {
		if p.id == id {
			p.drop()
			m.appr.turns = slices.Delete(m.appr.turns, i, i+1)
			m.markQueued()
			return
		}
	}
	for i, p := range m.appr.queue {
		if p.id == id {
			p.drop()
			m.appr.queue = append(m.appr.queue[:i], m.appr.queue[i+1:]...)
			if m.appr.block != nil {
				m.appr.block.SetWaiting(len(m.appr.queue))
			}
			m.markQueued()
			return
		}
	}
}

// updateApproval handles the approval flow's own messages.
func (m *Model) updateApproval(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case approvalGoneMsg:
		m.approvalGone(msg.id)
	case editReadyMsg:
		return m.handleEditReady(msg)
	case editorExitedMsg:
		return readEdit(msg)
	case editResultMsg:
		m.handleEditResult(msg)
	}
	return nil
}

// cycleMode moves the permission mode to the next one (default,
// acceptEdits, plan, bypassPermissions, default…).
func (m *Model) cycleMode() {
	if m.perms == nil {
		return
	}
	mode := m.perms.CycleMode()
	m.status.SetMode(string(mode))
	if mode == permission.ModeBypass {
		// The one mode that asks nothing: said where the user looks.
		m.notice(transcript.NoticeWarning, "bypassPermissions: every tool call runs without asking (deny rules and the sandbox still apply); "+
			m.keys.CycleMode.Help().Key+" again leaves it")
	}
}

// waitingFor is what a child's pane says it waits for while req is shown:
// "" for an approval.
func waitingFor(req permission.Request) string {
	switch req.Tool {
	case permission.ToolAskUser:
		return "your answer"
	case permission.ToolExitPlanMode:
		return "plan approval"
	}
	return ""
}
