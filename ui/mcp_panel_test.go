package ui

import (
	"errors"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/mcp"
	"covey/tools/tool"
	"covey/ui/screens"
)

// mcpFakeEngine is a fakeEngine with MCP servers.
type mcpFakeEngine struct {
	*fakeEngine
	mu         sync.Mutex
	servers    []mcp.Status
	reconnects []string
	trusted    int
}

func (f *mcpFakeEngine) TrustProjectMCP() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trusted++
	for i := range f.servers {
		if f.servers[i].State == mcp.StateUntrusted {
			f.servers[i].State = mcp.StateStarting
		}
	}
	return nil
}

func (f *mcpFakeEngine) MCPServers() []mcp.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mcp.Status(nil), f.servers...)
}

func (f *mcpFakeEngine) ReconnectMCP(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reconnects = append(f.reconnects, name)
	if name == "ghost" {
		return errors.New("no MCP server named \"ghost\"")
	}
	return nil
}

func newMCPHarness(t *testing.T) (*harness, *mcpFakeEngine) {
	h := newHarness(t, 100, 30)
	eng := &mcpFakeEngine{fakeEngine: h.eng, servers: []mcp.Status{
		{Name: "everything", Type: "stdio", Scope: mcp.ScopeUser, State: mcp.StateConnected,
			Tools: []mcp.ToolInfo{{Name: "mcp__everything__echo"}, {Name: "mcp__everything__add"}}, LogPath: "/tmp/everything.log"},
		{Name: "flaky", Type: "stdio", Scope: mcp.ScopeProject, State: mcp.StateFailed,
			Err: "the server stopped; its last stderr line: Error: Cannot find module 'x'", Stderr: []string{"node:internal/modules", "Error: Cannot find module 'x'"}},
		{Name: "remote", Type: "http", Scope: mcp.ScopeFlag, State: mcp.StateStarting},
		{Name: "repo", Type: "stdio", Scope: mcp.ScopeProject, State: mcp.StateUntrusted},
	}}
	h.m.engine = eng
	return h, eng
}

// TestMCPPanel drives the MCP panel through the root: /mcp opens it, its
// keys reach the engine, a status event shows the servers afresh, the
// panel's outcome (MCPChanged) refreshes it, and esc leaves it. The
// panel's own rows and keys are tested in ui/screens.
func TestMCPPanel(t *testing.T) {
	h, eng := newMCPHarness(t)
	h.typeText("/mcp")
	h.key(tea.KeyEnter)
	if h.m.scr != screens.Screen(h.m.mp) {
		t.Fatalf("/mcp did not open the MCP screen (screen %T)", h.m.scr)
	}
	if !h.screenContains("MCP servers · 4 · 1 failed") {
		t.Errorf("the panel does not show the engine's servers:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	// Select flaky and reconnect it.
	h.key(tea.KeyDown)
	h.typeText("r")
	msg := awaitType(h, "screens.mcpReconnectedMsg")
	h.send(msg)
	if len(eng.reconnects) != 1 || eng.reconnects[0] != "flaky" {
		t.Fatalf("reconnected %v, want [flaky]", eng.reconnects)
	}
	if !h.screenContains("reconnecting flaky") {
		t.Errorf("no reconnect note:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	// A status event refreshes the screen.
	eng.mu.Lock()
	eng.servers[1].State, eng.servers[1].Err, eng.servers[1].Tools = mcp.StateConnected, "", []mcp.ToolInfo{{Name: "mcp__flaky__x"}}
	eng.mu.Unlock()
	h.events(agent.MCPStatus{Source: mainSrc(), Server: "flaky", State: "connected", Tools: 1})
	if !h.screenContains("flaky  connected · 1 tool ") {
		t.Errorf("the screen did not follow the reconnect:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	// t trusts the project's servers; the root shows them afresh.
	h.typeText("t")
	h.send(awaitType(h, "screens.mcpTrustedMsg"))
	if eng.trusted != 1 || !h.screenContains("repo  starting…") || !h.screenContains("servers for this session") {
		t.Errorf("trust: %d calls\n%s", eng.trusted, strings.Join(h.screenLines(), "\n"))
	}
	h.key(tea.KeyEsc)
	if h.m.scr != nil {
		t.Errorf("esc left the screen %T", h.m.scr)
	}
}

func TestMCPNoticesAndProgress(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.events(agent.MCPStatus{Source: mainSrc(), Server: "db", State: "failed", Error: "did not start within 30s (startup_timeout)"})
	if !h.screenContains("MCP server db failed: did not start within 30s") {
		t.Errorf("no failure notice:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	h.events(agent.MCPStatus{Source: mainSrc(), Server: "ok", State: "connected", Tools: 3})
	if h.screenContains("MCP server ok") {
		t.Error("a plain connect made a notice")
	}
	h.events(agent.ToolStarted{Source: mainSrc(), CallID: "c1", Name: "mcp__everything__longRunningOperation"},
		agent.ToolProgress{Source: mainSrc(), CallID: "c1", Name: "mcp__everything__longRunningOperation",
			Progress: tool.Progress{Progress: 2, Total: 5, Message: "step two"}})
	if !h.screenContains("2/5 · step two") {
		t.Errorf("no progress line:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	h.events(agent.ToolFinished{Source: mainSrc(), CallID: "c1", Name: "mcp__everything__longRunningOperation", Result: tool.Result{Content: "done"}},
		agent.ToolProgress{Source: mainSrc(), CallID: "c1", Progress: tool.Progress{Progress: 5, Total: 5, Message: "late"}})
	if h.screenContains("late") || h.screenContains("2/5") {
		t.Errorf("progress shown after the call finished:\n%s", strings.Join(h.screenLines(), "\n"))
	}
}

func TestMCPWithoutServers(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.typeText("/mcp")
	h.key(tea.KeyEnter)
	if h.m.scr != nil || !h.screenContains("no MCP servers in this session") {
		t.Errorf("screen %T:\n%s", h.m.scr, strings.Join(h.screenLines(), "\n"))
	}
}

func TestMCPStatusBar(t *testing.T) {
	h, eng := newMCPHarness(t)
	h.events(agent.MCPStatus{Source: mainSrc(), Server: "remote", State: "starting"})
	if !h.screenContains("MCP 1/3, 1 failed, 1 starting") {
		t.Errorf("status bar:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	eng.mu.Lock()
	eng.servers[1].State, eng.servers[2].State = mcp.StateConnected, mcp.StateConnected
	eng.mu.Unlock()
	h.events(agent.MCPStatus{Source: mainSrc(), Server: "remote", State: "connected"})
	if !h.screenContains("MCP 3/3") || h.screenContains("starting") {
		t.Errorf("status bar:\n%s", strings.Join(h.screenLines(), "\n"))
	}
}
