// Package session is the covey session both consumers drive (the TUI and
// headless mode): the workspace, the main agent and its children, the
// permission policy, the event stream, and the session file that records it
// (start, resume, record, reset, model switch, undo).
package session

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/agentdefs"
	"covey/config"
	"covey/hooks"
	"covey/internal/debuglog"
	"covey/internal/procmark"
	"covey/lsp"
	"covey/permission"
	"covey/plugins"
	"covey/sandbox"
	"covey/statusline"
	"covey/subagent"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/workspace"
	"covey/worktree"
)

// DefaultMaxTurns bounds the main agent's requests in one run.
const DefaultMaxTurns = 50

// Session wires one covey run: the workspace, the main agent, the children's
// manager and the event stream both consumers read. It implements ui.Engine.
type Session struct {
	// loadOnce runs Load; loadErr is its outcome.
	loadOnce      sync.Once
	loadErr       error
	modelFromFlag bool
	// prices price tokens for budgets, /cost and the json results: the
	// config's table, then the catalog's (config.PriceBook).
	prices agent.PriceBook
	cfg    config.Config
	ws     *workspace.Workspace
	scrub  []string // the variables commands do not get (covey's keys)
	// commandsTrusted says whether the project's hooks, status lines and
	// MCP servers run: the user trusted them as the session found them.
	commandsTrusted bool
	env             agent.Environment // in the prompts; Load puts a resumed session's start date in
	base            string            // the main agent's prompt before env (agent.SystemPrompt)
	defs            *agentdefs.Set
	problems        []agentdefs.Problem
	mode            permission.Mode
	endpoint        config.Endpoint

	log *debuglog.Log
	// status are the status lines of Claude Code's settings; version is
	// covey's, which they are told.
	status  statusline.Settings
	version string
	// plugins are Claude Code's installed plugins (the enabled ones'
	// commands, agents, skills, hooks and MCP servers are loaded).
	plugins []plugins.Plugin
	rec     *recording // nil without a session file (the demo)
	// children are the children's Sources, for journaling their requests.
	children childSources
	// memUndo is the undo log of a session without a file (the demo), in
	// a temporary folder that goes with the session.
	memUndo    *workspace.UndoLog
	memUndoDir string
	policy     *permission.Policy
	// sandbox confines every bash command of the session.
	sandbox *sandbox.Sandbox
	locks   *workspace.FileLocks
	events  chan agent.Event
	main    *agent.Agent
	manager *subagent.Manager
	driver  *subagent.Driver // runs main's turns, also those background results start
	todos   *tools.TodoList
	mcp     *mcpState  // nil without MCP (the demo)
	hooks   *hookState // nil without hooks (the demo)
	ext     *extensions
	temps   *workspace.TempJournal // this process's temporary files
	// cleaned is closed when what a killed covey left is cleaned up (once
	// cleanStarted).
	cleaned      chan struct{}
	cleanStarted atomic.Bool
	// shells are the background shells of every agent of the session.
	shells  *tools.Shells
	windows *windows // the context windows of the session's models
	// lsp runs the language servers every agent of the session shares.
	lsp *lsp.Manager
	// input is what the user's "!command"s leave for the next prompt.
	input userInput
	// cps are the checkpoints of /rewind.
	cps *checkpoints

	mu        sync.Mutex
	providers map[providerKey]agent.Provider
	// mainAPI is the wire of the main agent's model.
	mainAPI string
	// fixed, when set, serves every profile (the demo's scripted model).
	fixed agent.Provider
}

// Options are what a session is built from.
type Options struct {
	// Workspace is the folder the agents work in.
	Workspace string
	// Config is the merged configuration (the demo passes a zero Config).
	Config config.Config
	// Endpoint is the resolved main endpoint.
	Endpoint config.Endpoint
	// Provider, when set, serves every profile (the demo's scripted model).
	Provider agent.Provider
	// Asker answers permission questions (the TUI's approvals); nil
	// refuses what would need asking, with a note on how to allow it.
	Asker permission.Asker
	// Record keeps a session file (and undo log); the demo keeps none.
	Record bool
	// Continue reopens the newest session of the workspace; ResumeID a
	// given one (an ID or a unique prefix). Both need Record.
	Continue bool
	ResumeID string
	// Fork (with Continue or ResumeID) goes on in a copy of that session
	// with a new ID, leaving the original file as it is.
	Fork bool
	// DeferLoad leaves reading the resumed session to Load, so the TUI
	// draws its first frame before a large session is read.
	DeferLoad bool
	// PermissionMode, SandboxMode and MaxTurns override the config when
	// set.
	PermissionMode string
	SandboxMode    string
	MaxTurns       int
	// ModelFromFlag keeps a resumed session from bringing back its own
	// model when the user chose one on the command line.
	ModelFromFlag bool
	// Log is the --debug log (nil: none).
	Log *debuglog.Log
	// MCPConfigFiles are --mcp-config files: MCP servers the user trusts.
	MCPConfigFiles []string
	// NoMCP starts no MCP server (the demo must work anywhere).
	NoMCP bool
	// DeferMCPStart leaves the MCP servers for StartMCP (the TUI starts
	// them after its first frame).
	DeferMCPStart bool
	// Version is covey's version, as MCP servers are told it.
	Version string
	// NoHooks runs no hook (the demo must do what it shows).
	NoHooks bool
	// TrustProject trusts the project's hooks and MCP servers without
	// asking: the user trusted the folder (--trust-project, or the
	// trusted_folders of their config).
	TrustProject bool
	// Discovery is what the workspace brings, read before the trust
	// question (nil: read now).
	Discovery *Discovery
	// TrustedCommands is the hash of the project's commands the user
	// trusted (config.Trust's CommandsHash, when Trusted): they run when
	// what the session found hashes the same.
	TrustedCommands string
	// ReservedCommands are the built-in slash commands' names: a command
	// file of one of these names is not loaded (the built-in wins).
	ReservedCommands []string
}

// New builds a session for the workspace in opts.
func New(opts Options) (_ *Session, err error) {
	cfg := opts.Config
	ws, err := workspace.NewWorkspace(opts.Workspace)
	if err != nil {
		return nil, err
	}
	mode, err := permission.ParseMode(config.FirstNonEmpty(opts.PermissionMode, cfg.PermissionMode))
	if err != nil {
		return nil, err
	}
	d := opts.Discovery
	if d == nil || d.root != ws.Root {
		d = Discover(DiscoverOptions{Workspace: ws.Root, Config: cfg, ReservedCommands: opts.ReservedCommands, MCPConfigFiles: opts.MCPConfigFiles})
	}
	plugs, plugWarnings, defs := d.plugs, d.plugWarnings, d.defs
	problems := append(slices.Clip(d.problems), agentdefs.ModelProblems(defs, cfg.ModelAliases)...)
	s := &Session{
		cfg: cfg, ws: ws, defs: defs, problems: problems, mode: mode, endpoint: opts.Endpoint, log: opts.Log,
		env:       agent.DetectEnvironment(ws.Root, time.Now()),
		events:    make(chan agent.Event, 1024),
		todos:     tools.NewTodoList(),
		providers: map[providerKey]agent.Provider{},
		ext:       d.ext,
		plugins:   plugs,
		shells:    tools.NewShells(),
	}
	s.shells.Observe(s.shellEvent)
	if opts.Asker != nil {
		// Every question put to the user is journaled with its answer.
		opts.Asker = &journalAsker{s: s, next: opts.Asker}
	}
	s.ext.instructions(&s.env, ws.Root)
	s.ext.warnings = append(append(plugWarnings, s.ext.warnings...), s.ext.skillProblems(defs.All())...)
	s.ext.warnings = append(s.ext.warnings, s.ext.modelProblems(cfg.ModelAliases)...)
	for _, n := range s.ext.notes {
		s.log.Debugf("accepted as Claude Code accepts it: %s", n)
	}
	for _, p := range problems {
		if p.Quiet {
			s.log.Debugf("accepted as Claude Code accepts it: agent %s", p.Error())
		}
	}
	s.fixed = opts.Provider
	s.prices = cfg.PriceBook(opts.Endpoint)
	s.temps = workspace.NewTempJournal(tempDir())
	s.cleaned = make(chan struct{})
	if !opts.DeferMCPStart {
		s.cleanUp()
	} // else the TUI's first frame comes first: StartMCP starts it
	s.windows = newWindows(opts.Endpoint.Model)
	secrets := config.Secrets(cfg, opts.Endpoint, os.Getenv)
	opts.Log.SetSecrets(secrets)
	if opts.Record {
		s.rec, err = openRecording(ws.Root, opts, secrets)
		if err != nil {
			return nil, err
		}
	} else if s.memUndo, s.memUndoDir, err = openTempUndo(); err != nil {
		return nil, err
	} else {
		dir := s.memUndoDir
		defer func() {
			if err != nil {
				_ = os.RemoveAll(dir)
			}
		}()
	}
	s.setUpCheckpoints()
	rules, err := permission.ParseRules(cfg.Permissions.Allow, cfg.Permissions.Deny)
	if err != nil {
		return nil, fmt.Errorf("config permissions: %w", err)
	}
	sbCfg := cfg.Sandbox
	if opts.SandboxMode != "" {
		sbCfg.Mode = opts.SandboxMode
	}
	if !cfg.PassKeysToTools {
		s.scrub = config.KeyEnvNames(cfg)
	}
	box, err := sandbox.New(sbCfg, sandbox.Options{Scrub: s.scrub})
	if err != nil {
		s.rec.close(io.Discard)
		return nil, fmt.Errorf("config sandbox: %w", err)
	}
	s.sandbox = box
	var asker permission.Asker
	if opts.Asker != nil {
		asker = hookedAsker{s: s, next: opts.Asker}
	}
	s.policy = permission.NewPolicy(mode, rules, asker)
	s.policy.SetWorkspace(ws.Root)
	s.commandsTrusted = opts.TrustProject || (opts.TrustedCommands != "" && opts.TrustedCommands == d.CommandsHash())
	if !opts.NoMCP {
		if err := s.setUpMCP(opts, d); err != nil {
			s.rec.close(io.Discard)
			return nil, err
		}
	}
	s.version = opts.Version
	if !opts.NoHooks {
		s.status = d.status
		for _, p := range s.status.Problems {
			s.log.Debugf("status line: %s", p)
		}
		s.setUpHooks(d)
	}
	gate := s.policy
	locks := workspace.NewFileLocks()
	s.locks = locks
	s.lsp = lsp.NewManager(cfg.LSP)
	offline := sbCfg.Network != nil && !*sbCfg.Network
	webSearch := func(g permission.Gate) tool.Tool {
		return tools.NewWebSearch(tools.WebSearchConfig{Search: cfg.WebSearch, Gate: g, Offline: offline})
	}
	s.manager = subagent.NewManager(subagent.Config{
		Defs: defs, Workspace: ws, Locks: locks, Gate: gate, Environment: s.env,
		Resolve:      s.resolveChild,
		Emit:         s.emit,
		Concurrency:  cfg.Subagents.Concurrency,
		MaxDepth:     cfg.Subagents.MaxDepth,
		MaxTurns:     cfg.Subagents.MaxTurns,
		Timeout:      cfg.Subagents.Timeout,
		MaxTokens:    cfg.Subagents.MaxTokens,
		MaxCost:      cfg.Subagents.MaxCost,
		Judge:        cfg.Subagents.Judge,
		Check:        cfg.Subagents.Check,
		CheckTimeout: cfg.Subagents.CheckTimeout,
		LSP:          s.lsp,
		WebSearch:    webSearch,
		Cost:         s.prices.CostFunc(),
		// In plan mode children get read-only tools, until the mode changes.
		Planning:  func() bool { return s.policy.Mode() == permission.ModePlan },
		NoAskUser: cfg.AskUser == "deny",
		NoImages:  cfg.Vision != nil && !*cfg.Vision,
		// An agent file's permissionMode may exceed the session's only
		// when the user's config says so.
		RaiseAgentModes: cfg.AllowAgentModeRaise,
		AllowRead:       s.policy.AllowRead,
		FetchAnswer:     s.fetchAnswerer(),
		MCPTools:        s.mcpToolsFor(),
		AllowFound:      s.policy.AllowReadFound,
		ReadAlso:        func(abs string) bool { return s.ext.readAlso(abs) && !s.policy.ReadDenied(abs) },
		Skills:          s.ext.skillTool,
		Memory:          func() func(string) string { return s.ext.mem.Nested().OnRead },
		Sandbox:         box,
		Temps:           s.temps,
		WorktreeBase:    worktreeBase(cfg.Worktree.Base),
		Undo:            s.undoLog(),
		SessionID:       s.sessionID(),
		Hooks:           s.childHooks(),
		AutoCompact:     cfg.AutoCompact.Threshold(),
		Shells:          s.shells,
		Window:          s.childWindow,
		OnMessage: func(src agent.Source, m agent.Message) {
			if s.rec != nil {
				s.rec.childMessage(src, m)
			}
		},
	})
	env := &tools.Env{WS: ws, Reads: workspace.NewReadTracker(), Locks: locks, Gate: s.turnGate(), Todos: s.todos, Undo: s.undoLog(), NoImages: !s.TakesImages(),
		AllowRead: func(abs string) bool {
			return s.policy.AllowRead(abs) || (s.ext.readAlso(abs) && !s.policy.ReadDenied(abs))
		}, AllowFound: s.policy.AllowReadFound, Sandbox: box,
		OnRead: s.ext.onRead, Temps: s.temps, Shells: s.shells, Agent: agent.MainAgentID, LSP: s.lsp}
	reg := tool.NewRegistry()
	// Every tool of the main agent is wrapped so a slash command's turn
	// gets only its allowed-tools (scopedTool).
	// In plan mode the tools that change things are offered only once
	// the mode changes (an approved plan, a key), and exit_plan_mode only
	// while it holds.
	var writers []tool.Tool
	for _, t := range tools.Builtins(env) {
		if mode != permission.ModePlan || t.ReadOnly() {
			reg.Add(scopedTool{s.manager.Radar(t, agent.Source{AgentID: agent.MainAgentID}, ws.Root)})
		} else {
			writers = append(writers, scopedTool{s.manager.Radar(t, agent.Source{AgentID: agent.MainAgentID}, ws.Root)})
		}
	}
	for _, t := range tools.ShellTools(env) {
		if mode != permission.ModePlan {
			reg.Add(shellScoped{t})
		} else {
			writers = append(writers, shellScoped{t})
		}
	}
	planning := func() bool { return s.policy.Mode() == permission.ModePlan }
	if len(writers) > 0 {
		reg.AddSource(func() []tool.Tool {
			if planning() {
				return nil
			}
			return writers
		})
	}
	reg.Add(scopedTool{tools.NewAskUser(env.Gate, cfg.AskUser == "deny")})
	exitPlan := scopedTool{tools.NewExitPlanMode(tools.ExitPlanConfig{Gate: env.Gate, Mode: s.policy.Mode})}
	reg.AddSource(func() []tool.Tool {
		if !planning() {
			return nil
		}
		return []tool.Tool{exitPlan}
	})
	reg.Add(scopedTool{tools.NewWebFetch(tools.WebFetchConfig{Gate: env.Gate, Answer: s.fetchAnswerer(), AllowPrivate: tools.PrivateByRule(s.policy), NetworkOff: box.NetworkOff()})})
	if t := webSearch(env.Gate); t != nil {
		reg.Add(scopedTool{t})
	}
	if t := tools.NewLSP(env); t != nil {
		reg.Add(scopedTool{t})
	}
	if t := s.ext.skills.Tool(); t != nil {
		reg.Add(scopedTool{t})
	}
	if s.mcp != nil {
		reg.AddSource(scopeSource(s.mcpTools(nil, nil)))
	}
	if t := s.manager.Tool(agent.Source{AgentID: agent.MainAgentID}); t != nil {
		reg.Add(scopedTool{t})
		for _, ct := range s.manager.CrewTools(agent.Source{AgentID: agent.MainAgentID}) {
			reg.Add(scopedTool{ct})
		}
	}
	maxTurns := firstPositive(opts.MaxTurns, cfg.MaxTurns, DefaultMaxTurns)
	prov, api, err := s.provider(opts.Endpoint.Name, opts.Endpoint.Model)
	s.mainAPI = api
	if err != nil {
		s.rec.close(io.Discard)
		return nil, err
	}
	s.base = agent.BasePrompt
	if mode == permission.ModePlan {
		s.base += "\n\nYou are in plan mode: you can only read. Investigate, then present a numbered implementation plan with the exit_plan_mode tool for the user's approval; do not try to change anything before it is approved."
	}
	s.main = agent.New(agent.Config{
		Provider: prov, Model: opts.Endpoint.Model,
		// Today's date: Load puts a resumed session's start date in.
		System: agent.SystemPrompt(s.base, s.env),
		Tools:  reg, MaxTurns: maxTurns,
		Source: agent.Source{AgentID: agent.MainAgentID},
		Emit:   s.emit,
		Cost:   s.prices.CostFunc(),
		Hooks:  s.mainHooks(),
		OnMessage: func(m agent.Message) {
			if s.rec != nil {
				s.rec.message(m)
			}
		},
		AutoCompact:   cfg.AutoCompact.Threshold(),
		ContextWindow: cfg.ContextWindow,
		// The session's id names its conversation for the prompt cache,
		// across --continue too.
		CacheKey: s.sessionID(),
		CrewNote: func() string { return s.manager.CrewNote(agent.MainAgentID) },
		// The PreCompact hooks run before each of the main agent's
		// compactions.
		BeforeCompact: s.BeforeCompact,
	})
	s.rec.setNotify(func(n agent.Notice) { s.events <- n })
	s.modelFromFlag = opts.ModelFromFlag
	s.driver = s.manager.NewDriver(s.main, func() { s.undoLog().BeginTurnAs("the reply to a background report") })
	if !opts.DeferLoad {
		if err := s.Load(); err != nil {
			s.rec.close(io.Discard)
			return nil, err
		}
	}
	if s.hooks != nil {
		source := "startup"
		if s.rec != nil && s.rec.lock != nil {
			source = "resume"
		}
		go s.runSessionStart(source)
	}
	s.applyMainWindow(s.main.Model())
	s.windows.built.Store(true)
	return s, nil
}

// Load reads the resumed session (--continue, --resume) and puts its
// history in place; it does nothing for a new one. It runs once: later and
// concurrent calls wait for the first and return its error. New calls it
// unless Options.DeferLoad is set, in which case the TUI calls it after its
// first frame; every method that talks to the model calls it first, so
// nothing is sent before the history is in place.
func (s *Session) Load() error {
	if s.rec == nil {
		return nil
	}
	s.loadOnce.Do(func() {
		if s.loadErr = s.rec.open(); s.loadErr != nil {
			return
		}
		l := s.rec.loaded
		if l == nil {
			return // a new session
		}
		// The prompts carry the date the session started on, not
		// today's, so they are the first day's byte for byte and a
		// provider's prompt cache still holds their prefix. The header is
		// known only now (the TUI reads the file after its first frame),
		// so the prompt New built is replaced before anything is sent, and
		// before Restore builds the restored children's prompts.
		s.env.Date = s.rec.startDate(s.env.Date)
		s.main.SetSystem(agent.SystemPrompt(s.base, s.env))
		s.manager.SetEnvironment(s.env)
		s.rec.loadImages(l.Messages)
		for _, c := range l.Children {
			s.rec.loadImages(c.Messages)
		}
		s.main.SetHistory(l.Messages)
		if m := l.Model; m != "" && !s.modelFromFlag {
			s.setMainModel(m)
		}
		note := s.resumeOnWire(l.Wire)
		if note == "" {
			note = wireChanged(l.Messages, s.API()) // a file older than its wire's record
		}
		if note != "" {
			l.Warnings = append(l.Warnings, note)
		}
		s.manager.Restore(restoredChildren(l.Children))
		s.shells.SkipIDs(lastShell(l.Children))
	})
	return s.loadErr
}

// resumeOnWire puts the resumed main agent back on the wire its session
// was made on (rec, as the file recorded it) when the config now names
// another for the same model at the same base URL, and says so. It
// follows the config instead, and says that, when --api names the wire,
// or the model or base URL changed since (the recorded wire belongs to
// another endpoint). "" when nothing was recorded or nothing changed.
func (s *Session) resumeOnWire(rec sessionfile.Wire) string {
	now := s.API()
	if rec.API == "" || rec.API == now {
		return ""
	}
	model, base := s.main.Model(), s.endpoint.BaseURL
	notSent := "its earlier thinking is kept in the session file but not sent"
	switch {
	case s.endpoint.APIFlag != "":
		return fmt.Sprintf("this session was made on %s and now speaks %s (--api %s): %s",
			agent.WireName(rec.API), agent.WireName(now), s.endpoint.APIFlag, notSent)
	case rec.Model != model || (rec.BaseURL != "" && strings.TrimRight(rec.BaseURL, "/") != strings.TrimRight(base, "/")):
		return fmt.Sprintf("this session was made on %s (%s) and now speaks %s (%s), as the config says: %s",
			agent.WireName(rec.API), wireWhere(rec.Model, rec.BaseURL), agent.WireName(now), wireWhere(model, base), notSent)
	}
	if err := s.setMainModelOn(model, rec.API); err != nil {
		return fmt.Sprintf("this session was made on %s, which cannot be spoken now (%v): it goes on in %s", agent.WireName(rec.API), err, agent.WireName(now))
	}
	return fmt.Sprintf("this session was made on %s and goes on in it, though the config now names %s for %s (--api %s moves it there)",
		agent.WireName(rec.API), agent.WireName(now), model, now)
}

// wireWhere names a model and its base URL for a notice.
func wireWhere(model, base string) string {
	if base == "" {
		return model
	}
	return model + " at " + base
}

// wireChanged says, for a resumed history, that it was made on another
// wire than the one now in use (the config or --api changed it): its
// thinking or reasoning items, which only their own wire reads, are kept
// in the file but not sent. "" when nothing tells or nothing changed.
func wireChanged(history []agent.Message, now string) string {
	for i := len(history) - 1; i >= 0; i-- {
		n := history[i].Native
		if n == nil || n.API == "" {
			continue
		}
		if n.API == now {
			return ""
		}
		return fmt.Sprintf("this session was made on %s and now speaks %s (the config or --api changed the wire): "+
			"its earlier thinking is kept in the session file but not sent", agent.WireName(n.API), agent.WireName(now))
	}
	return ""
}

// tempDir holds the journals of temporary files (workspace.TempJournal).
func tempDir() string { return filepath.Join(StateDir(), "tmp-files") }

// cleanUp stops, in the background, the tool processes and removes the
// temporary files a killed covey left behind: their marks prove whose
// they were and that their covey is gone. It runs once.
func (s *Session) cleanUp() {
	if !s.cleanStarted.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer close(s.cleaned)
		if n, err := procmark.Reap(); n > 0 || err != nil {
			s.log.Errorf("stopped %d process(es) a killed covey left running: %v", n, err)
		}
		if gone, err := workspace.SweepTemps(tempDir()); len(gone) > 0 || err != nil {
			s.log.Errorf("removed temporary files a killed covey left: %v: %v", gone, err)
		}
	}()
}

// sessionID is the session file's ID, "" when nothing is recorded.
func (s *Session) sessionID() string {
	if s.rec == nil {
		return ""
	}
	return s.rec.id
}

func (s *Session) undoLog() *workspace.UndoLog {
	if s.rec == nil {
		return s.memUndo
	}
	return s.rec.undo
}

// openTempUndo opens an undo log in a temporary folder, for a session
// that keeps no file: the demo says a file it wrote can be undone.
func openTempUndo() (*workspace.UndoLog, string, error) {
	dir, err := os.MkdirTemp("", "covey-undo-")
	if err != nil {
		return nil, "", fmt.Errorf("undo log: %w", err)
	}
	u, err := workspace.OpenUndoLog(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, "", err
	}
	return u, dir, nil
}

// emit puts an event on the session stream. Consumers drain it promptly;
// a full buffer makes the producer wait rather than lose events.
func (s *Session) emit(e agent.Event) {
	s.noteWindow(e)
	s.children.note(e)
	s.log.Event(e)
	// A shell's output lines are for the panes: the session file keeps
	// its start and end, not a stream of what it printed.
	if _, output := e.(agent.ShellOutput); s.rec != nil && !output {
		s.rec.event(e)
	}
	s.events <- e
}

// providerKey names a provider: a profile spoken to in one wire.
type providerKey struct{ profile, api string }

// provider returns (building once) the provider of a profile for model,
// in the wire model is served by there, and that wire's name.
func (s *Session) provider(profile, model string) (agent.Provider, string, error) {
	return s.providerOn(profile, model, "")
}

// providerOn is provider on wire api ("": the one config names for
// model).
func (s *Session) providerOn(profile, model, api string) (agent.Provider, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ep := s.endpoint
	if profile != s.endpoint.Name {
		var err error
		ep, err = config.ResolveEndpoint(s.cfg, profile, config.Overrides{}, os.Getenv)
		if err != nil {
			return nil, "", err
		}
	}
	if api == "" {
		api = s.cfg.APIFor(ep, model, os.Getenv)
	}
	if s.fixed != nil {
		return s.fixed, api, nil
	}
	key := providerKey{profile, api}
	if p, ok := s.providers[key]; ok {
		return p, api, nil
	}
	p, err := agent.NewProvider(api, agent.OpenAIConfig{BaseURL: ep.BaseURL, APIKey: ep.APIKey, HTTPClient: &http.Client{}, IdleTimeout: s.cfg.StreamIdleTimeout,
		KeepAliveTimeout: s.cfg.StreamKeepAliveTimeout, Limits: s.cfg.StreamLimits,
		Reasoning: func(model string) agent.Reasoning { return s.cfg.ReasoningOf(ep.Name, model) }})
	if err != nil {
		return nil, api, err
	}
	s.providers[key] = p
	return p, api, nil
}

// resolveChild picks a child's provider and model: the definition's
// (Claude Code's sonnet, opus, haiku and full ids through config's
// model_aliases; one that nothing maps runs the parent's model), else
// subagent_provider / subagent_model from config, else the parent's. The
// provider speaks the wire the child's model is served by, which may not
// be its parent's.
func (s *Session) resolveChild(def agentdefs.Definition) (agent.Provider, string, error) {
	profile := config.FirstNonEmpty(def.Provider, s.cfg.SubagentProvider)
	model, unmapped := agentdefs.ResolveModel(def.Model, "", s.cfg.ModelAliases)
	if unmapped != "" {
		model = s.main.Model() // warned about once, at load
	}
	if model == "" && profile != "" && profile != s.endpoint.Name {
		if pp, ok := s.cfg.Providers[profile]; ok {
			model = pp.Model
		}
	}
	model = config.FirstNonEmpty(model, s.cfg.SubagentModel, s.main.Model())
	p, _, err := s.provider(config.FirstNonEmpty(profile, s.endpoint.Name), model)
	if err != nil {
		return nil, "", fmt.Errorf("provider for %s: %w", def.Name, err)
	}
	return p, model, nil
}

// Run runs one user turn of the main agent (ui.Engine). Each turn is one
// step of /undo.
func (s *Session) Run(ctx context.Context, prompt string) error {
	_, err := s.Prompt(ctx, prompt)
	return err
}

// Retry sends the last user turn again (ui.Engine).
func (s *Session) Retry(ctx context.Context) error {
	if err := s.Load(); err != nil {
		return err
	}
	s.mcpReady(ctx)
	s.waitWindow(ctx)
	s.undoLog().BeginTurnAs("the retry of your last message")
	// A slash command's turn is retried on its model and with its tools.
	ctx, model := s.ext.lastTurn(ctx)
	_, err := s.driver.RetryWithModel(ctx, model)
	return err
}

// Undo restores the files the last turn changed (ui.Engine).
func (s *Session) Undo(ctx context.Context) (string, error) {
	return undoTurn(ctx, s.undoLog(), s.locks)
}

// Compact summarises the main agent's conversation now (/compact), once
// any turn in progress has ended; focus steers the summary (ui.Engine).
func (s *Session) Compact(ctx context.Context, focus string) (agent.Compacted, error) {
	if err := s.Load(); err != nil {
		return agent.Compacted{}, err
	}
	return s.driver.Compact(ctx, focus)
}

// CancelChild cancels one child (ui.Engine).
// A background shell's id stops the shell.
func (s *Session) CancelChild(id string) bool {
	if _, ok := s.shells.Info(id); ok {
		return s.shells.Kill(id)
	}
	return s.manager.Cancel(id)
}

// SendToChild steers a running child or resumes a finished one (ui.Engine).
func (s *Session) SendToChild(ctx context.Context, id, text string) error {
	if err := s.Load(); err != nil {
		return err
	}
	return s.manager.Send(ctx, id, text)
}

// PauseChild pauses or resumes one child (ui.Engine).
func (s *Session) PauseChild(id string, paused bool) bool { return s.manager.Pause(id, paused) }

// BackgroundChild moves a foreground child to the background (ui.Engine).
func (s *Session) BackgroundChild(id string) bool { return s.manager.Background(id) }

// CancelTurn cancels a main-agent turn a background result started (ui.Engine).
func (s *Session) CancelTurn() bool { return s.driver.CancelTurn() }

// Reset starts a fresh conversation (ui.Engine).
func (s *Session) Reset() {
	_ = s.Load() // the file gets its clear after what it holds
	s.main.Reset()
	s.ext.resetNested()
	s.ext.setLastTurn(nil, "")
	if s.hooks != nil && s.hooks.runner.Has(hooks.SessionStart) {
		go s.runSessionStart("clear")
	}
	if s.rec != nil && s.rec.rec != nil {
		s.rec.rec.Clear()
	}
}

// Model is the main agent's model (ui.Engine).
func (s *Session) Model() string { return s.main.Model() }

// SetModel changes the main agent's model (ui.Engine).
func (s *Session) SetModel(m string) {
	_ = s.Load() // else the loaded model would override m
	s.setMainModel(m)
	s.applyMainWindow(m)
	if s.rec != nil && s.rec.rec != nil {
		s.rec.rec.SetWire(sessionfile.Wire{Model: m, API: s.API(), BaseURL: s.endpoint.BaseURL})
	}
}

// setMainModel puts the main agent on model m, in the wire m is served
// by; a wire that cannot be built keeps the provider it had (the next
// request says what is wrong).
func (s *Session) setMainModel(m string) {
	if err := s.setMainModelOn(m, ""); err != nil {
		s.log.Errorf("model %s: %v", m, err)
	}
}

// setMainModelOn is setMainModel on wire api ("": the one config names
// for m).
func (s *Session) setMainModelOn(m, api string) error {
	p, api, err := s.providerOn(s.endpoint.Name, m, api)
	s.main.SetModel(m)
	if err != nil {
		return err
	}
	s.main.SetProvider(p)
	s.mu.Lock()
	s.mainAPI = api
	s.mu.Unlock()
	return nil
}

// API is the wire the main agent speaks: chat, responses or anthropic
// (the welcome card and /model name it).
func (s *Session) API() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mainAPI
}

// Close stops every child and delivery, then ends the session's recording
// and tells the user on w how to come back to it.
func (s *Session) Close(w io.Writer) {
	s.cps.settle() // the last turn's end reaches the file
	s.endHooks("other")
	s.windows.stop()
	s.closeMCP()
	// Children stopping emit their last events; once the consumer is gone
	// (the TUI has quit) nobody reads them, so they are drained here (the
	// session file has them already).
	drained := make(chan struct{})
	go func() {
		for {
			select {
			case _, ok := <-s.events:
				if !ok {
					return
				}
			case <-drained:
				return
			}
		}
	}()
	s.driver.Close()
	s.manager.Close()
	s.lsp.Close()
	s.shells.Close()
	s.rec.setNotify(nil) // the last word goes to w
	close(drained)
	s.rec.close(w)
	if s.memUndoDir != "" {
		_ = os.RemoveAll(s.memUndoDir)
	}
	s.temps.Close()
	if s.cleanStarted.Load() {
		<-s.cleaned // a short run must not exit before the clean-up is done
	}
}

// restoredChildren converts the children a session file kept.
func restoredChildren(cs []sessionfile.Child) []subagent.Restored {
	out := make([]subagent.Restored, len(cs))
	for i, c := range cs {
		out[i] = subagent.Restored{Source: c.Source, Model: c.Model, Messages: c.Messages, Reason: c.Reason, Interrupted: c.Interrupted,
			Usage: c.Usage, Elapsed: c.Elapsed, Isolated: c.Isolated}
	}
	return out
}

// Events is the stream of everything the session's agents do, for one
// consumer to drain promptly.
func (s *Session) Events() <-chan agent.Event { return s.events }

// EndEvents stops every child and delivery and closes the event stream.
// Call it once, after the last run and Wait have returned; nothing emits
// after it.
func (s *Session) EndEvents() {
	s.cps.settle()
	s.endHooks("other")
	s.windows.stop()
	s.closeMCP()
	s.driver.Close()
	s.manager.Close()
	s.lsp.Close()
	s.shells.Close()
	s.rec.setNotify(nil)
	close(s.events)
}

// Prompt runs one user turn of the main agent and returns its result (the
// headless consumer's call; Run is the TUI's).
func (s *Session) Prompt(ctx context.Context, prompt string) (agent.Result, error) {
	if err := s.Load(); err != nil {
		return agent.Result{}, err
	}
	s.beginTurn(ctx, prompt)
	defer s.endTurn()
	if c, args, ok := s.ext.command(prompt); ok {
		return s.runCommand(ctx, prompt, c, args)
	}
	s.ext.setLastTurn(nil, "")
	s.mcpReady(ctx)
	prompt, err := s.submitPrompt(ctx, prompt)
	if err != nil {
		return agent.Result{Reason: agent.StopError}, err
	}
	typed := prompt
	if w := s.imageWord(prompt); w != "" && !s.TakesImages() {
		return agent.Result{Reason: agent.StopError}, fmt.Errorf("%s takes no images (vision: false in the config): send the message without %s", s.main.Model(), w)
	}
	prompt, imgs := s.withInputImages(ctx, prompt)
	ctx = agent.WithImages(ctx, imgs)
	s.waitWindow(ctx)
	s.undoLog().BeginTurnAs(undoLabel(typed))
	return s.driver.Run(ctx, prompt)
}

// Wait waits until no background child runs and no turn they started is
// left, and returns the last such turn's result (ok false when there was
// none): a headless run ends after the main agent has answered every
// background outcome.
func (s *Session) Wait(ctx context.Context) (res agent.Result, err error, ok bool) {
	return s.driver.Wait(ctx)
}

// InstructionsFile is the project instructions file loaded into every
// prompt (AGENTS.md or CLAUDE.md); "" when there is none.
func (s *Session) InstructionsFile() string { return s.env.InstructionsFile }

// Workspace is the root folder the agents work in.
func (s *Session) Workspace() string { return s.ws.Root }

// Mode is the permission mode the session started in.
func (s *Session) Mode() permission.Mode { return s.mode }

// Policy is the session's permission policy (the TUI cycles its mode and
// grants for the session).
func (s *Session) Policy() *permission.Policy { return s.policy }

// Prices is what prices the session's tokens: config's prices: table,
// then the catalog's vendor prices (cache reads and writes included).
func (s *Session) Prices() agent.PriceBook { return s.prices }

// Config is the configuration the session was built from.
func (s *Session) Config() config.Config { return s.cfg }

// Endpoint is the main agent's resolved endpoint.
func (s *Session) Endpoint() config.Endpoint { return s.endpoint }

// Definitions are the agent definitions children can be started from.
func (s *Session) Definitions() []agentdefs.Definition { return s.defs.All() }

// ModelAliases is config's model_aliases, for showing what agents resolve
// to.
func (s *Session) ModelAliases() map[string]string { return s.cfg.ModelAliases }

// SubagentModel is config's subagent_model: the model of children whose
// definition inherits ("" for the parent's).
func (s *Session) SubagentModel() string { return s.cfg.SubagentModel }

// Problems are what was wrong with the agent definition files, and the
// Claude model names in them that model_aliases does not map.
func (s *Session) Problems() []agentdefs.Problem { return agentdefs.Loud(s.problems) }

// Replay is a resumed session's history as events the TUI can draw (nil
// for a new session).
func (s *Session) Replay() []agent.Event { return s.rec.replay() }

// ResumeNote tells the user which session came back ("" for a new one).
func (s *Session) ResumeNote() string { return s.rec.resumeNote() }

// ResumeWarnings are the lines of the resumed session that loading
// skipped or repaired, as ResumeNote words them for the TUI; headless
// prints them on stderr.
func (s *Session) ResumeWarnings() []string {
	if s.rec == nil || s.rec.loaded == nil {
		return nil
	}
	return s.rec.loaded.Warnings
}

func firstPositive(ns ...int) int {
	for _, n := range ns {
		if n > 0 {
			return n
		}
	}
	return 0
}

// Warnings are what the user must be told once at start: covey's sandbox
// cannot run here; the project's .mcp.json could not be read.
func (s *Session) Warnings() []string {
	var out []string
	if w := s.sandbox.Warning(); w != "" {
		out = append(out, w)
	}
	for _, p := range s.HookProblems() {
		out = append(out, p+"; those hooks do not run")
	}
	out = append(out, s.ext.warnings...)
	out = append(out, s.cps.recovered...)
	return append(out, s.MCPProblems()...)
}

// Sandbox returns the sandbox confining the session's commands.
func (s *Session) Sandbox() *sandbox.Sandbox { return s.sandbox }

// worktreeBase is config's worktree.base, validated when the config was
// read (so an error cannot happen here: the default stands in).
func worktreeBase(s string) worktree.Base {
	b, err := worktree.ParseBase(s)
	if err != nil {
		return worktree.BaseWorking
	}
	return b
}
