package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"covey/tools/tool"

	"covey/permission"
)

// State is where a server is in its life.
type State string

// The states of a server.
const (
	// StateStarting: connecting and listing tools.
	StateStarting State = "starting"
	// StateConnected: its tools are offered.
	StateConnected State = "connected"
	// StateFailed: it could not start, or it stopped; Status.Err says why.
	StateFailed State = "failed"
	// StateUntrusted: a project server the user has not approved; it is
	// not started.
	StateUntrusted State = "untrusted"
	// StateStopped: covey stopped it (on exit).
	StateStopped State = "stopped"
)

// ToolInfo describes one tool a server offers.
type ToolInfo struct {
	Name        string `json:"name"`   // as offered to the model: mcp__srv__tool
	Remote      string `json:"remote"` // as the server calls it
	Description string `json:"description,omitempty"`
}

// Status is a snapshot of one server, for /mcp and `covey mcp list`.
type Status struct {
	Name    string     `json:"name"`
	Scope   Scope      `json:"scope"`
	Source  string     `json:"source"`
	Type    string     `json:"type"`
	State   State      `json:"state"`
	Tools   []ToolInfo `json:"tools"`
	Err     string     `json:"error,omitempty"`
	Stderr  []string   `json:"stderr,omitempty"` // the last lines it wrote
	LogPath string     `json:"log,omitempty"`    // its stderr log (stdio)
	// Notes are things the user should know that are not failures, such as
	// a renamed tool after a name collision.
	Notes []string `json:"notes,omitempty"`
}

// Options configure a Manager.
type Options struct {
	// Version is reported to servers as covey's version.
	Version string
	// Dir is the working directory of stdio servers (the workspace root).
	Dir string
	// LogDir receives one stderr log per stdio server; "" uses a temporary
	// folder.
	LogDir string
	// Gate decides each call (nil allows every call).
	Gate permission.Gate
	// OutputCap bounds a result's text in bytes (default DefaultOutputCap).
	OutputCap int
	// OnChange is called (from a background goroutine) whenever a server's
	// state or tools change. It must not block for long.
	OnChange func(Status)
	// Getenv looks up variables for ${VAR} expansion (default os.LookupEnv)
	// and stdio servers inherit the process environment.
	Getenv func(string) (string, bool)
	// Scrub names the environment variables stdio servers do not inherit
	// (covey's own API keys, as bash does not get them), nor a project's
	// server reads through ${VAR}.
	Scrub []string
	// Changed, when set, names a workspace script a project server runs
	// that changed since the user trusted it ("" when none did): such a
	// server does not start, nor start again after a crash.
	Changed func(Server) string
	// TrustProject starts project servers at once; otherwise they wait in
	// StateUntrusted for Trust.
	TrustProject bool
	// StartupTimeout replaces DefaultStartupTimeout for servers that set
	// none (Claude Code's MCP_TIMEOUT).
	StartupTimeout time.Duration
	// Connect, when set, replaces how a server's transport is made (tests
	// use in-memory transports).
	Connect func(ctx context.Context, s Server) (sdk.Transport, error)
}

// DefaultOutputCap is the default bound of one result: about 25k tokens.
const DefaultOutputCap = 100_000

// stderrTailLines is how many of a server's last stderr lines are kept for
// /mcp and error messages.
const stderrTailLines = 20

// Manager runs a session's MCP servers and offers their tools. It is safe
// for concurrent use.
type Manager struct {
	opts Options

	mu      sync.Mutex
	servers []*server // sorted by name
	names   *nameSet
	version int         // bumps whenever the offered tools change
	connSeq int         // counts connections, for the order of tools
	cached  []tool.Tool // the offered tools at cachedV
	cachedV int
	closed  bool
	wg      sync.WaitGroup
	changed chan struct{} // closed and replaced on every change
	// pending are OnChange reports not yet delivered; one goroutine at a
	// time delivers them, in order.
	pending    []Status
	delivering bool
}

// server is one configured server and its live connection.
type server struct {
	cfg   Server
	state State
	err   string
	tools []*Tool
	notes []string

	session *sdk.ClientSession
	stop    func() // ends the connection (and its process group)
	cancel  func() // abandons the connection attempt under way
	abort   func() // kills the process of an attempt under way (stdio)
	gen     int    // connection generation: stale goroutines ignore themselves
	// connected orders the servers' tools by when each server connected,
	// so one that connects late adds its tools after those already
	// offered instead of reordering them (a provider's prompt cache keys
	// on the request's bytes).
	connected int
	logPath   string
	tail      *tailWriter
	stdout    *stdoutHead // the first bytes of a stdio server's stdout

	progress map[string]func(tool.Progress) // by progress token
}

// NewManager returns a manager of servers; nothing starts until Start.
func NewManager(servers []Server, opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = os.LookupEnv
	}
	if opts.OutputCap <= 0 {
		opts.OutputCap = DefaultOutputCap
	}
	m := &Manager{opts: opts, names: newNameSet(), changed: make(chan struct{})}
	for _, s := range servers {
		st := StateStarting
		if s.Scope == ScopeProject && !opts.TrustProject {
			st = StateUntrusted
		}
		m.servers = append(m.servers, &server{cfg: s, state: st, tail: newTailWriter(stderrTailLines), stdout: &stdoutHead{}, progress: map[string]func(tool.Progress){}})
	}
	slices.SortFunc(m.servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	return m
}

// Start connects every server that may start, each in its own goroutine,
// and returns at once.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.state == StateStarting {
			m.startLocked(ctx, s)
		}
	}
}

// Trust starts the project servers waiting for the user's approval.
func (m *Manager) Trust(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.state == StateUntrusted {
			s.state = StateStarting
			m.startLocked(ctx, s)
		}
	}
}

// Reconnect stops the named server if it runs and connects it again.
func (m *Manager) Reconnect(ctx context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.find(name)
	if s == nil {
		return fmt.Errorf("no MCP server named %q", name)
	}
	if s.state == StateUntrusted {
		return fmt.Errorf("MCP server %q is a project server that is not trusted yet", name)
	}
	if s.stop != nil {
		go s.stop()
		s.stop, s.session = nil, nil
	}
	s.state, s.err, s.tools = StateStarting, "", nil
	m.version++ // its old tools are offered no more
	m.startLocked(ctx, s)
	return nil
}

func (m *Manager) find(name string) *server {
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

// startLocked launches the connection of s in the background.
func (m *Manager) startLocked(ctx context.Context, s *server) {
	if m.closed {
		return
	}
	s.gen++
	gen := s.gen
	if s.cancel != nil {
		s.cancel()
	}
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	m.notifyLocked(s)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		// cctx lives as long as this connection: Close or a reconnect
		// cancels it.
		m.connect(cctx, s, gen)
	}()
}

// connect runs one connection attempt of s, generation gen.
func (m *Manager) connect(ctx context.Context, s *server, gen int) {
	cfg := s.cfg
	if cfg.Scope == ScopeProject && m.opts.Changed != nil {
		if changed := m.opts.Changed(cfg); changed != "" {
			m.fail(s, gen, changed+" changed since you trusted this project's servers; the server does not start (restart covey to be asked again)")
			return
		}
	}
	getenv := m.opts.Getenv
	if cfg.Scope == ScopeProject && len(m.opts.Scrub) > 0 {
		// A repository's server does not name its way to the user's key.
		getenv = func(name string) (string, bool) {
			if slices.Contains(m.opts.Scrub, name) {
				return "", false
			}
			return m.opts.Getenv(name)
		}
	}
	expanded, err := Expand(cfg.Name, cfg.Config, getenv)
	if err != nil {
		m.fail(s, gen, err.Error())
		return
	}
	cfg.Config = expanded
	timeout := cfg.Config.startupTimeout()
	if cfg.Config.StartupTimeout == 0 && m.opts.StartupTimeout > 0 {
		timeout = m.opts.StartupTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var transport sdk.Transport
	var stopProc func()
	var saw401 func() bool
	if m.opts.Connect != nil {
		transport, err = m.opts.Connect(cctx, cfg)
	} else {
		transport, stopProc, saw401, err = m.transport(ctx, cfg, s)
	}
	if err != nil {
		m.fail(s, gen, err.Error())
		return
	}
	if stopProc != nil {
		m.mu.Lock()
		s.abort = stopProc
		m.mu.Unlock()
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "covey", Version: m.opts.Version}, &sdk.ClientOptions{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		ToolListChangedHandler: func(ctx context.Context, _ *sdk.ToolListChangedRequest) {
			go m.refresh(context.WithoutCancel(ctx), s, gen)
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			m.progress(s, req.Params)
		},
	})
	cs, err := client.Connect(cctx, transport, nil)
	if err == nil {
		var ts []*sdk.Tool
		ts, err = listTools(cctx, cs)
		if err == nil {
			m.connected(s, gen, cs, stopProc, ts)
			return
		}
		_ = cs.Close()
	}
	if stopProc != nil {
		stopProc()
	}
	m.fail(s, gen, m.describeStartErr(cfg, s, err, cctx, timeout, saw401))
}

// stdoutSettle bounds the wait for a failed stdio server's stdout to end
// (a helper it left running outside its group may hold it open).
const stdoutSettle = 2 * time.Second

// describeStartErr explains why a server did not start, plainly.
func (m *Manager) describeStartErr(cfg Server, s *server, err error, ctx context.Context, timeout time.Duration, saw401 func() bool) string {
	if cfg.Config.TransportType() == TypeStdio {
		// The server was stopped: its stdout ends now, and what it wrote
		// (a banner before it exited) is read in full before it is judged.
		s.stdout.settle(stdoutSettle)
	}
	var msg string
	switch {
	case saw401 != nil && saw401():
		msg = "the server answered 401 Unauthorized: it wants OAuth sign-in, which covey does not support yet; " +
			"if it takes a token, pass it in \"headers\" (e.g. \"Authorization\": \"Bearer ${TOKEN}\")"
	case cfg.Config.TransportType() == TypeStdio && s.stdout.notJSONRPC() != "":
		// stdout is the protocol's channel: a banner or a log line there
		// breaks it, and the server may well still be running.
		msg = "the server wrote something that is not JSON-RPC on stdout (MCP's channel; logs belong on stderr): " + s.stdout.notJSONRPC()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		msg = fmt.Sprintf("did not start within %s (startup_timeout); it may still be installing or waiting for input", timeout)
	case cfg.Config.TransportType() == TypeStdio && exitedEarly(err):
		msg = "the server exited before it answered"
	default:
		msg = err.Error()
	}
	if last := s.tail.lines(); len(last) > 0 {
		msg += "; its last stderr line: " + last[len(last)-1]
	}
	return msg
}

// exitedEarly reports whether a start failed because the server's process
// went away (its pipes closed) rather than for a protocol reason.
func exitedEarly(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "broken pipe") || strings.Contains(s, "connection closed") || strings.Contains(s, "file already closed")
}

// listTools pages through the server's tools.
func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	if cs.InitializeResult() != nil && cs.InitializeResult().Capabilities != nil && cs.InitializeResult().Capabilities.Tools == nil {
		return nil, nil
	}
	var out []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// connected records a live connection and watches for its end.
func (m *Manager) connected(s *server, gen int, cs *sdk.ClientSession, stopProc func(), ts []*sdk.Tool) {
	stop := func() {
		_ = cs.Close()
		if stopProc != nil {
			stopProc()
		}
	}
	m.mu.Lock()
	if s.gen != gen || m.closed {
		m.mu.Unlock()
		stop()
		return
	}
	s.session, s.stop, s.state, s.err = cs, stop, StateConnected, ""
	m.connSeq++
	s.connected = m.connSeq
	m.setToolsLocked(s, ts)
	m.notifyLocked(s)
	m.mu.Unlock()

	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		werr := cs.Wait()
		m.mu.Lock()
		defer m.mu.Unlock()
		if s.gen != gen || s.session != cs || m.closed {
			return
		}
		reason := "the server stopped"
		if werr != nil && !errors.Is(werr, sdk.ErrConnectionClosed) {
			reason += ": " + werr.Error()
		}
		if last := s.tail.lines(); len(last) > 0 {
			reason += "; its last stderr line: " + last[len(last)-1]
		}
		s.session, s.state, s.err = nil, StateFailed, reason
		s.tools = nil
		m.version++
		go stop()
		s.stop = nil
		m.notifyLocked(s)
	}()
}

// refresh lists the tools of s again after a tools/list_changed.
func (m *Manager) refresh(ctx context.Context, s *server, gen int) {
	m.mu.Lock()
	cs := s.session
	timeout := s.cfg.Config.startupTimeout()
	m.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ts, err := listTools(ctx, cs)
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.gen != gen || s.session != cs {
		return
	}
	if err != nil {
		s.notes = append(s.notes, "refreshing its tools failed: "+err.Error())
		m.notifyLocked(s)
		return
	}
	m.setToolsLocked(s, ts)
	m.notifyLocked(s)
}

// setToolsLocked turns the server's tool list into covey tools.
func (m *Manager) setToolsLocked(s *server, ts []*sdk.Tool) {
	before := len(m.names.collisions)
	s.tools = make([]*Tool, 0, len(ts))
	for _, t := range ts {
		if t == nil || t.Name == "" {
			continue
		}
		s.tools = append(s.tools, newTool(m, s.cfg, m.names.claim(s.cfg.Name, t.Name), t))
	}
	s.notes = append(s.notes, m.names.collisions[before:]...)
	m.version++
}

// fail records a failed start of s.
func (m *Manager) fail(s *server, gen int, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.gen != gen || m.closed {
		return
	}
	s.state, s.err, s.tools, s.session = StateFailed, reason, nil, nil
	m.version++
	m.notifyLocked(s)
}

// notifyLocked reports a change of s to OnChange and wakes waiters.
func (m *Manager) notifyLocked(s *server) {
	close(m.changed)
	m.changed = make(chan struct{})
	if m.opts.OnChange == nil {
		return
	}
	m.pending = append(m.pending, s.status())
	if !m.delivering {
		m.delivering = true
		m.wg.Add(1)
		go m.deliver()
	}
}

// deliver hands the pending reports to OnChange in order, outside the lock.
func (m *Manager) deliver() {
	defer m.wg.Done()
	for {
		m.mu.Lock()
		if len(m.pending) == 0 {
			m.delivering = false
			m.mu.Unlock()
			return
		}
		st := m.pending[0]
		m.pending = m.pending[1:]
		m.mu.Unlock()
		m.opts.OnChange(st)
	}
}

// progress routes a progress notification to the call that asked for it;
// a late one (its call already returned) is dropped.
func (m *Manager) progress(s *server, p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	tok := fmt.Sprint(p.ProgressToken)
	m.mu.Lock()
	fn := s.progress[tok]
	m.mu.Unlock()
	if fn != nil {
		fn(tool.Progress{Message: p.Message, Progress: p.Progress, Total: p.Total})
	}
}

func (s *server) status() Status {
	st := Status{
		Name: s.cfg.Name, Scope: s.cfg.Scope, Source: s.cfg.Source, Type: s.cfg.Config.TransportType(),
		State: s.state, Err: s.err, LogPath: s.logPath, Stderr: s.tail.lines(),
		Notes: slices.Clone(s.notes),
		Tools: make([]ToolInfo, 0, len(s.tools)),
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, ToolInfo{Name: t.name, Remote: t.remote, Description: t.desc})
	}
	return st
}

// Statuses returns a snapshot of every server, sorted by name.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

// Pending reports how many servers are still starting.
func (m *Manager) Pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, s := range m.servers {
		if s.state == StateStarting {
			n++
		}
	}
	return n
}

// Wait blocks until no server is starting (each is bounded by its
// startup_timeout) or ctx ends.
func (m *Manager) Wait(ctx context.Context) error {
	for {
		m.mu.Lock()
		ch := m.changed
		busy := false
		for _, s := range m.servers {
			busy = busy || s.state == StateStarting
		}
		m.mu.Unlock()
		if !busy {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitGrace waits up to grace for servers still starting; those not ready
// by then join later, for a later request.
func (m *Manager) WaitGrace(ctx context.Context, grace time.Duration) {
	if grace <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	_ = m.Wait(ctx)
}

// Tools returns the tools of every connected server, in server then
// server-order. The slice is shared until the tools change; do not modify
// it.
func (m *Manager) Tools() []tool.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cached != nil && m.cachedV == m.version {
		return m.cached
	}
	out := make([]tool.Tool, 0, len(m.cached))
	var live []*server
	for _, s := range m.servers {
		if s.state == StateConnected {
			live = append(live, s)
		}
	}
	sort.SliceStable(live, func(i, j int) bool { return live[i].connected < live[j].connected })
	for _, s := range live {
		for _, t := range s.tools {
			out = append(out, t)
		}
	}
	m.cached, m.cachedV = out, m.version
	return out
}

// Source returns the manager's tools as a tool.Source whose calls ask
// gate instead of the manager's (a child's gate labels its requests), each
// kept only when keep accepts it (nil keeps all). keep is asked again
// whenever the tools change; the views are cached until then.
func (m *Manager) Source(gate permission.Gate, keep func(tool.Tool) bool) tool.Source {
	var mu sync.Mutex
	var cached []tool.Tool
	var base []tool.Tool
	return func() []tool.Tool {
		all := m.Tools()
		mu.Lock()
		defer mu.Unlock()
		if cached != nil && len(all) == len(base) && (len(all) == 0 || &all[0] == &base[0]) {
			return cached
		}
		out := make([]tool.Tool, 0, len(all))
		for _, t := range all {
			if keep != nil && !keep(t) {
				continue
			}
			if mt, ok := t.(*Tool); ok && gate != nil {
				view := *mt
				view.gate = gate
				t = &view
			}
			out = append(out, t)
		}
		cached, base = out, all
		return out
	}
}

// Close stops every server (and each stdio server's process group) and
// waits for them. The manager cannot start servers afterwards.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	var stops []func()
	for _, s := range m.servers {
		if s.cancel != nil {
			s.cancel() // a server still starting is abandoned at once
		}
		if s.state == StateStarting && s.abort != nil {
			stops = append(stops, s.abort) // and its process killed, not waited for
		}
		if s.stop != nil {
			stops = append(stops, s.stop)
		}
		s.stop, s.session = nil, nil
		if s.state == StateConnected || s.state == StateStarting {
			s.state = StateStopped
		}
		s.gen++
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, stop := range stops {
		wg.Add(1)
		go func() { defer wg.Done(); stop() }()
	}
	wg.Wait()
	m.wg.Wait()
}

// logPathFor returns the stderr log of a server.
func (m *Manager) logPathFor(name string) (string, error) {
	dir := m.opts.LogDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "covey-mcp-logs")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("MCP log folder: %w", err)
	}
	return filepath.Join(dir, sanitize(name)+".log"), nil
}
