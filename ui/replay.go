package ui

import (
	"covey/agent"
	"covey/tools/tool"
	"covey/ui/transcript"
)

// interruptedNote is what a call left running by a replayed session shows.
const interruptedNote = "interrupted: covey stopped before this call finished"

// replay draws a previous session's events before the program starts:
// they go through the router as live events would, then anything the
// session left running is closed, so nothing animates. The heights of the
// replayed blocks are left as estimates: the first frames measure what is
// on screen and prewarm what is near it; the rest is drawn when it scrolls
// near, instead of drawing a long session whole before the first frame.
func (m *Model) replay(events []agent.Event, note string) {
	if len(events) == 0 && note == "" {
		return
	}
	for _, ev := range events {
		m.rt.route(ev)
	}
	m.rt.closeAll()
	if note != "" {
		m.notice(transcript.NoticeInfo, note)
	}
	m.tr.Loaded()
}

// closeAll finishes every block still running: the answer, the main
// agent's tool calls and the children's panes (marked cancelled).
func (r *router) closeAll() {
	r.finishAssistant()
	r.dropAsks()
	for id, b := range r.tools {
		if b.Running() {
			b.Finish(agent.ToolFinished{Source: agent.Source{AgentID: agent.MainAgentID}, CallID: id, Name: b.Name(),
				Result: tool.Result{Content: interruptedNote, IsError: true, Summary: "interrupted"}})
		}
	}
	for _, b := range r.order {
		if b.Running() {
			b.Apply(agent.ChildFinished{Source: b.Source(), Reason: agent.StopCancelled})
		}
	}
}
