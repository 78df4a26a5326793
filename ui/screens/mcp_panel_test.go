package screens

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/mcp"
	"covey/theme"
	"covey/ui/keys"
)

// panelEngine is an MCPEngine whose reconnect of "flaky" fails.
type panelEngine struct {
	servers    []mcp.Status
	reconnects []string
	trusted    int
}

func (e *panelEngine) MCPServers() []mcp.Status { return append([]mcp.Status(nil), e.servers...) }

func (e *panelEngine) ReconnectMCP(name string) error {
	e.reconnects = append(e.reconnects, name)
	if name == "flaky" {
		return errors.New("no such command")
	}
	return nil
}

func (e *panelEngine) TrustProjectMCP() error {
	e.trusted++
	e.servers[1].State = mcp.StateStarting
	return nil
}

// TestMCPPanelResults checks that the panel takes its commands' results
// itself: it shows the outcome and asks the root to show the servers
// afresh (MCPChanged), as the root did when it handled them.
func TestMCPPanelResults(t *testing.T) {
	eng := &panelEngine{servers: []mcp.Status{
		{Name: "flaky", Type: "stdio", Scope: mcp.ScopeUser, State: mcp.StateFailed},
		{Name: "repo", Type: "stdio", Scope: mcp.ScopeProject, State: mcp.StateUntrusted},
	}}
	km := keys.Default()
	p := NewMCPPanel(&theme.New(theme.ModeDark, true, false).Styles, &km)
	p.SetSize(100, 20)
	p.Open(eng)
	run := func(text string, want string) {
		t.Helper()
		a, cmd := p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text)})
		if a != nil || cmd == nil {
			t.Fatalf("%s: action %v, command %v", text, a, cmd != nil)
		}
		if a, _ := p.Update(cmd()); a != (MCPChanged{}) {
			t.Errorf("%s: the result asked %#v, want MCPChanged", text, a)
		}
		if view := ansi.Strip(p.View()); !strings.Contains(view, want) {
			t.Errorf("%s: no %q:\n%s", text, want, view)
		}
	}
	run("r", "flaky: no such command")
	run("t", "servers for this session")
	if len(eng.reconnects) != 1 || eng.trusted != 1 {
		t.Errorf("reconnects %v, trusted %d", eng.reconnects, eng.trusted)
	}
	if a, _ := p.Update(tea.KeyMsg{Type: tea.KeyEsc}); a != (Back{}) {
		t.Errorf("esc asked %#v, want Back", a)
	}
}

// serversEngine is an MCPEngine with four servers, one in each state,
// whose reconnects succeed and whose trust starts the project's server.
type serversEngine struct {
	servers    []mcp.Status
	reconnects []string
	trusted    int
}

func newServersEngine() *serversEngine {
	return &serversEngine{servers: []mcp.Status{
		{Name: "everything", Type: "stdio", Scope: mcp.ScopeUser, State: mcp.StateConnected,
			Tools: []mcp.ToolInfo{{Name: "mcp__everything__echo"}, {Name: "mcp__everything__add"}}, LogPath: "/tmp/everything.log"},
		{Name: "flaky", Type: "stdio", Scope: mcp.ScopeProject, State: mcp.StateFailed,
			Err: "the server stopped; its last stderr line: Error: Cannot find module 'x'", Stderr: []string{"node:internal/modules", "Error: Cannot find module 'x'"}},
		{Name: "remote", Type: "http", Scope: mcp.ScopeFlag, State: mcp.StateStarting},
		{Name: "repo", Type: "stdio", Scope: mcp.ScopeProject, State: mcp.StateUntrusted},
	}}
}

func (e *serversEngine) MCPServers() []mcp.Status { return append([]mcp.Status(nil), e.servers...) }

func (e *serversEngine) ReconnectMCP(name string) error {
	e.reconnects = append(e.reconnects, name)
	return nil
}

func (e *serversEngine) TrustProjectMCP() error {
	e.trusted++
	e.servers[3].State = mcp.StateStarting
	return nil
}

// TestMCPPanel checks the panel's own rows and keys: a row per server
// with its state, type and scope, the failed one's error and stderr, the
// selected one's tools; r reconnects the selected server, new servers keep
// the selection, and t trusts the project's servers. (ui's TestMCPPanel
// drives the same through the root: /mcp, status events, esc.)
func TestMCPPanel(t *testing.T) {
	eng := newServersEngine()
	km := keys.Default()
	p := NewMCPPanel(&theme.New(theme.ModeDark, true, false).Styles, &km)
	p.SetSize(100, 28)
	p.Open(eng)
	view := func() string { return ansi.Strip(p.View()) }
	for _, want := range []string{
		"MCP servers · 4 · 1 failed",
		"repo  not trusted (project .mcp.json)",
		"t trust this project's servers",
		"everything  connected · 2 tools  stdio · user",
		"tools: mcp__everything__echo, mcp__everything__add", // the selected server's tools
		"flaky  failed  stdio · project",
		"Error: Cannot find module 'x'",
		"stderr: node:internal/modules",
		"remote  starting…  http · flag",
		"r reconnect",
	} {
		if !strings.Contains(view(), want) {
			t.Errorf("the panel lacks %q:\n%s", want, view())
		}
	}
	// Select flaky and reconnect it.
	p.Update(tea.KeyMsg{Type: tea.KeyDown})
	a, cmd := p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("r")})
	if a != nil || cmd == nil {
		t.Fatalf("r: action %v, command %v", a, cmd != nil)
	}
	if a, _ := p.Update(cmd()); a != (MCPChanged{}) {
		t.Errorf("the reconnect's outcome asked %#v, want MCPChanged", a)
	}
	if len(eng.reconnects) != 1 || eng.reconnects[0] != "flaky" {
		t.Fatalf("reconnected %v, want [flaky]", eng.reconnects)
	}
	if !strings.Contains(view(), "reconnecting flaky") {
		t.Errorf("no reconnect note:\n%s", view())
	}
	// New servers (as the root gives them on a status event) show, the
	// selection staying on flaky.
	eng.servers[1].State, eng.servers[1].Err, eng.servers[1].Tools = mcp.StateConnected, "", []mcp.ToolInfo{{Name: "mcp__flaky__x"}}
	p.SetServers(eng.MCPServers())
	if !strings.Contains(view(), "flaky  connected · 1 tool ") || p.Selected() != "flaky" {
		t.Errorf("the panel did not follow the reconnect (selected %q):\n%s", p.Selected(), view())
	}
	// t trusts the project's servers.
	_, cmd = p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")})
	if cmd == nil {
		t.Fatal("t made no command")
	}
	p.Update(cmd())
	p.SetServers(eng.MCPServers())
	if eng.trusted != 1 || !strings.Contains(view(), "repo  starting…") || !strings.Contains(view(), "servers for this session") {
		t.Errorf("trust: %d calls\n%s", eng.trusted, view())
	}
}
