package ui

import (
	"context"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/permission"
)

// Verdict reasons the approval flow gives the model.
const (
	reasonCancelled = "cancelled by the user"
	reasonDenied    = "the user denied this; ask what they would like instead"
	reasonFeedback  = "the user denied this: "
)

// Permissions is the session's permission policy as the TUI sees it: the
// mode it shows and cycles, and the grants "allow for this session" makes.
// *permission.Policy satisfies it.
type Permissions interface {
	// Mode returns the current permission mode.
	Mode() permission.Mode
	// CycleMode moves to the next mode (default, acceptEdits, plan,
	// bypassPermissions, default…) for every request decided from now on,
	// and returns it: the one cycle, the policy's.
	CycleMode() permission.Mode
	// Grant allows requests like req for the rest of the session and
	// returns the rules it recorded, as the UI shows them.
	Grant(permission.Request) []string
	// SetMode changes the mode (an approved plan leaves plan mode).
	SetMode(permission.Mode)
}

// The policy and the approver meet through these interfaces.
var (
	_ permission.Asker       = (*Approver)(nil)
	_ permission.TurnWatcher = (*Approver)(nil)
	_ Permissions            = (*permission.Policy)(nil)
)

// Approver is the TUI's permission.Asker: Ask hands each request to the running
// TUI, which shows it inline where the tool call stands and answers it from
// the user's keys. Requests are shown one at a time, first come first
// served. An Approver serves one TUI; give it to the policy and to
// Options.Approver.
type Approver struct {
	asks chan *pendingApproval
	seq  atomic.Int64
}

// NewApprover returns an Approver with nobody listening yet; Ask waits for
// the TUI (or for its context to end).
func NewApprover() *Approver {
	return &Approver{asks: make(chan *pendingApproval)}
}

// pendingApproval is one Ask waiting for the user. The UI answers it by
// sending exactly one Verdict on answer (buffered, so answering never
// blocks the UI even when Ask has already given up) and closing settled,
// which releases the command watching ctx.
type pendingApproval struct {
	id      int64
	req     permission.Request
	ctx     context.Context
	answer  chan permission.Verdict
	settled chan struct{}
	done    bool // set by the UI goroutine once answered or gone
	// turn marks a request that waits its turn behind the one asked: not
	// shown, only its child's pane says it waits; its ctx ends when its
	// turn comes.
	turn bool
}

// Ask implements permission.Asker. It blocks until the user answers or ctx ends;
// an ended ctx gives Verdict{Reason: "cancelled by the user"} at once, and
// the TUI then takes the request off the screen.
func (a *Approver) Ask(ctx context.Context, req permission.Request) permission.Verdict {
	if ctx.Err() != nil {
		return permission.Verdict{Reason: reasonCancelled}
	}
	p := &pendingApproval{
		id:      a.seq.Add(1),
		req:     req,
		ctx:     ctx,
		answer:  make(chan permission.Verdict, 1),
		settled: make(chan struct{}),
	}
	select {
	case a.asks <- p:
	case <-ctx.Done():
		return permission.Verdict{Reason: reasonCancelled}
	}
	select {
	case v := <-p.answer:
		return v
	case <-ctx.Done():
		return permission.Verdict{Reason: reasonCancelled}
	}
}

// WaitingTurn implements permission.TurnWatcher: the UI marks the
// asking child's pane until done is called.
func (a *Approver) WaitingTurn(ctx context.Context, req permission.Request) (done func()) {
	wctx, cancel := context.WithCancel(ctx)
	p := &pendingApproval{id: a.seq.Add(1), req: req, ctx: wctx, settled: make(chan struct{}), turn: true}
	go func() {
		select {
		case a.asks <- p:
		case <-wctx.Done():
		}
	}()
	return cancel
}

// settle answers p once; later calls do nothing. It runs on the UI
// goroutine only.
func (p *pendingApproval) settle(v permission.Verdict) {
	if p.done {
		return
	}
	p.done = true
	p.answer <- v
	close(p.settled)
}

// drop marks p as gone without an answer (its context ended).
func (p *pendingApproval) drop() {
	if p.done {
		return
	}
	p.done = true
	close(p.settled)
}

// approvalEvent carries a request through the event pump, so it reaches
// the UI after every event its agent emitted before asking (the tool call's
// ToolStarted above all, under which the request is shown).
type approvalEvent struct {
	agent.Source
	p *pendingApproval
}

// Kind implements agent.Event; the event never leaves the UI.
func (approvalEvent) Kind() string { return "approval" }

// approvalGoneMsg reports that the context of request id ended before the
// user answered.
type approvalGoneMsg struct{ id int64 }

// watchApproval is the command that reports p's context ending, and ends
// quietly once the user answered p or the UI stops.
func watchApproval(ui context.Context, p *pendingApproval) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-p.ctx.Done():
			return approvalGoneMsg{id: p.id}
		case <-p.settled:
		case <-ui.Done():
		}
		return nil
	}
}
