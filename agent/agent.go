package agent

import (
	"context"
	"errors"
	"sync"

	"covey/tools"
)

// Config configures one agent: the main agent or a child.
type Config struct {
	Provider Provider
	Model    string
	// System is the full system prompt (see SystemPrompt).
	System string
	Tools  *tools.Registry
	// MaxTurns bounds the model requests of one Run; 0 means no bound.
	MaxTurns int
	// Source tags every event this agent emits.
	Source Source
	// Emit receives every event; nil drops them.
	Emit Emitter
	// OnMessage, when set, is called with every message as it enters the
	// history (the session file records them, so a crash loses at most the
	// answer that was streaming).
	OnMessage func(Message)
}

// Result is the outcome of one Run.
type Result struct {
	// Answer is the text of the final assistant message.
	Answer string
	// Reason is one of the Stop constants.
	Reason    string
	Usage     Usage
	Turns     int
	ToolCalls int
}

// ErrBusy is returned by Run when the agent is already running a turn.
var ErrBusy = errors.New("agent is already running")

// Agent is one conversation with a model and the tool loop around it. Its
// history persists across Runs until Reset. Run is not reentrant; the
// accessors are safe to call from other goroutines.
type Agent struct {
	cfg Config

	mu      sync.Mutex
	history []Message // without the system prompt
	usage   Usage     // over the agent's lifetime
	running bool
}

// New returns an agent with an empty history.
func New(cfg Config) *Agent {
	if cfg.Emit == nil {
		cfg.Emit = func(Event) {}
	}
	if cfg.Tools == nil {
		cfg.Tools = tools.NewRegistry()
	}
	if cfg.Source.AgentID == "" {
		cfg.Source.AgentID = MainAgentID
	}
	return &Agent{cfg: cfg}
}

// Model returns the model the next request will use.
func (a *Agent) Model() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Model
}

// SetModel changes the model for later requests.
func (a *Agent) SetModel(m string) {
	a.mu.Lock()
	a.cfg.Model = m
	a.mu.Unlock()
}

// History returns a copy of the conversation so far.
func (a *Agent) History() []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Message(nil), a.history...)
}

// SetHistory replaces the conversation (used to resume a session).
func (a *Agent) SetHistory(h []Message) {
	a.mu.Lock()
	a.history = append([]Message(nil), h...)
	a.mu.Unlock()
}

// Usage returns the tokens this agent used over its lifetime.
func (a *Agent) Usage() Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage
}

// Reset clears the conversation.
func (a *Agent) Reset() {
	a.mu.Lock()
	a.history = nil
	a.mu.Unlock()
}

// Tools returns the agent's tool registry.
func (a *Agent) Tools() *tools.Registry { return a.cfg.Tools }

// Source returns the tag of the agent's events.
func (a *Agent) Source() Source { return a.cfg.Source }

func (a *Agent) append(msgs ...Message) {
	a.mu.Lock()
	a.history = append(a.history, msgs...)
	a.mu.Unlock()
	if a.cfg.OnMessage != nil {
		for _, m := range msgs {
			a.cfg.OnMessage(m)
		}
	}
}

func (a *Agent) addUsage(u Usage) {
	a.mu.Lock()
	a.usage.Add(u)
	a.mu.Unlock()
}

func (a *Agent) emit(e Event) { a.cfg.Emit(e) }

// request builds the next provider request from the history.
func (a *Agent) request() Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	msgs := make([]Message, 0, len(a.history)+1)
	if a.cfg.System != "" {
		msgs = append(msgs, Message{Role: RoleSystem, Content: a.cfg.System})
	}
	msgs = append(msgs, a.history...)
	specs := make([]ToolSpec, 0, len(a.cfg.Tools.Tools()))
	for _, t := range a.cfg.Tools.Tools() {
		specs = append(specs, ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	}
	return Request{Model: a.cfg.Model, Messages: msgs, Tools: specs}
}

func (a *Agent) begin() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return ErrBusy
	}
	a.running = true
	return nil
}

func (a *Agent) end() {
	a.mu.Lock()
	a.running = false
	a.mu.Unlock()
}

// isCancel reports whether err stems from a cancelled or expired context.
func isCancel(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled)
}

// ErrNothingToRetry is returned by Retry when there is no user turn.
var ErrNothingToRetry = errors.New("nothing to retry: no message was sent yet")

// Retry runs the last user turn again: the messages of that turn (its
// partial answer, its tool calls) are dropped and the user's message is
// sent anew.
func (a *Agent) Retry(ctx context.Context) (Result, error) {
	a.mu.Lock()
	last := -1
	for i := len(a.history) - 1; i >= 0; i-- {
		if a.history[i].Role == RoleUser {
			last = i
			break
		}
	}
	if last < 0 || a.running {
		a.mu.Unlock()
		if last < 0 {
			return Result{}, ErrNothingToRetry
		}
		return Result{}, ErrBusy
	}
	prompt := a.history[last].Content
	a.history = a.history[:last]
	a.mu.Unlock()
	return a.Run(ctx, prompt)
}
