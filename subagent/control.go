package subagent

import (
	"context"
	"fmt"
	"time"

	"covey/agent"
)

// The controls of a child while it lives: waiting for it, moving it to the
// background, pausing it, steering or resuming it, and the state it reports.

// wait blocks until the child's run ends or it moves to the background,
// and returns the outcome for the task call; backgrounded reports the
// latter (the outcome then travels to the parent's inbox).
func (c *child) wait() (out outcome, backgrounded bool) {
	select {
	case <-c.done:
	case <-c.bg:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.background {
		return outcome{}, true
	}
	return c.out, false
}

func (c *child) isRunning() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == agent.StateQueued || c.state == agent.StateRunning
}

// cancelRun cancels the current run, if any.
func (c *child) cancelRun(cause error) {
	c.mu.Lock()
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel(cause)
	}
}

// toBackground moves a running foreground child to the background.
func (c *child) toBackground(detail string) bool {
	c.mu.Lock()
	if c.background || c.group != nil || (c.state != agent.StateQueued && c.state != agent.StateRunning) {
		// An attempt of a best-of-N task stays: its group is reviewed
		// when all have ended.
		c.mu.Unlock()
		return false
	}
	c.background = true
	if c.detach != nil {
		c.detach()
		c.detach = nil
	}
	// Counted before the task call can return, so a parent never looks
	// idle between the call's end and the outcome.
	c.owed = c.m.Inbox(c.m.deliveryTarget(c.parentID))
	c.owed.add()
	close(c.bg)
	c.mu.Unlock()
	c.emitState(detail)
	return true
}

// setPaused pauses or resumes a running child.
func (c *child) setPaused(paused bool) bool {
	c.mu.Lock()
	if c.state != agent.StateQueued && c.state != agent.StateRunning {
		c.mu.Unlock()
		return false
	}
	if c.paused == paused {
		c.mu.Unlock()
		return true
	}
	c.paused = paused
	if paused {
		c.resume = make(chan struct{})
		c.stopClockLocked()
	} else {
		close(c.resume)
		c.resume = nil
		if c.state == agent.StateRunning {
			c.since = time.Now()
		}
	}
	c.mu.Unlock()
	detail := "resumed"
	if paused {
		detail = "paused"
	}
	c.emitState(detail)
	return true
}

func (c *child) stopClockLocked() {
	if !c.since.IsZero() {
		c.elapsed += time.Since(c.since)
		c.since = time.Time{}
	}
}

// workTime returns the working time so far.
func (c *child) workTime() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.elapsed
	if !c.since.IsZero() {
		d += time.Since(c.since)
	}
	return d
}

// hold blocks while the child is paused (agent.Config.Hold).
func (c *child) hold(ctx context.Context) error {
	for {
		c.mu.Lock()
		ch := c.resume
		c.mu.Unlock()
		if ch == nil {
			return ctx.Err()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// emitState announces the child's state now.
func (c *child) emitState(detail string) {
	c.mu.Lock()
	st := agent.ChildState{Source: c.src, State: c.state, Background: c.background, Paused: c.paused, Detail: detail, Elapsed: c.elapsed}
	if c.paused && (c.state == agent.StateRunning || c.state == agent.StateQueued) {
		st.State = agent.StatePaused
	}
	if !c.since.IsZero() {
		st.Elapsed += time.Since(c.since)
	}
	c.mu.Unlock()
	c.m.cfg.Emit(st)
}

// send steers a running child or resumes a finished one.
func (c *child) send(ctx context.Context, text string) error {
	if c.resolveErr != nil {
		return fmt.Errorf("%s cannot take messages: %w", c.src.Name, c.resolveErr)
	}
	return c.resumeWith(ctx, text)
}

// resumeWith steers a running child with text, or resumes a finished one
// in the background with its history plus text.
func (c *child) resumeWith(ctx context.Context, text string) error {
	msg := agent.ChildMessage{Source: c.src, Text: text}
	c.mu.Lock()
	if c.state == agent.StateQueued || c.state == agent.StateRunning {
		c.a.Steer(text, msg)
		c.mu.Unlock()
		return nil
	}
	if c.m.isClosed() {
		c.mu.Unlock()
		return errShutdown
	}
	if c.iso != nil || c.spec.Isolation == IsolationWorktree {
		// Its first worktree was merged or kept at its end (or, restored
		// from the session file, it has none yet): it works on in a fresh
		// one, and its tools follow it there.
		iso, err := c.isolate(ctx)
		if err != nil {
			c.mu.Unlock()
			return err
		}
		hist, u := c.a.History(), c.a.Usage()
		c.iso = iso
		c.newAgent()
		c.a.SetHistory(hist)
		c.a.AddUsage(u)
	}
	c.ctx, c.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	c.state, c.background, c.paused = agent.StateRunning, true, false
	c.done = make(chan struct{})
	if c.bg == nil {
		c.bg = make(chan struct{})
	}
	select {
	case <-c.bg:
	default:
		close(c.bg)
	}
	c.owed = c.m.Inbox(c.m.deliveryTarget(c.parentID))
	c.owed.add()
	c.mu.Unlock()
	c.emitState(agent.DetailResumed)
	c.m.cfg.Emit(msg)
	c.m.wg.Add(1)
	go func() {
		defer c.m.wg.Done()
		c.runAndFinish(text, false)
	}()
	return nil
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
