package ui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/lsp"
	"covey/ui/transcript"
)

// This file holds what the root does for language servers: /lsp lists
// them, and each batch of events refreshes the error counts of the status
// bar (the workspace) and of isolated children's panes (their worktrees).

// lspEngine is the engine's side of the language servers.
type lspEngine interface {
	LSP() *lsp.Manager
	Workspace() string
}

// lspManager is the engine's language servers, or nil.
func (m *Model) lspManager() (*lsp.Manager, string) {
	e, ok := m.engine.(lspEngine)
	if !ok || e.LSP() == nil {
		return nil, ""
	}
	return e.LSP(), e.Workspace()
}

// refreshDiagnostics sets the counts from what the servers report now;
// it only reads under the servers' locks, never waits on a server.
func (m *Model) refreshDiagnostics() {
	mgr, ws := m.lspManager()
	if mgr == nil {
		return
	}
	m.status.SetDiagnostics(mgr.Counts(ws))
	for _, b := range m.rt.children {
		if r := b.Root(); r != "" {
			errs, _ := mgr.Counts(r)
			b.SetDiagnostics(errs)
		}
	}
}

// cmdLSP lists the language servers: those started, with state, root,
// counts and last error, and those that would start on need.
func (m *Model) cmdLSP(string) tea.Cmd {
	mgr, ws := m.lspManager()
	if mgr == nil || !mgr.Any() {
		m.notice(transcript.NoticeInfo, "No language server: none is configured under lsp.servers and none of gopls, typescript-language-server, "+
			"pyright, basedpyright, rust-analyzer or clangd is on PATH.")
		return nil
	}
	var b strings.Builder
	b.WriteString("Language servers")
	ss := mgr.Status()
	if len(ss) == 0 {
		b.WriteString(": none started yet; each starts when a file it serves is edited or asked about.")
	}
	for _, s := range ss {
		root := s.Root
		if rel, ok := strings.CutPrefix(root, ws); ok {
			root = "." + rel
		}
		fmt.Fprintf(&b, "\n  %s (%s) in %s: %s", s.Name, s.Command, root, s.State)
		if s.PID > 0 {
			fmt.Fprintf(&b, ", pid %d", s.PID)
		}
		fmt.Fprintf(&b, ", %d open files, %d errors, %d warnings", s.Documents, s.Errors, s.Warnings)
		if s.Restarts > 0 {
			fmt.Fprintf(&b, ", %d crashes", s.Restarts)
		}
		if s.RetryIn > 0 {
			fmt.Fprintf(&b, ", restarts in %s", s.RetryIn.Round(time.Second))
		}
		if s.LastError != "" {
			fmt.Fprintf(&b, "\n    last error: %s", s.LastError)
		}
	}
	b.WriteString("\n  Available: " + strings.Join(mgr.Available(), "; "))
	m.notice(transcript.NoticeInfo, b.String())
	return nil
}
