package sessionfile

import (
	"strings"

	"covey/agent"
	tools "covey/tools/tool" // the tool interface alone: no tool implementation is linked
)

// interruptedReason is the error of the Done and ChildFinished events that
// loading adds for runs the process did not finish.
const interruptedReason = "interrupted: covey stopped"

// resumedDetail is the Detail of the ChildState that starts a resumed run
// (subagent emits it).
const resumedDetail = agent.DetailResumed

// repair makes the loaded session whole: every tool call in the history
// gets a result, and every run, tool and child the replay started gets a
// finishing event. What it adds at the end is kept in l.fix for Open to
// write; a gap in the middle (never written by this package) is mended in
// memory on every load.
func (l *Loaded) repair() {
	var tail []agent.Message
	l.Messages, tail = l.repairHistory(l.Messages)
	cut := l.cutAnswer()
	if cut != nil && len(tail) == 0 {
		l.Messages = append(l.Messages, *cut)
	}
	n := len(l.Messages)
	l.Messages = alternate(l.Messages)
	l.placeholders = len(l.Messages) - n
	opened := l.openItems()

	// Finish in reverse order of starting, so a child's tools finish before
	// the child and the child before the task call that spawned it. The
	// main agent's Done comes last, after its tool results, as in a live
	// run.
	var mainDone []agent.Event
	for i := len(opened) - 1; i >= 0; i-- {
		it := opened[i]
		e := it.finish()
		if it.kind == itemRun && !it.src.IsChild() {
			mainDone = append(mainDone, e)
			continue
		}
		if it.kind == itemChild {
			l.fix = append(l.fix, Record{Event: openItem{kind: itemChildState, src: it.src}.finish()})
		}
		l.fix = append(l.fix, Record{Event: e})
	}
	for i := range tail {
		l.fix = append(l.fix, Record{Message: &tail[i]})
	}
	if cut != nil && len(tail) == 0 {
		l.fix = append(l.fix, Record{Message: cut})
	}
	for _, e := range mainDone {
		l.fix = append(l.fix, Record{Event: e})
	}
	l.Replay = append(l.Replay, l.fix...)
	for _, rec := range l.fix {
		if rec.Event != nil {
			l.noteChild(rec.Event)
		}
	}
	for i := range l.Children {
		c := &l.Children[i]
		if c.Reason == "" && len(c.Messages) > 0 {
			c.Interrupted = true // no finish was written, not even by repair
		}
		c.Messages, _ = l.repairHistory(c.Messages)
		c.Messages = alternate(c.Messages)
	}
	if len(tail) > 0 {
		l.warnf("%d tool call(s) had no result (covey stopped while they ran); marked interrupted", len(tail))
	}
}

// CutNote ends an answer the main agent was streaming when covey stopped,
// kept from its text events: the model sees what the user saw, and that
// it stops there.
const CutNote = "[covey: this answer was cut off here: covey stopped while it streamed]"

// cutAnswer is the answer the main agent was streaming when the writer
// died: its text events after the last message, with no Done or tool call
// after them, as an assistant message ending in CutNote. Nil when there
// is none.
func (l *Loaded) cutAnswer() *agent.Message {
	start := len(l.Replay)
	for start > 0 && l.Replay[start-1].Message == nil {
		start--
	}
	var text strings.Builder
	for _, rec := range l.Replay[start:] {
		if rec.Event.From().IsChild() {
			continue
		}
		switch e := rec.Event.(type) {
		case agent.Done, agent.ToolStarted, agent.ToolFinished:
			return nil
		case agent.TextDelta:
			text.WriteString(e.Text)
		}
	}
	body := strings.TrimRight(text.String(), " \n")
	if body == "" {
		return nil
	}
	return &agent.Message{Role: agent.RoleAssistant, Content: body + "\n\n" + CutNote}
}

// repairHistory answers every unanswered tool call with InterruptedResult,
// right after the results that exist, and drops tool results that answer no
// call (a provider rejects both). It returns the repaired history and the
// results it added at the very end.
func (l *Loaded) repairHistory(msgs []agent.Message) (out, tail []agent.Message) {
	out = make([]agent.Message, 0, len(msgs))
	for i := 0; i < len(msgs); {
		m := msgs[i]
		i++
		if m.Role == agent.RoleTool {
			l.warnf("dropped a result for tool call %q that answers no call", m.ToolCallID)
			continue
		}
		out = append(out, m)
		if m.Role != agent.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := make([]bool, len(m.ToolCalls))
		for ; i < len(msgs) && msgs[i].Role == agent.RoleTool; i++ {
			k := unanswered(m.ToolCalls, answered, msgs[i].ToolCallID)
			if k < 0 {
				l.warnf("dropped a result for tool call %q that answers no call", msgs[i].ToolCallID)
				continue
			}
			answered[k] = true
			out = append(out, msgs[i])
		}
		for k, c := range m.ToolCalls {
			if answered[k] {
				continue
			}
			text := InterruptedResult
			if i < len(msgs) && l.lostResults > 0 {
				// The conversation went on: the call finished, and its
				// result was in a damaged line.
				text = LostResult
			}
			fix := agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: text}
			out = append(out, fix)
			if i == len(msgs) {
				tail = append(tail, fix)
			}
		}
	}
	return out, tail
}

// unanswered returns the first call with id that has no result yet, or -1.
func unanswered(calls []agent.ToolCall, answered []bool, id string) int {
	for k, c := range calls {
		if !answered[k] && c.ID == id {
			return k
		}
	}
	return -1
}

// Kinds of things a replay can leave running.
const (
	itemRun = iota
	itemTool
	itemChild
	itemChildState // not open itself: the state event before an interrupted child's finish
)

// openItem is a run, tool call or child started but not finished.
type openItem struct {
	kind         int
	src          agent.Source
	callID, name string
	keyArg       string
}

// finish returns the event that ends it, marked interrupted.
func (it openItem) finish() agent.Event {
	switch it.kind {
	case itemTool:
		return agent.ToolFinished{Source: it.src, CallID: it.callID, Name: it.name, KeyArg: it.keyArg,
			Result: tools.Result{Content: InterruptedResult, IsError: true, Summary: "interrupted"}}
	case itemChild:
		return agent.ChildFinished{Source: it.src, Reason: agent.StopCancelled, Error: interruptedReason}
	case itemChildState:
		return agent.ChildState{Source: it.src, State: agent.StateInterrupted, Detail: "covey stopped while it ran"}
	}
	return agent.Done{Source: it.src, Reason: agent.StopCancelled, Error: interruptedReason}
}

// openItems walks the replay and returns, in starting order, what it left
// open. A run starts with a user message (the main agent) or an agent's
// first event, and ends with its Done.
func (l *Loaded) openItems() []openItem {
	var open []openItem
	find := func(kind int, agentID, callID string) int {
		for i, it := range open {
			if it.kind == kind && it.src.AgentID == agentID && it.callID == callID {
				return i
			}
		}
		return -1
	}
	remove := func(kind int, agentID, callID string) {
		if i := find(kind, agentID, callID); i >= 0 {
			open = append(open[:i], open[i+1:]...)
		}
	}
	startRun := func(src agent.Source) {
		if find(itemRun, src.AgentID, "") < 0 {
			open = append(open, openItem{kind: itemRun, src: src})
		}
	}
	for _, rec := range l.Replay {
		if rec.Message != nil {
			if rec.Message.Role == agent.RoleUser {
				startRun(agent.Source{AgentID: agent.MainAgentID})
			}
			continue
		}
		src := rec.Event.From()
		switch e := rec.Event.(type) {
		case agent.Done:
			remove(itemRun, src.AgentID, "")
		case agent.ChildStarted:
			open = append(open, openItem{kind: itemChild, src: src})
		case agent.ChildState:
			// A finished child resumed by a message is open again.
			if e.State == agent.StateRunning && find(itemChild, src.AgentID, "") < 0 && e.Detail == resumedDetail {
				open = append(open, openItem{kind: itemChild, src: src})
			}
		case agent.ChildFinished:
			remove(itemRun, src.AgentID, "")
			remove(itemChild, src.AgentID, "")
		case agent.ToolStarted:
			startRun(src)
			open = append(open, openItem{kind: itemTool, src: src, callID: e.CallID, name: e.Name, keyArg: e.KeyArg})
		case agent.ToolFinished:
			remove(itemTool, src.AgentID, e.CallID)
		case agent.ApprovalAsked, agent.ApprovalAnswered:
			// Journaled beside a call, or at start (a trust question):
			// they start no run.
		default:
			startRun(src)
		}
	}
	return open
}
