package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"covey/agent"
	sessions "covey/agent/session"
	"covey/agentdefs"
	"covey/permission"
	"covey/subagent"
	"covey/tools"
	"covey/worktree"
)

// defaultMaxTurns bounds the main agent's requests in one run.
const defaultMaxTurns = 50

// session wires one covey run: the workspace, the main agent, the children's
// manager and the event stream both consumers read.
type session struct {
	cfg      Config
	ws       *tools.Workspace
	env      agent.Environment
	defs     *agentdefs.Set
	problems []agentdefs.Problem
	mode     permission.Mode
	endpoint Endpoint

	log     *debugLog
	rec     *recording // nil for the demo
	policy  *permission.Policy
	locks   *tools.FileLocks
	events  chan agent.Event
	main    *agent.Agent
	manager *subagent.Manager
	driver  *subagent.Driver // runs main's turns, also those background results start
	todos   *tools.TodoList

	mu        sync.Mutex
	providers map[string]agent.Provider // by profile name
	// fixed, when set, serves every profile (the demo's scripted model).
	fixed agent.Provider
}

// sessionDeps are what differs between a real run and the demo.
type sessionDeps struct {
	endpoint Endpoint
	// provider, when set, serves every profile (the demo's scripted model).
	provider agent.Provider
	// asker answers permission questions (the TUI's approvals); nil
	// refuses what would need asking, with a note on how to allow it.
	asker permission.Asker
	// record keeps a session file (and undo log); the demo keeps none.
	record bool
}

// newSession builds a session for the workspace at root.
func newSession(root string, cfg Config, opts options, deps sessionDeps) (*session, error) {
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		return nil, err
	}
	mode, err := parsePermissionMode(firstNonEmpty(opts.permissionMode, cfg.PermissionMode))
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	defs, problems := agentdefs.Load(agentdefs.LoadOptions{UserConfigDir: userConfigDir(), HomeDir: home, ProjectDir: ws.Root})
	s := &session{
		cfg: cfg, ws: ws, defs: defs, problems: problems, mode: mode, endpoint: deps.endpoint, log: opts.log,
		env:       agent.DetectEnvironment(ws.Root, time.Now()),
		events:    make(chan agent.Event, 1024),
		todos:     tools.NewTodoList(),
		providers: map[string]agent.Provider{},
	}
	s.fixed = deps.provider
	if deps.record {
		s.rec, err = openRecording(ws.Root, deps.endpoint.Model, opts, secretsOf(cfg, deps.endpoint, os.Getenv), opts.log)
		if err != nil {
			return nil, err
		}
	}
	rules, err := permission.ParseRules(cfg.Permissions.Allow, cfg.Permissions.Deny)
	if err != nil {
		return nil, fmt.Errorf("config permissions: %w", err)
	}
	s.policy = permission.NewPolicy(mode, rules, deps.asker)
	s.policy.SetWorkspace(ws.Root)
	gate := s.policy
	locks := tools.NewFileLocks()
	s.locks = locks
	s.manager = subagent.NewManager(subagent.Config{
		Defs: defs, Workspace: ws, Locks: locks, Gate: gate, Environment: s.env,
		Resolve:     s.resolveChild,
		Emit:        s.emit,
		Concurrency: cfg.Subagents.Concurrency,
		MaxDepth:    cfg.Subagents.MaxDepth,
		MaxTurns:    cfg.Subagents.MaxTurns,
		Timeout:     cfg.Subagents.Timeout,
		ReadOnly:    mode == permission.ModePlan,
		AllowRead:   s.policy.AllowRead,
		// Validated when the config was read.
		WorktreeBase: worktree.Base(strings.ToLower(cfg.Worktree.Base)),
		Undo:         s.undoLog(),
		SessionID:    s.sessionID(),
		OnMessage: func(src agent.Source, m agent.Message) {
			if s.rec != nil {
				s.rec.childMessage(src, m)
			}
		},
	})
	env := &tools.Env{WS: ws, Reads: tools.NewReadTracker(), Locks: locks, Gate: gate, Todos: s.todos, Undo: s.undoLog(), AllowRead: s.policy.AllowRead}
	reg := tools.NewRegistry()
	for _, t := range tools.Builtins(env) {
		if mode != permission.ModePlan || t.ReadOnly() {
			reg.Add(t)
		}
	}
	if t := s.manager.Tool(agent.Source{AgentID: agent.MainAgentID}); t != nil {
		reg.Add(t)
		for _, ct := range s.manager.CrewTools(agent.Source{AgentID: agent.MainAgentID}) {
			reg.Add(ct)
		}
	}
	maxTurns := firstPositive(opts.maxTurns, cfg.MaxTurns, defaultMaxTurns)
	prov, err := s.provider(deps.endpoint.Name)
	if err != nil {
		return nil, err
	}
	base := agent.BasePrompt
	if mode == permission.ModePlan {
		base += "\n\nYou are in plan mode: you can only read. Investigate, then answer with a numbered implementation plan; do not try to change anything."
	}
	s.main = agent.New(agent.Config{
		Provider: prov, Model: deps.endpoint.Model,
		System: agent.SystemPrompt(base, s.env),
		Tools:  reg, MaxTurns: maxTurns,
		Source: agent.Source{AgentID: agent.MainAgentID},
		Emit:   s.emit,
		OnMessage: func(m agent.Message) {
			if s.rec != nil {
				s.rec.message(m)
			}
		},
	})
	if s.rec != nil && s.rec.loaded != nil {
		s.main.SetHistory(s.rec.loaded.Messages)
		if m := s.rec.loaded.Model; m != "" && opts.flags.model == "" {
			s.main.SetModel(m)
		}
	}
	if s.rec != nil && s.rec.loaded != nil {
		s.manager.Restore(restoredChildren(s.rec.loaded.Children))
	}
	s.driver = s.manager.NewDriver(s.main, func() { s.undoLog().BeginTurn() })
	return s, nil
}

// sessionID is the session file's ID, "" when nothing is recorded.
func (s *session) sessionID() string {
	if s.rec == nil || s.rec.rec == nil {
		return ""
	}
	return s.rec.rec.ID()
}

func (s *session) undoLog() *tools.UndoLog {
	if s.rec == nil {
		return nil
	}
	return s.rec.undo
}

// emit puts an event on the session stream. Consumers drain it promptly;
// a full buffer makes the producer wait rather than lose events.
func (s *session) emit(e agent.Event) {
	s.log.event(e)
	if s.rec != nil {
		s.rec.rec.Event(e)
	}
	s.events <- e
}

// provider returns (building once) the provider of a profile.
func (s *session) provider(profile string) (agent.Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fixed != nil {
		return s.fixed, nil
	}
	if p, ok := s.providers[profile]; ok {
		return p, nil
	}
	ep := s.endpoint
	if profile != s.endpoint.Name {
		var err error
		ep, err = resolveEndpoint(s.cfg, profile, flagOverrides{}, os.Getenv)
		if err != nil {
			return nil, err
		}
	}
	p := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: ep.BaseURL, APIKey: ep.APIKey, HTTPClient: &http.Client{}})
	s.providers[profile] = p
	return p, nil
}

// resolveChild picks a child's provider and model: the definition's, else
// subagent_provider / subagent_model from config, else the parent's.
func (s *session) resolveChild(def agentdefs.Definition) (agent.Provider, string, error) {
	profile := firstNonEmpty(def.Provider, s.cfg.SubagentProvider)
	// "" resolves to "" (inherit), and so do Claude names nothing maps.
	model := def.ResolveModel("", nil)
	p, err := s.provider(firstNonEmpty(profile, s.endpoint.Name))
	if err != nil {
		return nil, "", fmt.Errorf("provider for %s: %w", def.Name, err)
	}
	if model == "" && profile != "" && profile != s.endpoint.Name {
		if pp, ok := s.cfg.Providers[profile]; ok {
			model = pp.Model
		}
	}
	model = firstNonEmpty(model, s.cfg.SubagentModel, s.main.Model())
	return p, model, nil
}

// Run runs one user turn of the main agent (ui.Engine). Each turn is one
// step of /undo.
func (s *session) Run(ctx context.Context, prompt string) error {
	s.undoLog().BeginTurn()
	_, err := s.driver.Run(ctx, prompt)
	return err
}

// Retry sends the last user turn again (ui.Engine).
func (s *session) Retry(ctx context.Context) error {
	s.undoLog().BeginTurn()
	_, err := s.driver.Retry(ctx)
	return err
}

// Undo restores the files the last turn changed (ui.Engine).
func (s *session) Undo(ctx context.Context) (string, error) {
	if s.rec == nil {
		return "", errors.New("undo is not kept in the demo")
	}
	return s.rec.undoTurn(ctx, s.locks)
}

// CancelChild cancels one child (ui.Engine).
func (s *session) CancelChild(id string) bool { return s.manager.Cancel(id) }

// SendToChild steers a running child or resumes a finished one (ui.Engine).
func (s *session) SendToChild(ctx context.Context, id, text string) error {
	return s.manager.Send(ctx, id, text)
}

// PauseChild pauses or resumes one child (ui.Engine).
func (s *session) PauseChild(id string, paused bool) bool { return s.manager.Pause(id, paused) }

// BackgroundChild moves a foreground child to the background (ui.Engine).
func (s *session) BackgroundChild(id string) bool { return s.manager.Background(id) }

// CancelTurn cancels a main-agent turn a background result started (ui.Engine).
func (s *session) CancelTurn() bool { return s.driver.CancelTurn() }

// Reset starts a fresh conversation (ui.Engine).
func (s *session) Reset() {
	s.main.Reset()
	if s.rec != nil {
		s.rec.rec.Clear()
	}
}

// Model is the main agent's model (ui.Engine).
func (s *session) Model() string { return s.main.Model() }

// SetModel changes the main agent's model (ui.Engine).
func (s *session) SetModel(m string) {
	s.main.SetModel(m)
	if s.rec != nil {
		s.rec.rec.SetModel(m)
	}
}

// close stops every child and delivery, then ends the session's recording.
func (s *session) close(stderr io.Writer) {
	s.driver.Close()
	s.manager.Close()
	s.rec.close(stderr)
}

// restoredChildren converts the children a session file kept.
func restoredChildren(cs []sessions.Child) []subagent.Restored {
	out := make([]subagent.Restored, len(cs))
	for i, c := range cs {
		out[i] = subagent.Restored{Source: c.Source, Model: c.Model, Messages: c.Messages, Reason: c.Reason, Interrupted: c.Interrupted}
	}
	return out
}

func parsePermissionMode(s string) (permission.Mode, error) { return permission.ParseMode(s) }

func firstPositive(ns ...int) int {
	for _, n := range ns {
		if n > 0 {
			return n
		}
	}
	return 0
}
