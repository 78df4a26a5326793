package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"covey/agent"
)

// debugLog is the --debug log: a file the user can attach to a bug report.
// The TUI owns stdout, so nothing is ever logged there.
type debugLog struct {
	path string
	file *os.File
	log  *slog.Logger
}

// stateDir is covey's folder under XDG_STATE_HOME (default ~/.local/state).
func stateDir() string {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "covey")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "state", "covey")
}

// openDebugLog creates a new log file; a nil *debugLog logs nothing.
func openDebugLog() (*debugLog, error) {
	dir := filepath.Join(stateDir(), "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("debug log: %w", err)
	}
	path := filepath.Join(dir, "covey-"+time.Now().UTC().Format("20060102T150405Z")+".log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("debug log: %w", err)
	}
	return &debugLog{path: path, file: f, log: slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))}, nil
}

// event logs one agent event. Text deltas are left out: they would dwarf
// everything else and are in the session file anyway.
func (d *debugLog) event(e agent.Event) {
	if d == nil {
		return
	}
	switch e.(type) {
	case agent.TextDelta, agent.ReasoningDelta:
		return
	}
	src := e.From()
	attrs := []any{"agent", src.AgentID}
	if b, err := agent.MarshalEvent(e); err == nil && len(b) < 4096 {
		attrs = append(attrs, "event", string(b))
	}
	d.log.Debug(e.Kind(), attrs...)
}

// errorf logs an error.
func (d *debugLog) errorf(format string, a ...any) {
	if d != nil {
		d.log.Error(fmt.Sprintf(format, a...))
	}
}

// close closes the file and tells the user where it is.
func (d *debugLog) close(stderr io.Writer) {
	if d == nil {
		return
	}
	_ = d.file.Close()
	fmt.Fprintln(stderr, "covey: debug log:", d.path)
}
