package screens

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/mcp"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
)

// MCPEngine is implemented by an Engine that runs MCP servers: /mcp shows
// them and reconnects one. Engines without servers need not implement it.
type MCPEngine interface {
	// MCPServers is a snapshot of every configured server.
	MCPServers() []mcp.Status
	// ReconnectMCP stops the named server if it runs and starts it again;
	// MCPStatus events report how it goes.
	ReconnectMCP(name string) error
	// TrustProjectMCP starts the project's servers the user had not
	// trusted (or had refused), for the rest of the session.
	TrustProjectMCP() error
}

// mcpStderrLines is how many of a failed server's last stderr lines the
// panel shows.
const mcpStderrLines = 5

// MCPPanel is the /mcp screen: every MCP server with its state, tool
// count and, for a failed one, the reason and its last stderr lines. The
// arrow keys move the selection; r reconnects the selected server, t
// trusts the project's.
type MCPPanel struct {
	styles *theme.Styles
	keys   *keys.KeyMap // the root's: esc
	own    mcpPanelKeys
	width  int
	height int

	engine  MCPEngine
	servers []mcp.Status
	sel     int
	note    string // the outcome of the last action
}

// mcpPanelKeys are the panel's own keys.
type mcpPanelKeys struct {
	Up, Down, Reconnect, Trust key.Binding
}

func newMCPPanelKeys() mcpPanelKeys {
	return mcpPanelKeys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous server")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next server")),
		Reconnect: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reconnect server")),
		Trust:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "trust project servers")),
	}
}

// NewMCPPanel is a panel with no servers yet (Open fills it); km is the
// root's KeyMap, whose esc it takes.
func NewMCPPanel(styles *theme.Styles, km *keys.KeyMap) *MCPPanel {
	return &MCPPanel{styles: styles, keys: km, own: newMCPPanelKeys()}
}

// SetStyles draws the panel with other styles.
func (p *MCPPanel) SetStyles(styles *theme.Styles) { p.styles = styles }

// Open shows e's servers afresh, with no note.
func (p *MCPPanel) Open(e MCPEngine) {
	p.engine = e
	p.SetServers(e.MCPServers())
	p.note = ""
}

// Title names the panel on the view bar.
func (p *MCPPanel) Title() string { return "MCP servers" }

// trust is the Trust binding, enabled while a project server waits.
func (p *MCPPanel) trust() key.Binding {
	b := p.own.Trust
	b.SetEnabled(p.hasUntrusted())
	return b
}

// ShortHelp is the view bar's keys.
func (p *MCPPanel) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.ViewBack, p.own.Reconnect, p.trust(), p.own.Up, p.own.Down}
}

// FullHelp is the panel's group of the full help.
func (p *MCPPanel) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.keys.ViewBack, p.own.Up, p.own.Down, p.own.Reconnect, p.trust()}}
}

// reconnected shows a reconnect's outcome.
func (p *MCPPanel) reconnected(name string, err error) {
	if err != nil {
		p.note = fmt.Sprintf("%s: %v", name, err)
	} else {
		p.note = "reconnecting " + name + " (the state above follows it)"
	}
}

// trusted shows the outcome of trusting the project's servers.
func (p *MCPPanel) trusted(err error) {
	if err != nil {
		p.note = err.Error()
	} else {
		p.note = "starting this project's servers for this session (for good: --trust-project or trusted_folders)"
	}
}

// SetSize sets the area the panel fills.
func (p *MCPPanel) SetSize(width, height int) {
	p.width, p.height = max(width, 1), max(height, 1)
}

// SetServers replaces the snapshot; the selection stays on its server.
func (p *MCPPanel) SetServers(ss []mcp.Status) {
	name := p.Selected()
	p.servers = ss
	p.sel = 0
	for i, s := range ss {
		if s.Name == name {
			p.sel = i
		}
	}
}

// Selected is the selected server's name, "" when there is none.
func (p *MCPPanel) Selected() string {
	if p.sel < len(p.servers) {
		return p.servers[p.sel].Name
	}
	return ""
}

// Update moves the selection, reconnects the selected server, trusts the
// project's servers (in commands: the outcome comes back as
// mcpReconnectedMsg or mcpTrustedMsg, shown in the note, and asks the root
// to refresh what shows the servers), and goes back on esc.
func (p *MCPPanel) Update(msg tea.Msg) (Action, tea.Cmd) {
	var k tea.KeyMsg
	switch msg := msg.(type) {
	case tea.KeyMsg:
		k = msg
	case mcpReconnectedMsg:
		p.reconnected(msg.name, msg.err)
		return p.refresh(), nil
	case mcpTrustedMsg:
		p.trusted(msg.err)
		return p.refresh(), nil
	default:
		return nil, nil
	}
	switch {
	case key.Matches(k, p.keys.ViewBack):
		return Back{}, nil
	case key.Matches(k, p.own.Reconnect):
		name, e := p.Selected(), p.engine
		if name == "" || e == nil {
			return nil, nil
		}
		p.note = "reconnecting " + name + "…"
		return nil, func() tea.Msg { return mcpReconnectedMsg{name: name, err: e.ReconnectMCP(name)} }
	case key.Matches(k, p.own.Trust):
		e := p.engine
		if e == nil || !p.hasUntrusted() {
			return nil, nil
		}
		p.note = "starting this project's servers (remembered for this folder)…"
		return nil, func() tea.Msg { return mcpTrustedMsg{err: e.TrustProjectMCP()} }
	}
	if len(p.servers) == 0 {
		return nil, nil
	}
	switch {
	case key.Matches(k, p.own.Up):
		p.sel = max(p.sel-1, 0)
	case key.Matches(k, p.own.Down):
		p.sel = min(p.sel+1, len(p.servers)-1)
	}
	return nil, nil
}

// stateText is a server's state in its colour, with its tool count.
func (p MCPPanel) stateText(s mcp.Status) string {
	st := p.styles
	switch s.State {
	case mcp.StateConnected:
		n := fmt.Sprintf("connected · %d tool", len(s.Tools))
		if len(s.Tools) != 1 {
			n += "s"
		}
		return st.Subagent.Done.Render(n)
	case mcp.StateFailed:
		return st.Subagent.Failed.Render("failed")
	case mcp.StateStarting:
		return st.Subagent.Running.Render("starting…")
	case mcp.StateUntrusted:
		return st.Blocks.Waiting.Render("not trusted (project .mcp.json)")
	}
	return st.Subagent.Cancelled.Render(string(s.State))
}

// lines is the whole panel, before scrolling.
func (p MCPPanel) lines() (out []string, selAt int) {
	st := p.styles
	w := p.width
	title := fmt.Sprintf("MCP servers · %d", len(p.servers))
	failed := 0
	for _, s := range p.servers {
		if s.State == mcp.StateFailed {
			failed++
		}
	}
	if failed > 0 {
		title += fmt.Sprintf(" · %d failed", failed)
	}
	out = append(out, cells.Fit(st.Crew.Title.Render(title), w))
	if len(p.servers) == 0 {
		out = append(out, cells.Fit(st.Crew.Row.Render(
			"No MCP servers are configured. Add one with: covey mcp add NAME -- COMMAND ARGS…, or a .mcp.json in the workspace."), w))
		return out, 0
	}
	for i, s := range p.servers {
		mark, name := "  ", st.Crew.Row
		if i == p.sel {
			mark, name = SelGlyph, st.Crew.Selected
			selAt = len(out)
		}
		head := mark + name.Render(s.Name) + "  " + p.stateText(s) + "  " +
			st.Crew.Header.Render(fmt.Sprintf("%s · %s", s.Type, s.Scope))
		out = append(out, cells.Fit(head, w))
		indent := "    "
		add := func(style string, text string) {
			for _, l := range cells.Wrap(cells.Clean(text), max(w-len(indent), 1)) {
				switch style {
				case "error":
					out = append(out, cells.Fit(indent+st.Notice.Error.Render(l), w))
				case "warn":
					out = append(out, cells.Fit(indent+st.Notice.Warning.Render(l), w))
				default:
					out = append(out, cells.Fit(indent+st.Crew.Header.Render(l), w))
				}
			}
		}
		if s.Err != "" {
			add("error", s.Err)
		}
		for _, n := range s.Notes {
			add("warn", n)
		}
		if s.State == mcp.StateFailed || i == p.sel {
			tail := s.Stderr
			if len(tail) > mcpStderrLines {
				tail = tail[len(tail)-mcpStderrLines:]
			}
			for _, l := range tail {
				add("", "stderr: "+l)
			}
		}
		if i == p.sel {
			if s.LogPath != "" {
				add("", "log: "+cells.ShortenHome(s.LogPath))
			}
			if len(s.Tools) > 0 {
				names := make([]string, len(s.Tools))
				for j, t := range s.Tools {
					names[j] = t.Name
				}
				add("", "tools: "+strings.Join(names, ", "))
			}
		}
	}
	if p.note != "" {
		out = append(out, "", cells.Fit(st.Notice.Info.Render(p.note), w))
	}
	k := p.own
	hint := keys.First(k.Up) + "/" + keys.First(k.Down) + " select · " + keys.Name(k.Reconnect) + " reconnect"
	if p.hasUntrusted() {
		hint += " · " + keys.Name(k.Trust) + " trust this project's servers"
	}
	hint += " · " + keys.Name(p.keys.ViewBack) + " back" // the view bar says where to
	out = append(out, "", cells.Fit(st.Crew.Header.Render(hint), w))
	return out, selAt
}

// hasUntrusted reports whether a project server waits for the user's trust.
func (p MCPPanel) hasUntrusted() bool {
	for _, s := range p.servers {
		if s.State == mcp.StateUntrusted {
			return true
		}
	}
	return false
}

// View draws the panel, scrolled so the selected server shows.
func (p MCPPanel) View() string {
	lines, selAt := p.lines()
	h := p.height
	off := 0
	if selAt >= h-1 {
		off = selAt - h/2
	}
	off = min(max(off, 0), max(len(lines)-h, 0))
	lines = lines[off:min(len(lines), off+h)]
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// mcpReconnectedMsg reports the outcome of a reconnect request.
type mcpReconnectedMsg struct {
	name string
	err  error
}

// mcpTrustedMsg reports the outcome of trusting the project's servers.
type mcpTrustedMsg struct{ err error }

// MCPChanged asks the root to show the servers afresh (the status bar,
// the panel): an action of the panel's once a reconnect or a trust it
// started has its outcome.
type MCPChanged struct{}

// refresh is MCPChanged, when the panel has an engine to ask.
func (p *MCPPanel) refresh() Action {
	if p.engine == nil {
		return nil
	}
	return MCPChanged{}
}
