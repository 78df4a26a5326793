package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
)

// frameInterval is the shortest time between two painted frames: 30 a
// second, so a key, a scroll or a resize shows within a frame.
const frameInterval = 33 * time.Millisecond

// batchInterval is the shortest time between two batches of agent events
// handed to the UI: 20 a second. Each batch is an update, a frame and a
// write to the terminal, and what a frame costs is mostly not its own work
// (some 20 us) but waking the program for it: the pump's timer, which Go's
// poller rounds to whole milliseconds and so fires twice, Bubble Tea's
// event loop and command goroutine, and the runtime's monitor thread, which
// polls every 20 us while a timer is late (docs/performance.md, "Issue 22,
// fourth pass"). Streamed text in 50 ms steps reads as smoothly as in 33 ms
// ones, a token still shows within 100 ms of its arrival, and the stream
// costs a third fewer wake-ups. Keys are not batched: they paint at the
// frame interval.
const batchInterval = 50 * time.Millisecond

// eventsMsg carries every agent event that arrived since the previous batch,
// in arrival order.
type eventsMsg struct{ events []agent.Event }

// eventsClosedMsg reports that the engine closed its event channel.
type eventsClosedMsg struct{}

// batcher accumulates events and decides when a batch is due. It holds no
// clock of its own, so its policy is testable without sleeping.
type batcher struct {
	interval  time.Duration
	pending   []agent.Event
	lastFlush time.Time
}

// add appends ev, merging a text or reasoning delta into the previous one of
// the same agent: a block then appends one string per frame, not per token.
func (b *batcher) add(ev agent.Event) {
	if n := len(b.pending); n > 0 {
		switch cur := ev.(type) {
		case agent.TextDelta:
			if prev, ok := b.pending[n-1].(agent.TextDelta); ok && prev.Source == cur.Source {
				prev.Text += cur.Text
				b.pending[n-1] = prev
				return
			}
		case agent.ReasoningDelta:
			if prev, ok := b.pending[n-1].(agent.ReasoningDelta); ok && prev.Source == cur.Source {
				prev.Text += cur.Text
				b.pending[n-1] = prev
				return
			}
		}
	}
	b.pending = append(b.pending, ev)
}

// ready reports whether a batch should be handed over at now: there is
// something pending and the previous batch is at least one interval old. An
// idle pump therefore delivers a lone event at once.
func (b *batcher) ready(now time.Time) bool {
	return len(b.pending) > 0 && now.Sub(b.lastFlush) >= b.interval
}

// due is when the pending batch becomes ready.
func (b *batcher) due() time.Time { return b.lastFlush.Add(b.interval) }

// take hands the pending batch over and starts a new interval at now.
func (b *batcher) take(now time.Time) []agent.Event {
	out := b.pending
	b.pending = nil
	b.lastFlush = now
	return out
}

// eventPump moves events from the engine's channel to the UI in batches, off
// the UI goroutine, so a flood of deltas from many children costs the UI at
// most one update per frame.
type eventPump struct {
	in  <-chan agent.Event
	out chan []agent.Event
	b   batcher
	// asks brings the Approver's requests (nil without one). They share
	// the batches with the events, so a request never overtakes the
	// events its agent emitted before asking.
	asks <-chan *pendingApproval
	// dones brings the end of each turn, delivered after every event
	// the engine emitted before Run returned; stopped closes when the
	// pump ends.
	dones   chan turnDoneMsg
	stopped chan struct{}
	// send, when set, hands a batch straight to the program (its Send)
	// instead of through out and a waitForEvents command. That saves a
	// goroutine and two hand-offs per frame: Bubble Tea runs every
	// command on a goroutine of its own, after passing it through a
	// channel to its command loop.
	send func(tea.Msg)
}

// turnDoneEvent carries a turn's end through the pump; it never leaves
// the UI.
type turnDoneEvent struct {
	agent.Source
	msg turnDoneMsg
}

// Kind implements agent.Event.
func (turnDoneEvent) Kind() string { return "turn_done" }

func newEventPump(in <-chan agent.Event, interval time.Duration) *eventPump {
	return &eventPump{in: in, out: make(chan []agent.Event), b: batcher{interval: interval},
		dones: make(chan turnDoneMsg), stopped: make(chan struct{})}
}

// endTurn hands d to the pump, to be delivered after the turn's events; it
// reports false when the pump has stopped (the caller delivers d itself).
// The hand-over is unbuffered, so a taken end is never lost in a stopping
// pump.
func (p *eventPump) endTurn(d turnDoneMsg) bool {
	select {
	case p.dones <- d:
		return true
	case <-p.stopped:
		return false
	}
}

// drain adds every event already waiting on in, without blocking; it
// reports false when in turned out to be closed.
func (p *eventPump) drain(in <-chan agent.Event) bool {
	for {
		select {
		case ev, ok := <-in:
			if !ok {
				return false
			}
			p.b.add(ev)
		default:
			return true
		}
	}
}

// run pumps until ctx ends or the input closes; it closes out when it
// returns so a waiting waitForEvents command always wakes up.
func (p *eventPump) run(ctx context.Context) {
	defer close(p.out)
	defer close(p.stopped)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	in := p.in
	// Without an input of its own the pump lives for the approvals alone.
	standing := in == nil && p.asks != nil
	for {
		var out chan<- []agent.Event
		var wake <-chan time.Time
		// Between frames the pump does not read its input: events wait
		// in the engine's buffered channel and are drained at once when
		// the frame is due, so a stream wakes the pump once a frame, not
		// once a token (ten children streaming: ten times fewer wake-ups).
		recv := in
		if len(p.b.pending) > 0 {
			now := time.Now()
			if p.b.ready(now) {
				if p.send != nil {
					p.send(eventsMsg{events: p.b.take(now)})
					p.b.lastFlush = time.Now() // the interval starts at the hand-over
					continue
				}
				out = p.out
			} else {
				timer.Reset(p.b.due().Sub(now))
				wake = timer.C
				recv = nil
			}
		} else if in == nil && !standing {
			return // input closed and everything delivered
		} else if d := time.Until(p.b.due()); in != nil && d > 0 {
			// Just after a hand-over: sleep out the interval and drain
			// then. Waiting on the input instead woke the pump for the
			// first event of the next batch and again when it was due,
			// twice a frame while a stream lasts.
			timer.Reset(d)
			wake = timer.C
			recv = nil
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-recv:
			if !ok {
				in = nil
				// Deliver the rest without waiting for the frame.
				p.b.lastFlush = time.Time{}
				continue
			}
			p.b.add(ev)
		case ask := <-p.asks:
			// The agent emitted its tool call before asking: take it
			// first, then hand the request over without waiting for
			// the frame, since an agent is blocked on it.
			if in != nil && !p.drain(in) {
				in = nil
			}
			p.b.add(approvalEvent{Source: agent.Source{AgentID: ask.req.AgentID}, p: ask})
			p.b.lastFlush = time.Time{}
		case d := <-p.dones:
			// Run has returned, so every event of the turn is in the
			// input already: take them first, then the end, at once.
			if in != nil && !p.drain(in) {
				in = nil
			}
			p.b.add(turnDoneEvent{Source: agent.Source{AgentID: agent.MainAgentID}, msg: d})
			p.b.lastFlush = time.Time{}
		case out <- p.b.pending:
			p.b.take(time.Now())
		case <-wake:
			if in != nil && !p.drain(in) {
				in = nil
				p.b.lastFlush = time.Time{}
			}
		}
		// Since Go 1.23 a stopped timer delivers no stale tick, so Stop
		// is all the cleanup Reset needs.
		timer.Stop()
	}
}

// waitForEvents is the command that hands the UI the next batch; Update
// issues it again after each batch.
func waitForEvents(out <-chan []agent.Event) tea.Cmd {
	return func() tea.Msg {
		evs, ok := <-out
		if !ok {
			return eventsClosedMsg{}
		}
		return eventsMsg{events: evs}
	}
}

// startPump is the command that runs the pump for the program's lifetime.
func startPump(ctx context.Context, p *eventPump) tea.Cmd {
	return func() tea.Msg {
		p.run(ctx)
		return nil
	}
}
