package session

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"covey/agent"
	"covey/internal/excerpt"
	"covey/permission"
	"covey/tools/toolname"
)

// maxJournalDiff bounds each diff a journaled request keeps, and
// maxJournalText its plan: a request to write a huge file must not make
// the session file huge. A replay shows a cut diff as cut.
const (
	maxJournalDiff = 32 << 10
	maxJournalText = 32 << 10
)

// journalAsker writes every question put to the user, and its answer, to
// the session file (agent.ApprovalAsked, agent.ApprovalAnswered), so a
// replay shows them where they happened and the crew report draws the
// wait. They are journaled, not streamed: the live TUI shows the request
// itself.
type journalAsker struct {
	s    *Session
	next permission.Asker
	seq  atomic.Int64
}

// WaitingTurn implements permission.TurnWatcher: the asker behind shows
// the wait, when it can.
func (a *journalAsker) WaitingTurn(ctx context.Context, req permission.Request) func() {
	if w, ok := a.next.(permission.TurnWatcher); ok {
		return w.WaitingTurn(ctx, req)
	}
	return func() {}
}

// Ask implements permission.Asker.
func (a *journalAsker) Ask(ctx context.Context, req permission.Request) permission.Verdict {
	id := a.seq.Add(1)
	src := a.s.sourceOf(req.AgentID)
	a.s.journal(agent.ApprovalAsked{Source: src, ID: id, Tool: req.Tool, Question: permission.IsUserQuestion(req.Tool),
		Summary: requestSummary(req), Request: journalRequest(req)})
	v := a.next.Ask(ctx, req)
	outcome, detail := outcomeOf(v, ctx.Err() != nil)
	a.s.journal(agent.ApprovalAnswered{Source: src, ID: id, Tool: req.Tool, Allowed: v.Allowed, Outcome: outcome, Detail: excerpt.Cut(detail, 2000)})
	return v
}

// journal records e in the session file (and the debug log) without
// streaming it to the consumers.
func (s *Session) journal(e agent.Event) {
	s.log.Event(e)
	if s.rec != nil {
		s.rec.event(e)
	}
}

// childSources remembers each child's Source by AgentID, so a request,
// which names its child by ID alone, is journaled as the child's.
type childSources struct {
	mu  sync.Mutex
	src map[string]agent.Source
}

func (c *childSources) note(e agent.Event) {
	cs, ok := e.(agent.ChildStarted)
	if !ok {
		return
	}
	c.mu.Lock()
	if c.src == nil {
		c.src = map[string]agent.Source{}
	}
	c.src[cs.AgentID] = cs.Source
	c.mu.Unlock()
}

// sourceOf is the Source of the agent agentID names ("": the main agent).
func (s *Session) sourceOf(agentID string) agent.Source {
	if agentID == "" || agentID == agent.MainAgentID {
		return agent.Source{AgentID: agent.MainAgentID}
	}
	s.children.mu.Lock()
	defer s.children.mu.Unlock()
	if src, ok := s.children.src[agentID]; ok {
		return src
	}
	return agent.Source{AgentID: agentID, Depth: 1}
}

// requestSummary is a request in one line.
func requestSummary(req permission.Request) string {
	var s string
	switch {
	case req.Question != nil:
		s = req.Question.Question
	case req.Tool == toolname.ExitPlanMode:
		s = "plan: " + req.Plan
	case req.Command != "":
		s = req.Command
	case req.URL != "":
		s = req.URL
	case req.Path != "":
		s = req.Path
	case req.ServerTool != "":
		s = req.Server + " " + req.ServerTool
	}
	return excerpt.Cut(excerpt.Line(s), 200)
}

// journalRequest encodes req as the journal keeps it: without the whole
// new content of a write (its diff shows the change), diffs and plans
// bounded.
func journalRequest(req permission.Request) json.RawMessage {
	req.Content = ""
	if req.Change != nil {
		c := *req.Change
		c.Diff = cutText(c.Diff, maxJournalDiff)
		req.Change = &c
	}
	req.Changes = cutChanges(req.Changes)
	if len(req.Attempts) > 0 {
		atts := make([]permission.Attempt, len(req.Attempts))
		for i, at := range req.Attempts {
			at.Report = cutText(at.Report, maxJournalText)
			at.Changes = cutChanges(at.Changes)
			atts[i] = at
		}
		req.Attempts = atts
	}
	req.Plan = cutText(req.Plan, maxJournalText)
	b, err := json.Marshal(req)
	if err != nil {
		return nil
	}
	return b
}

func cutChanges(cs []permission.FileChange) []permission.FileChange {
	if len(cs) == 0 {
		return cs
	}
	out := make([]permission.FileChange, len(cs))
	for i, c := range cs {
		c.Diff = cutText(c.Diff, maxJournalDiff)
		out[i] = c
	}
	return out
}

// cutText cuts s to at most n bytes, at a line's end where it can, saying
// so.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
	}
	return cut + "… (cut in the session file)\n"
}

// deniedPrefix starts the reason of a denial the user gave a reason for
// (the TUI's approval flow).
const deniedPrefix = "the user denied this: "

// outcomeOf says how a request was answered, in the journal's words.
func outcomeOf(v permission.Verdict, ended bool) (outcome, detail string) {
	switch {
	case v.Allowed && v.Content != nil:
		return agent.OutcomeEdited, ""
	case v.Allowed && len(v.Granted) > 0:
		return agent.OutcomeSession, strings.Join(v.Granted, ", ")
	case v.Allowed:
		for _, d := range []string{v.Answer, v.Note, string(v.Mode)} {
			if d != "" {
				return agent.OutcomeAllowed, d
			}
		}
		return agent.OutcomeAllowed, ""
	case v.Keep:
		return agent.OutcomeKept, ""
	case ended:
		return agent.OutcomeCancelled, ""
	case strings.HasPrefix(v.Reason, deniedPrefix):
		return agent.OutcomeDenied, strings.TrimPrefix(v.Reason, deniedPrefix)
	}
	return agent.OutcomeDenied, ""
}
