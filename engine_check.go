package main

import (
	"covey/session"
	"covey/ui"
	"covey/ui/screens"
)

// The session is the engine the TUI drives: these fail the build when it
// stops implementing the UI's contract (ui/engine.go), the optional parts
// included, which the UI finds at run time and would otherwise quietly
// lose (renaming Session.Compact would turn /compact off).
var (
	_ ui.Engine         = (*session.Session)(nil)
	_ ui.Compacter      = (*session.Session)(nil)
	_ ui.ContextEngine  = (*session.Session)(nil)
	_ ui.ChildStarter   = (*session.Session)(nil)
	_ ui.ShellReader    = (*session.Session)(nil)
	_ ui.ShellRunner    = (*session.Session)(nil)
	_ ui.FileLister     = (*session.Session)(nil)
	_ screens.MCPEngine = (*session.Session)(nil)
)
