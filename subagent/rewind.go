package subagent

import (
	"errors"
	"slices"
)

// errDropped ends a child a /rewind dropped.
var errDropped = errors.New("dropped by /rewind")

// Discard drops the outcomes of children ids: those waiting are taken
// out, and those still to come are never delivered.
func (in *Inbox) Discard(ids []string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.dropped == nil {
		in.dropped = map[string]bool{}
	}
	for _, id := range ids {
		in.dropped[id] = true
	}
	in.notices = slices.DeleteFunc(in.notices, func(n Notice) bool { return in.dropped[n.ChildID] })
	in.signalLocked()
}

// Children returns the AgentIDs of every child of the session, in the
// order they started.
func (m *Manager) Children() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.order)
}

// Drop stops the children ids (a /rewind went back before they started)
// and drops them from the crew: no outcome of theirs is ever delivered,
// and neither names nor IDs find them any more. Their worktrees, if any,
// are kept (covey worktrees lists them).
func (m *Manager) Drop(ids []string) {
	if len(ids) == 0 {
		return
	}
	m.mu.Lock()
	var stop []*child
	for _, in := range m.inboxes {
		in.Discard(ids)
	}
	for _, id := range ids {
		c, ok := m.children[id]
		if !ok {
			continue
		}
		stop = append(stop, c)
		delete(m.children, id)
		delete(m.names, c.src.Name)
	}
	m.order = slices.DeleteFunc(m.order, func(id string) bool { return slices.Contains(ids, id) })
	m.mu.Unlock()
	for _, c := range stop {
		if c.isRunning() {
			c.cancelRun(errDropped)
		}
	}
}
