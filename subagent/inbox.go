package subagent

import (
	"fmt"
	"strings"
	"sync"

	"covey/agent"
)

// Notice is a background child's outcome on its way to its parent.
type Notice struct {
	ChildID, Name string
	// Status is the child's final state: done, failed, cut_short or
	// cancelled.
	Status string
	Text   string
	// Asked is the user's "@Type brief" when the user started the child
	// by name (the parent did not ask for it, so it is told who did).
	Asked string
}

// Event returns the BackgroundResult event announcing n as delivered to
// the agent whose events carry parent.
func (n Notice) Event(parent agent.Source) agent.BackgroundResult {
	return agent.BackgroundResult{Source: parent, ChildID: n.ChildID, Name: n.Name, Status: n.Status, Text: n.Text}
}

// NoticeText is the user-role message that delivers notices to a parent.
func NoticeText(ns []Notice) string {
	var b strings.Builder
	for i, n := range ns {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if n.Asked != "" {
			fmt.Fprintf(&b, "[background agent %q (id %s), which the user started with %q, %s]\n%s", n.Name, n.ChildID, n.Asked, agent.EndVerb(n.Status), n.Text)
			continue
		}
		fmt.Fprintf(&b, "[background agent %q (id %s) %s]\n%s", n.Name, n.ChildID, agent.EndVerb(n.Status), n.Text)
	}
	b.WriteString("\n\n[This message comes from covey, not the user. Use send_message to follow up with an agent that has ended; it resumes with its history.]")
	return b.String()
}

// Inbox collects the outcomes of one parent's background children and
// counts those still running. It is safe for concurrent use.
type Inbox struct {
	mu          sync.Mutex
	notices     []Notice
	outstanding int
	changed     chan struct{} // closed and replaced on every change
	// dropped are children a /rewind dropped: their outcomes are never
	// delivered (see Discard).
	dropped map[string]bool
}

func newInbox() *Inbox { return &Inbox{changed: make(chan struct{})} }

// Take removes and returns the notices waiting. Taking some is a change:
// a waiter that saw them waiting must look again, or it would wait for
// a turn that may already have run and ended.
func (in *Inbox) Take() []Notice {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := in.notices
	in.notices = nil
	if len(out) > 0 {
		in.signalLocked()
	}
	return out
}

// Outstanding returns how many background children of the parent run now.
func (in *Inbox) Outstanding() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.outstanding
}

// Idle reports whether no background child runs and no notice waits.
func (in *Inbox) Idle() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.outstanding == 0 && len(in.notices) == 0
}

// Changed returns a channel closed at the next change (a notice posted or
// taken, a child going to or leaving the background).
func (in *Inbox) Changed() <-chan struct{} {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.changed
}

func (in *Inbox) signalLocked() {
	close(in.changed)
	in.changed = make(chan struct{})
}

// add counts one more background child.
func (in *Inbox) add() {
	in.mu.Lock()
	in.outstanding++
	in.signalLocked()
	in.mu.Unlock()
}

// post delivers a background child's outcome and counts it done.
func (in *Inbox) post(n Notice) {
	in.mu.Lock()
	if !in.dropped[n.ChildID] {
		in.notices = append(in.notices, n)
	}
	if in.outstanding > 0 {
		in.outstanding--
	}
	in.signalLocked()
	in.mu.Unlock()
}

// forward counts one background child done here and delivers its outcome
// to another inbox (its parent had finished: an ancestor gets it).
func (in *Inbox) forward(to *Inbox, n Notice) {
	in.mu.Lock()
	if in.outstanding > 0 {
		in.outstanding--
	}
	in.signalLocked()
	in.mu.Unlock()
	to.deliver(n)
}

// deliver adds outcomes that were counted elsewhere.
func (in *Inbox) deliver(ns ...Notice) {
	in.mu.Lock()
	for _, n := range ns {
		if !in.dropped[n.ChildID] {
			in.notices = append(in.notices, n)
		}
	}
	in.signalLocked()
	in.mu.Unlock()
}
