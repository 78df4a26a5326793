package ui

import (
	"path"
	"path/filepath"
	"strings"

	"covey/tools/toolname"
	"covey/ui/approval"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/permission"
)

// This file holds the root model's side of the approval flow: the queue of
// waiting requests, where each one is shown, the keys that answer it, and
// the permission mode key.

// approvals is the queue of requests waiting for the user: the one shown
// and the ones behind it, first come first served.
type approvals struct {
	cur   *pendingApproval
	block *approval.Block
	pane  *transcript.SubagentBlock // the asking child's pane, marked as waiting
	queue []*pendingApproval
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
	if m.appr.cur == nil {
		m.appr.follow = m.tr.Following()
		m.showApproval(p, false)
	} else {
		m.appr.queue = append(m.appr.queue, p)
		m.appr.block.SetWaiting(len(m.appr.queue))
	}
	return watchApproval(m.ctx, p)
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
		pane.SetWaiting(true)
	}
	m.tr.Insert(m.approvalPosition(p.req), b)
	typing := m.focus != keys.FocusTranscript && m.input.Value() != ""
	if hadFocus || !typing {
		m.focusApproval()
	}
	m.startGrace()
	m.layout()
	m.tr.ScrollTo(b)
}

// approvalPosition is where a request is shown: under its child's pane
// for a child (after the records of its earlier requests), else under the
// main agent's tool call that asks, else at the end.
func (m *Model) approvalPosition(req permission.Request) int {
	var after transcript.Block
	if req.AgentID != "" {
		if pane, ok := m.rt.children[req.AgentID]; ok {
			after = pane
		}
	} else {
		after = m.askingToolBlock(req)
	}
	i := m.tr.IndexOf(after)
	if after == nil || i < 0 {
		return m.tr.Len()
	}
	for i+1 < m.tr.Len() {
		next, ok := m.tr.At(i + 1).(*approval.Block)
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
func (m *Model) askingToolBlock(req permission.Request) *transcript.ToolBlock {
	var fallback *transcript.ToolBlock
	for i := m.tr.Len() - 1; i >= 0; i-- {
		tb, ok := m.tr.At(i).(*transcript.ToolBlock)
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

// handleApprovalKey answers or scrolls the shown request; handled is false
// for keys it leaves to the global bindings.
func (m *Model) handleApprovalKey(k tea.KeyMsg) (cmd tea.Cmd, handled bool) {
	b := m.appr.block
	if b == nil {
		m.focusBack()
		return nil, false
	}
	if b.FeedbackOpen() {
		switch {
		case key.Matches(k, m.keys.FeedbackSend) && b.Trimmed():
			m.allowChosen(b.Feedback())
		case key.Matches(k, m.keys.FeedbackSend):
			m.deny(b.Feedback())
		case key.Matches(k, m.keys.FeedbackBack):
			b.StopFeedback()
		default:
			_, cmd = b.Update(k)
		}
		return cmd, true
	}
	switch {
	case key.Matches(k, m.keys.ApproveYes):
		m.allowChosen("")
	case key.Matches(k, m.keys.ApproveSession):
		rules := m.perms.Grant(b.Request())
		m.answer(permission.Verdict{Allowed: true}, approval.OutcomeSession, strings.Join(rules, ", "))
	case key.Matches(k, m.keys.ApproveNo):
		m.deny("")
	case key.Matches(k, m.keys.ApproveFeedback):
		cmd = b.StartFeedback()
	case key.Matches(k, m.keys.ApproveHunkToggle):
		b.ToggleHunk()
	case key.Matches(k, m.keys.ApproveHunkNext):
		b.MoveHunk(1)
	case key.Matches(k, m.keys.ApproveHunkPrev):
		b.MoveHunk(-1)
	case key.Matches(k, m.keys.ApproveAttemptNext):
		b.MoveAttempt(1)
	case key.Matches(k, m.keys.ApproveAttemptPrev):
		b.MoveAttempt(-1)
	case key.Matches(k, m.keys.ApproveEdit):
		cmd = m.startEdit()
	case key.Matches(k, m.keys.ApproveLayout):
		b.ToggleLayout()
	case matchesAny(k, m.keys.ApproveLayout) && b.OneSided():
		// Not ignored in silence: the word says why.
		m.say("a new or deleted file is shown unified: no side by side")
	case key.Matches(k, m.keys.ApproveKeep):
		m.answer(permission.Verdict{Reason: "the user kept the change on its branch for later", Keep: true}, approval.OutcomeKept, "")
	case key.Matches(k, m.keys.ApproveFileToggle):
		b.ToggleFile()
	case key.Matches(k, m.keys.ApproveFileNext):
		b.MoveFile(1)
	case key.Matches(k, m.keys.ApproveFilePrev):
		b.MoveFile(-1)
	case key.Matches(k, m.keys.ApproveUp):
		b.ScrollBy(-1)
	case key.Matches(k, m.keys.ApproveDown):
		b.ScrollBy(1)
	case key.Matches(k, m.keys.ApprovePageUp):
		b.PageBy(-1)
	case key.Matches(k, m.keys.ApprovePageDown):
		b.PageBy(1)
	case key.Matches(k, m.keys.ApproveLeft):
		b.ShiftBy(-1)
	case key.Matches(k, m.keys.ApproveRight):
		b.ShiftBy(1)
	case key.Matches(k, m.keys.ApproveToInput):
		m.focusInputFromApproval()
	case key.Matches(k, m.keys.Cancel):
		// The request belongs to the running turn: cancelling the turn
		// withdraws it. With no turn of ours running, deny it instead.
		if m.turn != nil {
			m.cancelTurn()
		} else {
			m.deny("")
		}
	default:
		return nil, false
	}
	return cmd, true
}

// allowChosen allows what the shown request's block has chosen: the
// whole change, or the files and hunks taken (with the user's note for
// the model); taking nothing is a denial. For a best-of-N review it
// applies the attempt shown.
func (m *Model) allowChosen(note string) {
	b := m.appr.block
	files := b.ChosenFiles()
	if (files != nil && len(files) == 0) || b.AllDropped() {
		m.deny(note)
		return
	}
	v := permission.Verdict{Allowed: true, Files: files, Dropped: b.DroppedHunks(), Note: note}
	if b.IsPick() {
		v.Attempt = b.Attempt()
	}
	m.answer(v, approval.OutcomeAllowed, note)
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
		return
	}
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
	for i, p := range m.appr.queue {
		if p.id == id {
			p.drop()
			m.appr.queue = append(m.appr.queue[:i], m.appr.queue[i+1:]...)
			if m.appr.block != nil {
				m.appr.block.SetWaiting(len(m.appr.queue))
			}
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
	m.status.SetMode(string(m.perms.CycleMode()))
}
