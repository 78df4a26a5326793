package transcript

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"covey/agent"
	"covey/ui/cells"
)

// This file holds what a pane knows of its child beyond its activity: the
// crew controls' state (queued, paused, in the background), its budget and
// cost, the files it changed, and when it last did anything.

// StallAfter is how long a running child may go without an event before
// the crew overview calls it stalled.
const StallAfter = 30 * time.Second

// paneCrew is a child's crew state, kept by its SubagentBlock.
type paneCrew struct {
	queued, paused, background bool
	interrupted                bool // covey stopped while it ran
	detail                     string

	maxTokens int
	maxCost   float64
	cost      float64
	costKnown bool

	files changeSet

	now  time.Time     // the time of the event being applied (see Observe)
	last time.Time     // the child's last event
	base time.Duration // working time before the current running stretch

	// pausedFor is the time spent paused before the current pause, and
	// pausedAt when the current one began: a child's clock shows working
	// time and paused time apart ("1.8s + 1m00s paused").
	pausedFor time.Duration
	pausedAt  time.Time

	// waitingOn says the child waits on a paused child of its own
	// ("waiting on paused scout"); set by the root model each frame.
	waitingOn string

	// sent is the messages the user sent with the message key that the
	// child has not read yet, oldest first (see markSent).
	sent []sentMessage
}

// sentMessage is a message sent to the child, shown queued until it
// enters the child's history.
type sentMessage struct {
	text string
}

// label is the state word the header shows before its stats.
func (c *paneCrew) label(running bool) string {
	switch {
	case !running:
		return ""
	case c.queued && c.background:
		return "queued · background"
	case c.queued:
		return "queued"
	case c.paused && c.background:
		return "paused · background"
	case c.paused:
		return "paused"
	case c.background:
		return "background"
	}
	return ""
}

// Observe tells the pane the time of the event it is about to get: it
// marks the child's last activity and dates state changes.
func (b *SubagentBlock) Observe(now time.Time) {
	if now.IsZero() {
		return
	}
	b.crew.now, b.crew.last = now, now
	if b.started.IsZero() {
		b.started = now
	}
}

// MarkActive records activity at now on the child's behalf: a child of
// its own did something, so it is waiting on work that moves, not stalled.
func (b *SubagentBlock) MarkActive(now time.Time) {
	if !now.IsZero() {
		b.crew.last = now
	}
}

// eventTime is the time of the event being applied.
func (b *SubagentBlock) eventTime() time.Time {
	if !b.crew.now.IsZero() {
		return b.crew.now
	}
	return b.lastNow
}

// runningElapsed is the working time at now of a child that runs.
func (b *SubagentBlock) runningElapsed(now time.Time) time.Duration {
	if b.crew.paused || b.crew.queued || b.started.IsZero() || now.IsZero() {
		return b.crew.base
	}
	return b.crew.base + max(now.Sub(b.started), 0)
}

// ElapsedAt is the child's working time shown at now: frozen while paused
// or queued and once it finished.
func (b *SubagentBlock) ElapsedAt(now time.Time) time.Duration {
	if b.state != childRunning {
		return b.elapsed
	}
	return b.runningElapsed(now)
}

// applyCrew applies the crew events (ChildState, ChildMessage, ChildFiles)
// and a repeated ChildStarted (a finished child resumed); it reports
// whether ev was one of them. They apply to finished panes too: a message
// to a finished child resumes it.
func (b *SubagentBlock) applyCrew(ev agent.Event) bool {
	switch e := ev.(type) {
	case agent.ChildState:
		b.applyState(e)
	case agent.ChildMessage:
		b.messageRead(e.Text)
	case agent.ChildFiles:
		b.crew.files.addStatus(e.Files)
	case agent.ChildStarted:
		if b.state != childRunning {
			b.revive(0, "resumed")
		}
		b.crew.background = e.Background
		if e.MaxTokens > 0 || e.MaxCost > 0 {
			b.crew.maxTokens, b.crew.maxCost = e.MaxTokens, e.MaxCost
		}
	default:
		return false
	}
	return true
}

// applyState follows the child's state changes.
func (b *SubagentBlock) applyState(e agent.ChildState) {
	now := b.eventTime()
	b.crew.detail = cells.OneLine(e.Detail)
	b.crew.background = e.Background
	switch e.State {
	case agent.StateQueued:
		if b.state == childRunning {
			b.crew.queued = true
		}
	case agent.StateRunning:
		if b.state != childRunning {
			note := "resumed"
			if b.crew.detail != "" {
				note = b.crew.detail
			}
			b.revive(e.Elapsed, note)
			return
		}
		if e.Elapsed > 0 {
			b.crew.base = e.Elapsed
		} else if !b.crew.paused && !b.crew.queued {
			b.crew.base = b.runningElapsed(now)
		}
		b.endPause(now)
		b.crew.paused, b.crew.queued = false, false
		b.started = now
	case agent.StatePaused:
		if b.state != childRunning || b.crew.paused {
			return
		}
		if e.Elapsed > 0 {
			b.crew.base = e.Elapsed
		} else {
			b.crew.base = b.runningElapsed(now)
		}
		b.crew.paused, b.crew.queued = true, false
		b.crew.pausedAt = now
	case agent.StateInterrupted:
		if b.state == childRunning {
			b.crew.interrupted = true
			b.finish(agent.ChildFinished{Source: b.src, Reason: agent.StopCancelled, Elapsed: e.Elapsed})
			if last := b.acts.last(); last != nil && last.kind == actNote && last.text == "cancelled" {
				last.text = "interrupted: covey stopped while it ran"
			}
		}
	}
	// The final states come with ChildFinished, which says more.
}

// endPause adds the current pause, if any, to the time paused.
func (b *SubagentBlock) endPause(now time.Time) {
	if !b.crew.paused || b.crew.pausedAt.IsZero() {
		return
	}
	if !now.IsZero() {
		b.crew.pausedFor += max(now.Sub(b.crew.pausedAt), 0)
	}
	b.crew.pausedAt = time.Time{}
}

// pausedAtTime is the child's time spent paused, up to now.
func (b *SubagentBlock) pausedAtTime(now time.Time) time.Duration {
	d := b.crew.pausedFor
	if b.state == childRunning && b.crew.paused && !b.crew.pausedAt.IsZero() && !now.IsZero() {
		d += max(now.Sub(b.crew.pausedAt), 0)
	}
	return d
}

// ClockText is the child's working time, and its time paused after it
// when it was paused for a second or more: "1.8s + 1m00s paused".
func (b *SubagentBlock) ClockText(now time.Time) string {
	t := cells.Elapsed(b.ElapsedAt(now))
	if p := b.pausedAtTime(now); p >= time.Second {
		t += " + " + cells.Elapsed(p.Truncate(time.Second)) + " paused"
	}
	return t
}

// ShortClockText is ClockText for a table cell: "1.8s ‖1m00s", the time
// paused after the pause glyph.
func (b *SubagentBlock) ShortClockText(now time.Time) string {
	t := cells.Elapsed(b.ElapsedAt(now))
	if p := b.pausedAtTime(now); p >= time.Second {
		t += " " + cells.GlyphPaused + cells.Elapsed(p.Truncate(time.Second))
	}
	return t
}

// MarkSent shows text, just sent to the child with the message key, as
// queued under its pane's activity until the child reads it (its
// ChildMessage).
func (b *SubagentBlock) MarkSent(text string) {
	b.crew.sent = append(b.crew.sent, sentMessage{text: text})
	b.Changed()
}

// UnmarkSent takes back a message MarkSent showed that could not be sent.
func (b *SubagentBlock) UnmarkSent(text string) {
	for i, m := range b.crew.sent {
		if m.text == text {
			b.crew.sent = append(b.crew.sent[:i], b.crew.sent[i+1:]...)
			b.push(activity{kind: actMessage, text: cells.OneLine(text), note: "not sent"})
			b.Changed()
			return
		}
	}
}

// QueuedMessages is how many messages sent to the child it has not read.
func (b *SubagentBlock) QueuedMessages() int { return len(b.crew.sent) }

// messageRead follows a message entering the child's history: the queued
// messages it holds (messages queued together enter as one) leave the
// queue and show read where they entered; a message that was not queued
// here (the parent's) shows read too.
func (b *SubagentBlock) messageRead(text string) {
	found := false
	kept := b.crew.sent[:0]
	for _, m := range b.crew.sent {
		if !HoldsMessage(text, m.text) {
			kept = append(kept, m)
			continue
		}
		found = true
		b.push(activity{kind: actMessage, text: cells.OneLine(m.text)})
	}
	b.crew.sent = kept
	if !found {
		b.push(activity{kind: actMessage, text: cells.OneLine(text)})
	}
}

// SetWaitingOn says the child waits on a paused child of its own; ""
// when it does not.
func (b *SubagentBlock) SetWaitingOn(text string) {
	if b.crew.waitingOn != text {
		b.crew.waitingOn = text
		b.Changed()
	}
}

// HoldsMessage reports whether the text that entered a child's history
// holds the message sent: messages queued together enter as one, joined
// by a blank line.
func HoldsMessage(text, sent string) bool {
	return text == sent || strings.HasPrefix(text, sent+"\n\n") || strings.HasSuffix(text, "\n\n"+sent) ||
		strings.Contains(text, "\n\n"+sent+"\n\n")
}

// revive turns a finished pane into a running one again (a message
// resumed it); its working time goes on from where it stopped.
func (b *SubagentBlock) revive(elapsed time.Duration, note string) {
	if elapsed <= 0 {
		elapsed = b.elapsed
	}
	b.state = childRunning
	b.crew.base, b.crew.paused, b.crew.queued, b.crew.interrupted = elapsed, false, false, false
	b.started = b.eventTime()
	b.elapsed = 0
	b.push(activity{kind: actNote, text: note})
}

// SetContext sets the fill of the child's next request and its model's
// window (0: unknown), from its ContextReported events.
func (b *SubagentBlock) SetContext(tokens, window int) {
	if b.ctxTokens == tokens && b.ctxWindow == window {
		return
	}
	b.ctxTokens, b.ctxWindow = tokens, window
	b.Changed()
}

// ContextText is the child's own gauge: "42%" of its window, its tokens
// when the window is unknown, "-" before any report.
func (b *SubagentBlock) ContextText() string {
	g, _ := ContextGauge(b.ctxTokens, b.ctxWindow)
	if g == "" {
		return "-"
	}
	return strings.TrimPrefix(g, "ctx ")
}

// tokenText is "12.4k tok", or "12.4k/50k tok" against a token budget.
func (b *SubagentBlock) tokenText() string {
	if b.crew.maxTokens > 0 {
		return agent.FormatTokens(b.usage.Total()) + "/" + agent.FormatTokens(b.crew.maxTokens) + " tok"
	}
	return agent.FormatTokens(b.usage.Total()) + " tok"
}

// costText is "$0.04", or "$0.04/$1.00" against a cost budget; "" when no
// price is known for the child's model. A cost budget on a model without a
// price cannot stop the child (its cost stays unknown), and says so.
func (b *SubagentBlock) costText() string {
	switch {
	case b.crew.costKnown && b.crew.maxCost > 0:
		return Dollars(b.crew.cost) + "/" + Dollars(b.crew.maxCost)
	case b.crew.costKnown:
		return Dollars(b.crew.cost)
	case b.crew.maxCost > 0:
		return Dollars(b.crew.maxCost) + " budget: no price"
	}
	return ""
}

// Dollars formats a cost: cents, or tenths of cents below a cent.
func Dollars(v float64) string {
	if v > 0 && v < 0.01 {
		return fmt.Sprintf("$%.3f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// SetCost records what the child's tokens cost so far.
func (b *SubagentBlock) SetCost(v float64) {
	if !b.crew.costKnown || b.crew.cost != v {
		b.crew.cost, b.crew.costKnown = v, true
		b.Changed()
	}
}

// Cost is what the child's tokens cost so far; ok is false when no price
// is known for its model.
func (b *SubagentBlock) Cost() (v float64, ok bool) { return b.crew.cost, b.crew.costKnown }

// Name is the child's handle ("scout"), or its AgentID when it has none.
func (b *SubagentBlock) Name() string {
	if n := cells.OneLine(b.src.Name); n != "" {
		return n
	}
	return b.src.AgentID
}

// Depth is the child's nesting depth (1 for the main agent's children).
func (b *SubagentBlock) Depth() int { return b.src.Depth }

// Source is the child's event source.
func (b *SubagentBlock) Source() agent.Source { return b.src }

// Paused reports whether the child is paused.
func (b *SubagentBlock) Paused() bool { return b.state == childRunning && b.crew.paused }

// Waiting reports whether the child waits for the user's approval, its
// request shown or queued behind another.
func (b *SubagentBlock) Waiting() bool { return b.waiting || (b.ahead > 0 && b.state == childRunning) }

// Queued reports whether the child waits for a slot to run in.
func (b *SubagentBlock) Queued() bool { return b.crew.queued }

// PauseSet reports whether the child is marked paused, whatever its state.
func (b *SubagentBlock) PauseSet() bool { return b.crew.paused }

// Unread is the messages sent to the child that it has not read yet,
// oldest first.
func (b *SubagentBlock) Unread() []string {
	out := make([]string, len(b.crew.sent))
	for i, m := range b.crew.sent {
		out[i] = m.text
	}
	return out
}

// Background reports whether the child runs in the background.
func (b *SubagentBlock) Background() bool { return b.crew.background }

// Files is the summary of the files the child changed ("3 files +40 −5"),
// "" when none.
func (b *SubagentBlock) Files() string { return b.crew.files.summary() }

// FileCount is how many files the child changed.
func (b *SubagentBlock) FileCount() int { return b.crew.files.Len() }

// Diff is the child's changes as one unified diff.
func (b *SubagentBlock) Diff() string { return b.crew.files.diff() }

// Budget is the child's token and cost budgets (0: none).
func (b *SubagentBlock) Budget() (tokens int, cost float64) {
	return b.crew.maxTokens, b.crew.maxCost
}

// Stalled reports whether a running child has done nothing for
// StallAfter: no event while not paused, queued or waiting for the user.
func (b *SubagentBlock) Stalled(now time.Time) bool {
	// A quiet shell is a server waiting for work, not a stuck agent.
	return b.Live() && !b.crew.paused && !b.waiting && b.ahead == 0 && !b.IsShell() && !b.crew.last.IsZero() && now.Sub(b.crew.last) >= StallAfter
}

// StateName is the child's state as the overview names it.
func (b *SubagentBlock) StateName() string {
	switch b.state {
	case childDone:
		if b.failed > 0 {
			return "done · " + strconv.Itoa(b.failed) + " failed"
		}
		return "done"
	case childFailed:
		return "failed"
	case childCancelled:
		if b.crew.interrupted {
			return "interrupted"
		}
		return "cancelled"
	case childTimedOut, childMaxTurns, childBudget:
		return "cut short"
	}
	switch {
	case b.waiting && b.asking == "plan approval":
		return StateNeedsPlan
	case b.waiting && b.asking != "":
		return StateNeedsAnswer
	case b.waiting:
		return "waiting for approval"
	case b.ahead > 0:
		return "approval queued"
	}
	if l := b.crew.label(true); l != "" && !b.IsShell() {
		return l
	}
	switch {
	case b.crew.queued:
		return "queued"
	case b.crew.paused:
		return "paused"
	}
	return "running"
}

// The states of a child waiting for the user's answer to its question,
// or for the approval of its plan.
const (
	StateNeedsAnswer = "needs your answer"
	StateNeedsPlan   = "plan to approve"
)

// StateTrim shortens a state for narrow columns: a second state after
// " · " shortens to its first letters, then goes.
func StateTrim(s string, w int) string {
	if cells.Width(s) <= w {
		return s
	}
	if first, second, ok := strings.Cut(s, " · "); ok {
		if short := first + " · " + second[:min(2, len(second))]; cells.Width(short) <= w {
			return short
		}
		s = first
		if cells.Width(s) <= w {
			return s
		}
	}
	if s == "waiting for approval" && w >= len("approval") {
		return "approval"
	}
	return strings.TrimSpace(runewidth.Truncate(s, max(w, 0), ""))
}
