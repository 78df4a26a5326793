package session

import "covey/lsp"

// LSP is the session's language servers (for /lsp and the error counts
// the TUI shows).
func (s *Session) LSP() *lsp.Manager { return s.lsp }
