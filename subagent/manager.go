// Package subagent implements the task tool: it spawns child agents, each
// with a clean history and the tools its definition allows, runs several at
// once under a shared cap, bounds them by turns and time, isolates their
// failures, and streams their progress as events tagged with the child's ID.
package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"covey/agent"
	"covey/agentdefs"
	"covey/permission"
	"covey/tools"
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
	Workspace   *tools.Workspace
	Locks       *tools.FileLocks
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
	// ResultCap bounds each child's result in bytes.
	ResultCap int
	// ReadOnly limits every child to read-only tools (plan mode).
	ReadOnly bool
	// AllowRead decides reads outside the workspace (see tools.Env).
	AllowRead func(abs string) bool
	// MCPTools, when set, returns the session's MCP tools as a source whose
	// calls ask gate, keeping those keep accepts (mcp.Manager.Source).
	MCPTools func(gate permission.Gate, keep func(tools.Tool) bool) tools.Source
	// WorktreeBase is what an isolated child's worktree starts from ("":
	// HEAD plus the user's uncommitted changes).
	WorktreeBase worktree.Base
	// SessionID names the session in the ownership record of a worktree.
	SessionID string
}

// Errors that end a child early, as context causes.
var (
	errCancelledByUser = errors.New(agent.CancelledResult)
	errTimedOut        = errors.New("timed out")
)

// Manager runs the children of one session. One Manager serves the task
// tools of every agent in the session, so the cap is shared.
type Manager struct {
	cfg Config
	seq atomic.Int64

	mu      sync.Mutex
	sems    map[int]chan struct{} // per depth, so parents never starve children
	running map[string]context.CancelCauseFunc
	usage   agent.Usage

	// The repository around the workspace, opened for the first isolated
	// child.
	repoOnce sync.Once
	repoVal  *worktree.Repo
	repoErr  error
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
		cfg.Locks = tools.NewFileLocks()
	}
	return &Manager{cfg: cfg, sems: map[int]chan struct{}{}, running: map[string]context.CancelCauseFunc{}}
}

// Tool returns the task tool for an agent whose events carry parent. It
// returns nil when that agent is too deep to spawn children.
func (m *Manager) Tool(parent agent.Source) tools.Tool {
	if parent.Depth >= m.cfg.MaxDepth {
		return nil
	}
	return &taskTool{m: m, parent: parent}
}

// Cancel cancels one running (or queued) child by its AgentID; its siblings
// go on and its parent receives "cancelled by the user" in its slot. It
// reports whether the child was found.
func (m *Manager) Cancel(agentID string) bool {
	m.mu.Lock()
	cancel, ok := m.running[agentID]
	m.mu.Unlock()
	if ok {
		cancel(errCancelledByUser)
	}
	return ok
}

// errNotYet marks crew controls still being built.
var errNotYet = errors.New("not yet")

// Send delivers text to a child by AgentID or name: a running child gets it
// before its next model request; a finished one is resumed in the
// background with its history plus the text.
func (m *Manager) Send(ctx context.Context, to, text string) error {
	return fmt.Errorf("send to %s: %w", to, errNotYet)
}

// Pause pauses (paused true) or resumes a running child. It reports whether
// the child was found running.
func (m *Manager) Pause(id string, paused bool) bool { return false }

// Background moves a running foreground child to the background. It reports
// whether the child was found running in the foreground.
func (m *Manager) Background(id string) bool { return false }

// Workspace returns the workspace children act in.
func (m *Manager) Workspace() *tools.Workspace { return m.cfg.Workspace }

// Running returns the IDs of the children running or queued now.
func (m *Manager) Running() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.running))
	for id := range m.running {
		ids = append(ids, id)
	}
	return ids
}

// Usage returns the tokens all children used so far.
func (m *Manager) Usage() agent.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage
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

func (m *Manager) register(id string, cancel context.CancelCauseFunc) {
	m.mu.Lock()
	m.running[id] = cancel
	m.mu.Unlock()
}

func (m *Manager) unregister(id string, u agent.Usage) {
	m.mu.Lock()
	delete(m.running, id)
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
