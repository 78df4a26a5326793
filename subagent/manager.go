// Package subagent implements the task tool: it spawns child agents, each
// with a clean history and the tools its definition allows, runs several at
// once under a shared cap, bounds them by turns, time, tokens and cost,
// isolates their failures, and streams their progress as events tagged with
// the child's ID and name. Children run in the foreground (the task call
// waits) or the background (the call returns at once and the outcome comes
// back to the parent later as a user-role message); they can be steered,
// paused, resumed, moved to the background and stopped.
package subagent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"covey/agent"
	"covey/agentdefs"
	"covey/hooks"
	"covey/lsp"
	"covey/permission"
	"covey/sandbox"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/workspace"
	"covey/worktree"
)

// Defaults of the limits in Config.
const (
	DefaultConcurrency = 4
	DefaultMaxDepth    = 1
	DefaultResultCap   = 32 << 10
)

// Resolver chooses the provider and model of a child from its definition:
// the definition's model and provider, else the configured subagent model and
// provider, else the parent's.
type Resolver func(def agentdefs.Definition) (agent.Provider, string, error)

// Config configures the children of one session.
type Config struct {
	Defs        *agentdefs.Set
	Workspace   *workspace.Workspace
	Locks       *workspace.FileLocks
	Gate        permission.Gate
	Environment agent.Environment
	Resolve     Resolver
	// Emit receives every child's events (the session's one stream).
	Emit agent.Emitter
	// Concurrency caps the children running at once at one nesting level;
	// more queue. MaxDepth is how many levels may exist (1: only the main
	// agent spawns).
	Concurrency int
	MaxDepth    int
	// MaxTurns and Timeout are the defaults for definitions that set none.
	MaxTurns int
	Timeout  time.Duration
	// MaxTokens and MaxCost are the default budgets for definitions that
	// set none; 0 means no budget.
	MaxTokens int
	MaxCost   float64
	// Cost prices a request's usage on a model (see agent.Prices.Cost); nil
	// prices nothing, and cost budgets then never trigger.
	Cost func(model string, u agent.Usage) float64
	// ResultCap bounds each child's result in bytes.
	ResultCap int
	// ReadOnly limits every child to read-only tools (plan mode).
	ReadOnly bool
	// Planning, when set, reports whether the session is in plan mode
	// now: a child started meanwhile gets read-only tools, as ReadOnly.
	Planning func() bool
	// NoAskUser keeps ask_user from the children (config ask_user: deny):
	// its calls are refused.
	NoAskUser bool
	// NoImages says the models take no images (config vision: false):
	// the children's read_file refuses an image, saying so.
	NoImages bool
	// RaiseAgentModes lets an agent file's permissionMode be more
	// permissive than the session's mode (config opts in); otherwise the
	// session's mode caps it.
	RaiseAgentModes bool
	// AllowRead decides reads outside the workspace (see tools.Env).
	AllowRead func(abs string) bool
	// AllowFound decides reads of files a search found (see tools.Env).
	AllowFound func(abs string) bool
	// Sandbox confines the children's bash commands (see tools.Env).
	Sandbox *sandbox.Sandbox
	// ReadAlso, when set, admits reads the policy does not: the files of
	// skills' folders (read-only, wherever they are).
	ReadAlso func(abs string) bool
	// Skills, when set, returns the skill tool offering the skills named
	// (an agent file's skills:), nil when none of them exists.
	Skills func(names []string) tool.Tool
	// Memory, when set, returns a fresh tracker of the memory files that
	// join a child's context when it first reads a file in their folder
	// (tools.Env.OnRead).
	Memory func() func(abs string) string
	// Temps lists the temporary files of the children's writes (see
	// workspace.TempJournal).
	Temps *workspace.TempJournal
	// MCPTools, when set, returns the session's MCP tools as a source whose
	// calls ask gate, keeping those keep accepts (mcp.Manager.Source).
	MCPTools func(gate permission.Gate, keep func(tool.Tool) bool) tool.Source
	// FetchAnswer answers web_fetch prompts with the fetch model (nil: the
	// page itself is returned).
	FetchAnswer tools.PageAnswerer
	// OnMessage, when set, receives every message entering a child's
	// history, with the child's Source (the session file keeps them, so a
	// finished child can be resumed after a restart).
	OnMessage func(agent.Source, agent.Message)
	// WorktreeBase is what an isolated child's worktree starts from ("":
	// HEAD plus the user's uncommitted changes).
	WorktreeBase worktree.Base
	// SessionID names the session in the ownership record of a worktree.
	SessionID string
	// Undo, when set, keeps the files a worktree merge changes, so /undo
	// takes the merge back with the rest of the turn.
	Undo *workspace.UndoLog
	// AutoCompact and BeforeCompact are each child's (agent.Config's):
	// a child compacts against its own model's window, with its own crew.
	AutoCompact   float64
	BeforeCompact func(ctx context.Context, trigger, focus string) (string, error)
	// Hooks binds the user's hooks to each child (nil: none).
	Hooks Hooks
	// Shells runs the session's background shells; a child offered bash
	// may start them, and those still running when it ends are stopped.
	Shells *tools.Shells
	// Judge is the agent type that picks one attempt of a best-of-N task
	// when nobody can be asked; "" keeps them all.
	Judge string
	// Check is the command run in each finished attempt's worktree of a
	// best-of-N task (subagents.check; a task's own check wins): its
	// result is shown beside the attempt's diff and given to the judge.
	Check string
	// CheckTimeout bounds a check (default 5m).
	CheckTimeout time.Duration
	// LSP runs the language servers: a child's edits get their
	// diagnostics, and a child allowed it gets the lsp tool.
	LSP *lsp.Manager
	// WebSearch, when set, returns the web_search tool asking gate (nil
	// when no backend is configured).
	WebSearch func(gate permission.Gate) tool.Tool
	// Window, when set, tells a child's context window and output budget
	// in tokens from its provider and model, where the window came from
	// (see agent.Config.ContextWindowFrom) and the answer cap the user set
	// for the model (agent.Config.AnswerCap); a child compacts and
	// sizes its tool results by its own model's window. It may wait
	// briefly for a server to say it.
	Window func(p agent.Provider, model string) agent.Limits
}

// Hooks binds the user's hooks to children: the session's, plus a
// definition's own hooks for its children only.
type Hooks interface {
	// Bind returns the hooks of a child of type def asking gate; nil for
	// none.
	Bind(def agentdefs.Definition, src agent.Source, gate permission.Gate) *hooks.Binding
	// Starting runs the SubagentStart hooks of a child about to start and
	// returns what they add to its prompt.
	Starting(ctx context.Context, b *hooks.Binding) string
}

// Errors that end a child early, as context causes, and errors of the crew
// controls.
var (
	errCancelledByUser = errors.New(agent.CancelledResult)
	errTimedOut        = errors.New("timed out")
	errShutdown        = errors.New("covey is shutting down")
	errStopped         = errors.New("stopped by its parent (stop_agent)")
	// ErrNoChild reports a name or ID that names no child of the session.
	ErrNoChild = errors.New("no such child")
)

// Manager runs the children of one session. One Manager serves the task
// tools of every agent in the session, so the cap is shared.
type Manager struct {
	cfg Config
	seq atomic.Int64
	// byUser counts the children the user started by name.
	byUser atomic.Int64
	wg     sync.WaitGroup // every child goroutine

	// envMu guards cfg.Environment, which SetEnvironment may change
	// after NewManager (a resumed session's start date).
	envMu sync.Mutex

	mu       sync.Mutex
	sems     map[int]chan struct{}   // per depth, so parents never starve children
	children map[string]*child       // every child of the session, by AgentID
	order    []string                // AgentIDs in spawn order
	names    map[string]string       // name -> AgentID
	inboxes  map[string]*Inbox       // by parent AgentID
	tops     map[string]*agent.Agent // agents a Driver serves (the main agent), for forks
	usage    agent.Usage
	closed   bool
	files    *fileWatcher // made on first use
	// radar is the collision radar (radar.go); mainBusy says the main
	// agent is in a turn.
	radar    radar
	mainBusy atomic.Bool

	// The repository around the workspace, opened for the first isolated
	// child, and the worktrees of isolated children opened as
	// repositories for their own isolated children, by folder.
	repoOnce sync.Once
	repoVal  *worktree.Repo
	repoErr  error
	repoMu   sync.Mutex
	subRepos map[string]*worktree.Repo
}

// SetEnvironment replaces the environment of the children started from
// now on (and of those Restore brings back): a resumed session learns its
// start date only once its file is read, after NewManager.
func (m *Manager) SetEnvironment(env agent.Environment) {
	m.envMu.Lock()
	m.cfg.Environment = env
	m.envMu.Unlock()
}

// Environment is the environment the system prompts of the children
// started from now on describe.
func (m *Manager) Environment() agent.Environment {
	m.envMu.Lock()
	defer m.envMu.Unlock()
	return m.cfg.Environment
}

// NewManager returns a Manager, filling unset limits with defaults.
func NewManager(cfg Config) *Manager {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = DefaultMaxDepth
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = agentdefs.DefaultMaxTurns
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = agentdefs.DefaultTimeout
	}
	if cfg.ResultCap <= 0 {
		cfg.ResultCap = DefaultResultCap
	}
	if cfg.Emit == nil {
		cfg.Emit = func(agent.Event) {}
	}
	if cfg.Locks == nil {
		cfg.Locks = workspace.NewFileLocks()
	}
	return &Manager{
		cfg: cfg, sems: map[int]chan struct{}{}, children: map[string]*child{},
		names: map[string]string{}, inboxes: map[string]*Inbox{}, tops: map[string]*agent.Agent{},
	}
}

// Tool returns the task tool for an agent whose events carry parent. It
// returns nil when that agent is too deep to spawn children.
func (m *Manager) Tool(parent agent.Source) tool.Tool {
	return m.toolFor(parent, nil)
}

// toolFor is Tool for an agent limited to spawning the types in spawn (nil:
// any type).
func (m *Manager) toolFor(parent agent.Source, spawn []string) tool.Tool {
	if parent.Depth >= m.cfg.MaxDepth {
		return nil
	}
	return &taskTool{m: m, parent: parent, spawn: spawn}
}

// CrewTools returns the crew tools (send_message, stop_agent, crew_status)
// of the agent whose events carry parent: they reach that agent's own
// descendants.
func (m *Manager) CrewTools(parent agent.Source) []tool.Tool {
	return []tool.Tool{&sendTool{m: m, from: parent}, &stopTool{m: m, from: parent}, &statusTool{m: m, from: parent}}
}

// Cancel cancels one running (or queued) child by its AgentID or name; its
// siblings go on and its parent receives "cancelled by the user" in its
// slot (or as a message, for a background child). It reports whether a
// running child was found.
func (m *Manager) Cancel(id string) bool {
	c := m.lookup(id)
	if c == nil || !c.isRunning() {
		return false
	}
	c.cancelRun(errCancelledByUser)
	return true
}

// Send delivers text to a child by AgentID or name: a running child gets it
// as a user-role message before its next model request (a ChildMessage
// event shows it); a finished one is resumed in the background with its
// whole history plus the text, and its outcome comes back to its parent as
// a message.
func (m *Manager) Send(ctx context.Context, to, text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("empty message")
	}
	c := m.lookup(to)
	if c == nil {
		return fmt.Errorf("send to %q: %w", to, ErrNoChild)
	}
	return c.send(ctx, text)
}

// Pause pauses (paused true) or resumes a running child: its current model
// request or tool call completes, no new one starts, and its elapsed time
// stops. It reports whether the child was found running.
func (m *Manager) Pause(id string, paused bool) bool {
	c := m.lookup(id)
	if c == nil {
		return false
	}
	return c.setPaused(paused)
}

// Background moves a running foreground child to the background: its
// parent's pending task call completes with a note naming it, and its
// outcome comes back later as a message. It reports whether the child was
// found running in the foreground.
func (m *Manager) Background(id string) bool {
	c := m.lookup(id)
	if c == nil {
		return false
	}
	return c.toBackground("moved to the background by the user")
}

// Inbox returns the inbox of the agent with AgentID parentID: where the
// outcomes of its background children arrive.
func (m *Manager) Inbox(parentID string) *Inbox {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inboxLocked(parentID)
}

func (m *Manager) inboxLocked(parentID string) *Inbox {
	in, ok := m.inboxes[parentID]
	if !ok {
		in = newInbox()
		m.inboxes[parentID] = in
	}
	return in
}

// Close cancels every running child and waits until all have stopped.
// Background outcomes that arrive meanwhile stay in their inboxes.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	var running []*child
	for _, c := range m.children {
		running = append(running, c)
	}
	m.mu.Unlock()
	for _, c := range running {
		c.cancelRun(errShutdown)
	}
	m.wg.Wait()
}

// Workspace returns the workspace children act in.
func (m *Manager) Workspace() *workspace.Workspace { return m.cfg.Workspace }

// Running returns the IDs of the children running or queued now.
func (m *Manager) Running() []string {
	m.mu.Lock()
	list := make([]*child, 0, len(m.order))
	for _, id := range m.order {
		list = append(list, m.children[id])
	}
	m.mu.Unlock()
	var ids []string
	for _, c := range list {
		if c.isRunning() {
			ids = append(ids, c.src.AgentID)
		}
	}
	return ids
}

// Usage returns the tokens all children used so far.
func (m *Manager) Usage() agent.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage
}

// lookup finds a child by AgentID or name.
func (m *Manager) lookup(idOrName string) *child {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.children[idOrName]; ok {
		return c
	}
	if id, ok := m.names[idOrName]; ok {
		return m.children[id]
	}
	return nil
}

// isDescendant reports whether c descends from the agent with AgentID
// ancestor.
func (m *Manager) isDescendant(c *child, ancestor string) bool {
	if ancestor == agent.MainAgentID {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for p := c.parentID; p != ""; {
		if p == ancestor {
			return true
		}
		pc, ok := m.children[p]
		if !ok {
			return false
		}
		p = pc.parentID
	}
	return false
}

// deliveryTarget is where a background outcome for parentID goes: the
// parent itself while it runs (or the main agent, always there), else its
// nearest running ancestor, else the main agent. A child resumed after its
// parent finished thus still reports to someone who reads it.
func (m *Manager) deliveryTarget(parentID string) string {
	for id := parentID; ; {
		if id == agent.MainAgentID || id == "" {
			return agent.MainAgentID
		}
		m.mu.Lock()
		p, ok := m.children[id]
		m.mu.Unlock()
		if !ok {
			return agent.MainAgentID
		}
		if p.isRunning() {
			return id
		}
		id = p.parentID
	}
}

func (m *Manager) sem(depth int) chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sems[depth]
	if !ok {
		s = make(chan struct{}, m.cfg.Concurrency)
		m.sems[depth] = s
	}
	return s
}

// register adds a new child under a unique name: the one asked for, or one
// made from its description. It fails when the name asked for is taken.
func (m *Manager) register(c *child, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errShutdown
	}
	if name != "" {
		if _, taken := m.names[name]; taken {
			return fmt.Errorf("the name %q is taken by another child of this session: choose another name, or omit name to get one", name)
		}
		if _, isID := m.children[name]; isID {
			return fmt.Errorf("the name %q is another child's ID: choose another name", name)
		}
	} else {
		base, whole := slug(c.spec.Description)
		c.src.NameIsDescription = whole
		if base == "" {
			base, _ = slug(c.def.Name)
		}
		name = base
		for n := 2; ; n++ {
			_, taken := m.names[name]
			_, isID := m.children[name]
			if !taken && !isID {
				break
			}
			name = fmt.Sprintf("%s-%d", base, n)
		}
	}
	c.src.Name = name
	m.names[name] = c.src.AgentID
	m.children[c.src.AgentID] = c
	m.order = append(m.order, c.src.AgentID)
	return nil
}

// unregister removes a child that never started.
func (m *Manager) unregister(c *child) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.children, c.src.AgentID)
	delete(m.names, c.src.Name)
	m.order = slices.DeleteFunc(m.order, func(id string) bool { return id == c.src.AgentID })
}

func (m *Manager) addUsage(u agent.Usage) {
	m.mu.Lock()
	m.usage.Add(u)
	m.mu.Unlock()
}

// newID returns a child ID that reads well in logs: "explore-3".
func (m *Manager) newID(agentType string) string {
	n := m.seq.Add(1)
	t := strings.ToLower(strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' {
			return '-'
		}
		return r
	}, agentType))
	return fmt.Sprintf("%s-%d", t, n)
}

// NameFrom is the handle a child without a name gets from its
// description (see slug), and whether that handle holds all of the
// description's meaning.
func NameFrom(description string) (name string, whole bool) { return slug(description) }

// slug makes a short handle from the meaning of a description: its first
// three words that are not stop words, "Find the auth code" -> "find-auth-
// code", so a name never ends on a dangling "and" or "the". whole reports
// that the handle holds every such word of the description, so showing
// both would say the same thing twice.
func slug(s string) (name string, whole bool) {
	var words []string
	whole = true
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if stopWords[w] {
			continue
		}
		if r := []rune(w); len(words) == 0 && len(r) > maxSlugLen {
			return string(r[:maxSlugLen]), false
		}
		if len(words) == maxSlugWords || slugLen(words)+1+len(w) > maxSlugLen {
			whole = false
			break
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return "", false
	}
	return strings.Join(words, "-"), whole
}

const (
	maxSlugWords = 3
	maxSlugLen   = 24
)

func slugLen(words []string) int {
	n := 0
	for _, w := range words {
		n += len(w) + 1
	}
	return n - 1
}

// stopWords carry no meaning in a handle.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true,
	"for": true, "to": true, "in": true, "on": true, "at": true, "by": true,
	"with": true, "from": true, "into": true, "its": true, "it": true,
	"is": true, "are": true, "be": true, "this": true, "that": true,
	"these": true, "those": true, "all": true, "any": true, "some": true,
	"our": true, "my": true, "their": true, "what": true, "which": true,
	"where": true, "how": true, "as": true, "about": true, "then": true,
}
