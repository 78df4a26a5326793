package ui

import (
	"strconv"

	"covey/ui/transcript"
)

// This file says who waits on a paused child: a parent whose foreground
// child is paused is not working, and its spinner must not say it is.

// pausedWaits maps each parent (nil for the root agent) to the names of
// its foreground children that are paused, in start order.
func (r *router) pausedWaits() map[*transcript.SubagentBlock][]string {
	var out map[*transcript.SubagentBlock][]string
	for _, b := range r.order {
		if !b.Paused() || b.Background() {
			continue
		}
		if out == nil {
			out = map[*transcript.SubagentBlock][]string{}
		}
		p := r.parent[b]
		out[p] = append(out[p], b.Name())
	}
	return out
}

// pausedWaitText is "waiting on paused scout", or "waiting on 2 paused
// subagents"; "" for none.
func pausedWaitText(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "waiting on paused " + names[0]
	}
	return "waiting on " + strconv.Itoa(len(names)) + " paused subagents"
}

// markPausedWaits tells the status bar and every pane which paused
// children they wait on.
func (m *Model) markPausedWaits() {
	waits := m.rt.pausedWaits()
	m.status.SetWaitingOn(pausedWaitText(waits[nil]))
	for _, b := range m.rt.order {
		b.SetWaitingOn(pausedWaitText(waits[b]))
	}
	if cv := m.shownChild(); cv != nil {
		cv.MarkPausedWaits()
	}
}

// MarkPausedWaits tells r's panes which paused children they wait on (a
// child's view's router: screens.Router).
func (r *router) MarkPausedWaits() {
	waits := r.pausedWaits()
	for _, b := range r.order {
		b.SetWaitingOn(pausedWaitText(waits[b]))
	}
}
