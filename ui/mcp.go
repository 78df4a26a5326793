package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/mcp"
	"covey/ui/screens"
	"covey/ui/transcript"
)

// This file holds what the root does for MCP: /mcp opens the panel
// (screens.MCPPanel), and a server's change updates the status bar, the
// panel and, for a failure, the transcript.

// mcpNotice is the transcript's notice for a server's change: a failure
// with its reason, or what a connected server's tools were renamed to.
// Plain connects and starts make none: the status is in /mcp.
func mcpNotice(e agent.MCPStatus) *transcript.NoticeBlock {
	switch {
	case e.State == string(mcp.StateFailed):
		return transcript.NewNoticeBlock(transcript.NoticeError, fmt.Sprintf("MCP server %s failed: %s (/mcp shows it; r there reconnects)", e.Server, e.Error))
	case e.State == string(mcp.StateConnected) && len(e.Notes) > 0:
		return transcript.NewNoticeBlock(transcript.NoticeWarning, fmt.Sprintf("MCP server %s: %s", e.Server, strings.Join(e.Notes, "; ")))
	}
	return nil
}

// mcpEngine is the engine's MCP side, or nil.
func (m *Model) mcpEngine() screens.MCPEngine {
	e, _ := m.engine.(screens.MCPEngine)
	return e
}

// cmdMCP opens the /mcp screen.
func (m *Model) cmdMCP(string) tea.Cmd {
	e := m.mcpEngine()
	if e == nil {
		m.notice(transcript.NoticeInfo, "no MCP servers in this session")
		return nil
	}
	m.mp.Open(e)
	m.openScreen(m.mp)
	return nil
}

// refreshMCP updates the /mcp screen and the status bar after an
// MCPStatus event.
func (m *Model) refreshMCP() {
	e := m.mcpEngine()
	if e == nil {
		return
	}
	ss := e.MCPServers()
	m.status.SetMCP(mcpSummary(ss))
	if m.scr == screens.Screen(m.mp) {
		m.mp.SetServers(ss)
	}
}

// mcpSummary is the status bar's word on the servers: "MCP 2/3" connected
// of those that may run, and how many start or failed.
func mcpSummary(ss []mcp.Status) string {
	total, up, starting, failed := 0, 0, 0, 0
	for _, s := range ss {
		switch s.State {
		case mcp.StateUntrusted, mcp.StateStopped:
			continue
		case mcp.StateConnected:
			up++
		case mcp.StateStarting:
			starting++
		case mcp.StateFailed:
			failed++
		}
		total++
	}
	if total == 0 {
		return ""
	}
	out := fmt.Sprintf("MCP %d/%d", up, total)
	if failed > 0 {
		out += fmt.Sprintf(", %d failed", failed)
	}
	if starting > 0 {
		out += fmt.Sprintf(", %d starting", starting)
	}
	return out
}
