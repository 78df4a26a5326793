package subagent

import (
	"context"
	"errors"
	"sync"

	"covey/agent"
)

// Driver runs the turns of a top-level agent (the session's main agent):
// the user's turns, and the turns its background children's outcomes start.
// An outcome that arrives while the agent is idle is delivered at once as a
// user-role message (a BackgroundResult event first, then the agent's turn,
// ending with its Done); one that arrives during a turn waits for the turn's
// end. Close stops it.
type Driver struct {
	a     *agent.Agent
	inbox *Inbox
	emit  agent.Emitter
	// OnTurn, when set, is called before every turn the driver starts on
	// its own (the session begins an undo step there).
	onTurn func()
	// atWork tells the manager whether the agent is in a turn (the
	// collision radar counts its touches only then).
	atWork func(bool)

	turn chan struct{} // holds one token while a turn runs
	stop chan struct{}
	kick chan struct{}
	done chan struct{}

	mu         sync.Mutex
	cancel     context.CancelFunc // of the turn the driver started, if running
	last       agent.Result       // of the last turn the driver started
	lastErr    error
	delivering bool
	idle       chan struct{} // closed and replaced when a turn ends
}

// NewDriver starts a driver for a (whose events carry AgentID "main" or
// the given agent's ID): it delivers the outcomes of that agent's
// background children. emit receives the BackgroundResult events; onTurn,
// when set, is called before each delivered turn.
func (m *Manager) NewDriver(a *agent.Agent, onTurn func()) *Driver {
	d := &Driver{
		a: a, inbox: m.Inbox(a.Source().AgentID), emit: m.cfg.Emit, onTurn: onTurn, atWork: m.topAtWork(a.Source().AgentID),
		turn: make(chan struct{}, 1), stop: make(chan struct{}), kick: make(chan struct{}, 1),
		done: make(chan struct{}), idle: make(chan struct{}),
	}
	m.mu.Lock()
	m.tops[a.Source().AgentID] = a
	m.mu.Unlock()
	go d.loop()
	return d
}

// Run runs one user turn, after any delivered turn in progress ends.
func (d *Driver) Run(ctx context.Context, prompt string) (agent.Result, error) {
	return d.do(ctx, func() (agent.Result, error) { return d.a.Run(ctx, prompt) })
}

// RunWithModel runs one user turn like Run, on model for this turn only
// (a slash command's model:); "" is Run. The model is set once the turn
// has the agent, so a turn already running keeps its own, and put back
// after, unless someone chose another meanwhile.
func (d *Driver) RunWithModel(ctx context.Context, prompt, model string) (agent.Result, error) {
	return d.do(ctx, func() (agent.Result, error) {
		defer d.withModel(model)()
		return d.a.Run(ctx, prompt)
	})
}

// RetryWithModel is Retry on model for this turn only, as RunWithModel.
func (d *Driver) RetryWithModel(ctx context.Context, model string) (agent.Result, error) {
	return d.do(ctx, func() (agent.Result, error) {
		defer d.withModel(model)()
		return d.a.Retry(ctx)
	})
}

// withModel sets the agent's model for one turn and returns what puts it
// back; "" changes nothing.
func (d *Driver) withModel(model string) func() {
	if model == "" {
		return func() {}
	}
	old := d.a.Model()
	d.a.SetModel(model)
	return func() {
		if d.a.Model() == model {
			d.a.SetModel(old)
		}
	}
}

// Retry runs the last user turn again, like Run.
func (d *Driver) Retry(ctx context.Context) (agent.Result, error) {
	return d.do(ctx, func() (agent.Result, error) { return d.a.Retry(ctx) })
}

func (d *Driver) do(ctx context.Context, run func() (agent.Result, error)) (agent.Result, error) {
	select {
	case d.turn <- struct{}{}:
	case <-ctx.Done():
		return agent.Result{Reason: agent.StopCancelled}, ctx.Err()
	}
	d.atWork(true)
	res, err := run()
	d.release()
	return res, err
}

// release ends a turn and looks for outcomes that waited for it.
func (d *Driver) release() {
	d.putToken()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// putToken gives the turn token back and wakes every Wait: one that saw the
// token held counts the agent busy and waits for this, however briefly the
// token was held (deliver holds it while it looks for outcomes, even when
// it finds none).
func (d *Driver) putToken() {
	d.atWork(false)
	<-d.turn
	d.mu.Lock()
	close(d.idle)
	d.idle = make(chan struct{})
	d.mu.Unlock()
}

// CancelTurn cancels the turn the driver started on its own, if one runs.
func (d *Driver) CancelTurn() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel == nil {
		return false
	}
	d.cancel()
	return true
}

// Wait blocks until the agent is idle with nothing left to deliver: no
// turn running, no background child of the agent running and no outcome
// waiting (headless runs end there). It returns the result of the last turn
// it delivered, with ok false when it delivered none.
func (d *Driver) Wait(ctx context.Context) (res agent.Result, err error, ok bool) {
	for {
		// The inbox first: outcomes leave it only into a turn, which the
		// busy check below then sees.
		changed := d.inbox.Changed()
		inboxIdle := d.inbox.Idle()
		d.mu.Lock()
		idle := d.idle
		busy := d.delivering || len(d.turn) > 0
		res, err, ok = d.last, d.lastErr, d.last.Reason != ""
		d.mu.Unlock()
		if !busy && inboxIdle {
			return res, err, ok
		}
		select {
		case <-idle:
		case <-changed:
		case <-ctx.Done():
			return res, ctx.Err(), ok
		}
	}
}

// Close stops delivering, cancels a delivered turn in progress and waits
// for it to end.
func (d *Driver) Close() {
	select {
	case <-d.stop:
	default:
		close(d.stop)
	}
	d.CancelTurn()
	<-d.done
}

func (d *Driver) loop() {
	defer close(d.done)
	for {
		changed := d.inbox.Changed()
		d.deliver()
		select {
		case <-d.stop:
			return
		case <-changed:
		case <-d.kick:
		}
	}
}

// deliver starts a turn with the waiting outcomes when the agent is idle.
// It runs the turn itself; another arriving meanwhile is taken after it.
func (d *Driver) deliver() {
	for {
		select {
		case <-d.stop:
			return
		default:
		}
		select {
		case d.turn <- struct{}{}:
		default:
			return // busy: the turn's end kicks the loop
		}
		notices := d.inbox.Take()
		if len(notices) == 0 {
			d.putToken()
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		d.atWork(true)
		d.mu.Lock()
		d.cancel, d.delivering = cancel, true
		d.mu.Unlock()
		if d.onTurn != nil {
			d.onTurn()
		}
		src := d.a.Source()
		for _, n := range notices {
			d.emit(n.Event(src))
		}
		res, err := d.a.Run(ctx, NoticeText(notices))
		if errors.Is(err, agent.ErrBusy) {
			// Someone ran the agent around the driver; try again later.
			res.Reason = agent.StopError
		}
		cancel()
		d.mu.Lock()
		d.cancel, d.delivering = nil, false
		d.last, d.lastErr = res, err
		d.mu.Unlock()
		d.release()
	}
}
