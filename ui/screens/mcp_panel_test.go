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
