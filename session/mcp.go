package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"covey/agent"
	"covey/config"
	"covey/mcp"
	"covey/permission"
	"covey/tools"
	"covey/tools/tool"
)

// DefaultMCPStartupGrace is how long the TUI's first request waits for MCP
// servers still starting.
const DefaultMCPStartupGrace = 2 * time.Second

// fetchPageLimit bounds the page text the fetch model reads.
const fetchPageLimit = 200 << 10

// mcpState is the session's MCP side.
type mcpState struct {
	m           *mcp.Manager
	loaded      mcp.Loaded
	interactive bool // someone can be asked (the TUI)
	grace       time.Duration
	readyOnce   sync.Once
	startOnce   sync.Once

	mu     sync.Mutex
	closed bool // no more events: the stream is closing
}

// StateDir is covey's folder under XDG_STATE_HOME (default
// ~/.local/state): MCP trust answers and server logs live there.
func StateDir() string { return config.StateDir() }

// setUpMCP reads the MCP servers of every source and starts those that may
// start, in the background; nothing here waits for a server.
func (s *Session) setUpMCP(opts Options, d *Discovery) error {
	if d.mcpErr != nil {
		return d.mcpErr
	}
	loaded := d.mcp
	st := &mcpState{
		loaded:      loaded,
		interactive: opts.Asker != nil,
		grace:       s.cfg.MCPStartupGrace,
	}
	if st.grace <= 0 {
		st.grace = DefaultMCPStartupGrace
	}
	trusted := s.commandsTrusted
	outputCap := 0
	tokens := s.cfg.MCPMaxOutputTokens
	if tokens <= 0 {
		// Claude Code's variable, for users who bring their setup.
		tokens, _ = strconv.Atoi(os.Getenv("MAX_MCP_OUTPUT_TOKENS"))
	}
	if tokens > 0 {
		outputCap = tokens * 4 // about four bytes a token
	}
	var startup time.Duration
	if ms, err := strconv.Atoi(os.Getenv("MCP_TIMEOUT")); err == nil && ms > 0 {
		startup = time.Duration(ms) * time.Millisecond
	}
	st.m = mcp.NewManager(loaded.Servers, mcp.Options{
		Version:   opts.Version,
		Dir:       s.ws.Root,
		LogDir:    MCPLogDir(),
		Gate:      s.policy,
		OutputCap: outputCap,
		// MCP_TIMEOUT (milliseconds), as Claude Code reads it.
		StartupTimeout: startup,
		TrustProject:   trusted,
		Scrub:          s.scrub,
		Changed:        d.changedServerScript,
		OnChange:       s.mcpChanged,
	})
	s.mcp = st
	if !opts.DeferMCPStart {
		s.StartMCP()
	}
	return nil
}

// LoadMCP reads the MCP servers of every source: the project's .mcp.json
// and config file, the user's config and the --mcp-config files.
func LoadMCP(root string, cfg config.Config, files []string) (mcp.Loaded, error) {
	user, _ := config.Paths(root)
	return mcp.Load(mcp.Sources{
		Workspace: root,
		User:      cfg.MCPServers, UserSource: user,
		Project: cfg.ProjectMCPServers, ProjectSource: filepath.Join(".covey", "config.yaml"),
		Files: files,
	})
}

// MCPLogDir holds one stderr log per stdio MCP server.
func MCPLogDir() string { return filepath.Join(StateDir(), "mcp-logs") }

// StartMCP starts the MCP servers in the background, once; later calls do
// nothing. The TUI calls it after its first frame (DeferMCPStart); the
// first request calls it anyway. With DeferMCPStart it also starts the
// clean-up of what a killed covey left behind, so that waits for the first
// frame too.
func (s *Session) StartMCP() {
	s.cleanUp()
	if s.mcp == nil {
		return
	}
	s.mcp.startOnce.Do(func() { s.mcp.m.Start(context.Background()) })
}

// MCPProblems are what was wrong with the project's .mcp.json (its
// servers were not started).
func (s *Session) MCPProblems() []string {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.loaded.Problems
}

// mcpChanged turns a server's change into an event on the stream.
func (s *Session) mcpChanged(st mcp.Status) {
	if s.mcp == nil {
		return
	}
	s.mcp.mu.Lock()
	defer s.mcp.mu.Unlock()
	if s.mcp.closed {
		return
	}
	s.emit(agent.MCPStatus{Source: agent.Source{AgentID: agent.MainAgentID}, Server: st.Name, State: string(st.State),
		Tools: len(st.Tools), Error: st.Err, Notes: st.Notes})
}

// mcpTools are the MCP tools an agent is offered, asking gate, kept by
// keep: in plan mode only those an allow rule names.
func (s *Session) mcpTools(gate permission.Gate, keep func(tool.Tool) bool) tool.Source {
	return tool.FilterSource(s.mcp.m.Source(gate, keep), func(t tool.Tool) bool {
		return s.policy.Mode() != permission.ModePlan || s.policy.PlanOffers(t.Name())
	})
}

// mcpToolsFor is the children's source of MCP tools (nil without MCP).
func (s *Session) mcpToolsFor() func(permission.Gate, func(tool.Tool) bool) tool.Source {
	if s.mcp == nil {
		return nil
	}
	return s.mcpTools
}

// mcpReady is called before a turn's first request: the TUI waits at most
// the grace for servers still starting (they join later otherwise); a
// headless run waits until each has connected or failed, so a script sees
// every tool.
func (s *Session) mcpReady(ctx context.Context) {
	if s.mcp == nil {
		return
	}
	s.StartMCP()
	s.mcp.readyOnce.Do(func() {
		if s.mcp.interactive {
			s.mcp.m.WaitGrace(ctx, s.mcp.grace)
			return
		}
		_ = s.mcp.m.Wait(ctx)
	})
}

// closeMCP stops every server (and its process group); no MCP event is
// emitted after it.
func (s *Session) closeMCP() {
	if s.mcp == nil {
		return
	}
	s.mcp.mu.Lock()
	s.mcp.closed = true
	s.mcp.mu.Unlock()
	s.mcp.m.Close()
}

// MCPServers is a snapshot of every configured MCP server (screens.MCPEngine).
func (s *Session) MCPServers() []mcp.Status {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.m.Statuses()
}

// ReconnectMCP restarts one MCP server (screens.MCPEngine).
func (s *Session) ReconnectMCP(name string) error {
	if s.mcp == nil {
		return fmt.Errorf("no MCP server named %q", name)
	}
	return s.mcp.m.Reconnect(context.Background(), name)
}

// TrustProjectMCP starts the project's MCP servers the user had not
// trusted, for the rest of this session (screens.MCPEngine). It is not
// remembered: the start-up question is the one that is.
func (s *Session) TrustProjectMCP() error {
	if s.mcp == nil || len(s.mcp.m.Untrusted()) == 0 {
		return errors.New("no project MCP server waits for your trust")
	}
	s.StartMCP()
	s.mcp.m.Trust(context.Background())
	return nil
}

// WaitMCP waits until every MCP server that may start has connected or
// failed (each bounded by its startup_timeout).
func (s *Session) WaitMCP(ctx context.Context) error {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.m.Wait(ctx)
}

// SkippedMCP names the project servers left off because the user has not
// trusted them (a headless run cannot ask).
func (s *Session) SkippedMCP() []string {
	if s.mcp == nil {
		return nil
	}
	var out []string
	for _, srv := range s.mcp.m.Untrusted() {
		out = append(out, srv.Name)
	}
	return out
}

// answerFetch answers web_fetch's prompt over a page with the configured
// fetch_model, on the main endpoint.
func (s *Session) answerFetch(ctx context.Context, prompt, pageURL, page string) (string, error) {
	prov, _, err := s.provider(s.endpoint.Name, s.cfg.FetchModel)
	if err != nil {
		return "", err
	}
	if len(page) > fetchPageLimit {
		page = page[:fetchPageLimit] + "\n\n[the page goes on; only its beginning is shown]"
	}
	req := agent.Request{Model: s.cfg.FetchModel, Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "You answer a question about one web page, from its content alone. Be concise and exact; quote code and numbers as they are. Say so when the page does not answer it."},
		{Role: agent.RoleUser, Content: fmt.Sprintf("Page: %s\n\n<page>\n%s\n</page>\n\nQuestion: %s", pageURL, page, prompt)},
	}}
	comp, err := prov.Stream(ctx, req, agent.StreamHandler{})
	if err != nil {
		return "", err
	}
	answer := strings.TrimSpace(comp.Message.Content)
	if answer == "" {
		return "", fmt.Errorf("%s gave an empty answer", s.cfg.FetchModel)
	}
	return fmt.Sprintf("%s\n\n(answered by %s from %s)", answer, s.cfg.FetchModel, pageURL), nil
}

// fetchAnswerer is answerFetch when a fetch_model is configured.
func (s *Session) fetchAnswerer() tools.PageAnswerer {
	if s.cfg.FetchModel == "" {
		return nil
	}
	return s.answerFetch
}
