package agent

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"covey/internal/excerpt"
	tools "covey/tools/tool" // the tool interface alone: no tool implementation is linked
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
	// Hold, when set, is called before each model request and each tool
	// call; it blocks while the agent is paused and returns an error (the
	// context's) to end the run instead.
	Hold func(ctx context.Context) error
	// MaxTokens ends a Run with StopBudget, before its next request, once
	// the agent's lifetime tokens (input + output) reach it; 0: no bound.
	MaxTokens int
	// MaxCost does the same for the lifetime cost, as Cost prices it; it
	// needs Cost. 0: no bound.
	MaxCost float64
	// Cost prices the usage of one request on model (see Prices.Cost);
	// nil prices nothing.
	Cost func(model string, u Usage) float64
	// ContextWindow is the model's window in tokens; 0: unknown (see
	// window.go). ContextWindowFrom says where it came from ("config",
	// "server", "catalog", "overflow").
	ContextWindow     int
	ContextWindowFrom string
	// Hooks runs the user's PreToolUse, PostToolUse and Stop (or
	// SubagentStop) hooks; nil runs none.
	Hooks Hooks
	// ToolResultsBudget bounds the tool results of one assistant message
	// together, in bytes; 0 means DefaultToolResultsBudget. Results over
	// their fair share are cut with a note (see fitToolResults).
	ToolResultsBudget int
	// AutoCompact is the share of the window past which the history is
	// compacted before a request (DefaultAutoCompact); it also lets a
	// request the server refuses as too long be compacted and retried
	// once. 0 turns both off (see compact.go).
	AutoCompact float64
	// CrewNote, when set, returns covey's own record of the agent's
	// subagents and their undelivered results, added verbatim to every
	// summary so compaction cannot lose them.
	CrewNote func() string
	// BeforeCompact, when set, is called before every compaction (the
	// PreCompact hook point) with its trigger (CompactAuto, CompactManual,
	// CompactOverflow) and the user's focus; what it returns is added to
	// the summary's instructions, and an error cancels the compaction.
	BeforeCompact func(ctx context.Context, trigger, focus string) (extraInstructions string, err error)
	// MaxOutputTokens is the part of the window kept for an answer; 0:
	// unknown.
	MaxOutputTokens int
	// AnswerCap is sent as max_tokens with every request; 0 sends none.
	// Only the user's own max_output_tokens sets it: a catalog's figure
	// only keeps room, since some servers refuse max_tokens for some
	// models (OpenAI's reasoning models want max_completion_tokens).
	AnswerCap int
	// CacheKey names this agent's conversation for the provider's prompt
	// cache (Request.CacheKey): the session's id for the main agent, the
	// session's and the child's for a child. "" sends none.
	CacheKey string
}

// Steered is a message queued for an agent by Steer.
type Steered struct {
	Text string
	// Event, when set, is emitted as the message enters the history.
	Event Event
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
	cost    float64   // over the agent's lifetime, when Cost is set
	running bool
	steered []Steered // waiting for the next request
	// halted is set when a hook said continue false: the run ends after
	// the current step.
	halted atomic.Bool
	// final is a tool's Final answer that halted the run (guarded by
	// mu: calls run concurrently).
	final string
	// counted is the server's count of the last request's prompt (see
	// ContextFill).
	counted promptCount
	// compacted is the history's length right after the last compaction
	// (see compact.go): nothing new since, another would gain nothing.
	compacted int
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

// SetProvider changes the provider of later requests (a /model switch to
// a model served on another wire); the history is kept, each wire putting
// it in its own form.
func (a *Agent) SetProvider(p Provider) {
	a.mu.Lock()
	a.cfg.Provider = p
	a.mu.Unlock()
}

// provider is the provider of the next request.
func (a *Agent) provider() Provider {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Provider
}

// History returns a copy of the conversation so far.
func (a *Agent) History() []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Message(nil), a.history...)
}

// System returns the agent's system prompt.
func (a *Agent) System() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.System
}

// SetSystem replaces the agent's system prompt (a resumed session's, once
// its file is read: its start date is in it). Call it before the turn
// that should send it, not during one.
func (a *Agent) SetSystem(system string) {
	a.mu.Lock()
	a.cfg.System = system
	a.forgetPromptUsageLocked()
	a.mu.Unlock()
}

// SetHistory replaces the conversation (used to resume a session) and
// reports the new fill (a ContextReported event).
func (a *Agent) SetHistory(h []Message) {
	a.mu.Lock()
	a.history = append([]Message(nil), h...)
	a.forgetPromptUsageLocked()
	a.mu.Unlock()
	a.cfg.Emit(a.contextReport())
}

// Usage returns the tokens this agent used over its lifetime.
func (a *Agent) Usage() Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage
}

// Cost returns what this agent spent over its lifetime, as Config.Cost
// prices it (0 without prices).
func (a *Agent) Cost() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cost
}

// Running reports whether a Run is in progress.
func (a *Agent) Running() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}

// Steer queues text as a user-role message that enters the conversation
// before the agent's next model request (when the last message is not
// already the user's); messages queued together enter as one. A run that
// would end with messages queued goes on to answer them. Safe to call
// from any goroutine, running or not.
func (a *Agent) Steer(text string, delivered Event) {
	a.mu.Lock()
	a.steered = append(a.steered, Steered{Text: text, Event: delivered})
	a.mu.Unlock()
}

// TakeSteered removes and returns the queued messages that have not entered
// the conversation yet.
func (a *Agent) TakeSteered() []Steered {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.steered
	a.steered = nil
	return out
}

// deliverSteered moves queued messages into the history as one user message,
// unless the history already ends with one (two in a row upset some
// servers; they wait for the next chance). It reports whether it did.
func (a *Agent) deliverSteered() bool {
	a.mu.Lock()
	if len(a.steered) == 0 || (len(a.history) > 0 && a.history[len(a.history)-1].Role == RoleUser) {
		a.mu.Unlock()
		return false
	}
	queued := a.steered
	a.steered = nil
	a.mu.Unlock()
	texts := make([]string, len(queued))
	for i, q := range queued {
		texts[i] = q.Text
	}
	a.append(Message{Role: RoleUser, Content: strings.Join(texts, "\n\n")})
	for _, q := range queued {
		if q.Event != nil {
			a.emit(q.Event)
		}
	}
	return true
}

func (a *Agent) hasSteered() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.steered) > 0
}

// overBudget reports whether the agent reached its token or cost budget.
func (a *Agent) overBudget() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return (a.cfg.MaxTokens > 0 && a.usage.Total() >= a.cfg.MaxTokens) ||
		(a.cfg.MaxCost > 0 && a.cfg.Cost != nil && a.cost >= a.cfg.MaxCost)
}

// Reset clears the conversation and reports the new fill.
func (a *Agent) Reset() {
	a.mu.Lock()
	a.history = nil
	a.forgetPromptUsageLocked()
	a.mu.Unlock()
	a.cfg.Emit(a.contextReport())
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

// AddUsage counts u as used by this agent (a resumed child carries its
// earlier use into a rebuilt agent, so budgets keep counting).
func (a *Agent) AddUsage(u Usage) {
	a.mu.Lock()
	a.usage.Add(u)
	a.mu.Unlock()
}

func (a *Agent) addUsage(u Usage) {
	a.mu.Lock()
	a.usage.Add(u)
	if a.cfg.Cost != nil {
		a.cost += a.cfg.Cost(a.cfg.Model, u)
	}
	a.mu.Unlock()
}

// emit sends e, and after the end of each model request's step (and
// before the end of the run, so Done stays a run's last event) how full
// the context is, so every consumer's gauge follows.
func (a *Agent) emit(e Event) {
	switch e.(type) {
	case Done:
		a.cfg.Emit(a.contextReport())
		a.cfg.Emit(e)
	case TurnFinished:
		a.cfg.Emit(e)
		a.cfg.Emit(a.contextReport())
	default:
		a.cfg.Emit(e)
	}
}

// requestMark builds the next provider request from the history and says
// how many history messages it carries.
func (a *Agent) requestMark() (Request, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	msgs := make([]Message, 0, len(a.history)+1)
	if a.cfg.System != "" {
		msgs = append(msgs, Message{Role: RoleSystem, Content: a.cfg.System})
	}
	for _, m := range a.history {
		// A turn cut off before any answer left its user message alone;
		// it joins the next one, marked, rather than being answered by a
		// filler the model would carry for nothing.
		if last := len(msgs) - 1; m.Role == RoleUser && last >= 0 && msgs[last].Role == RoleUser {
			msgs[last].Content += "\n\n" + UnansweredNote + "\n\n" + m.Content
			continue
		}
		msgs = append(msgs, m)
	}
	specs := make([]ToolSpec, 0, len(a.cfg.Tools.Tools()))
	for _, t := range a.cfg.Tools.Tools() {
		specs = append(specs, ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	}
	return Request{Model: a.cfg.Model, Messages: msgs, Tools: specs, MaxTokens: a.cfg.AnswerCap, OutputRoom: a.cfg.MaxOutputTokens,
		CacheKey: a.cfg.CacheKey}, len(a.history)
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
	a.forgetPromptUsageLocked()
	a.mu.Unlock()
	// Said here, where the message is known to exist, not by the caller
	// before it asked: "retrying" followed by "nothing to retry" misleads.
	a.emit(Notice{Source: a.cfg.Source, Level: NoticeInfo, Message: "retrying your last message: " + strconv.Quote(excerpt.Clip(excerpt.Line(prompt), 60))})
	return a.Run(ctx, prompt)
}
