package main

import (
	"covey/session"
	"covey/ui"
)

// The session is the TUI's Rewinder: /rewind, /fork and /export work.
var _ ui.Rewinder = (*session.Session)(nil)
