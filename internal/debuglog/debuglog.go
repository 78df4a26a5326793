// Package debuglog is covey's --debug log: a JSON-lines file the user can
// attach to a bug report. A nil *Log logs nothing.
package debuglog

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"covey/agent"
	"covey/agent/sessionfile"
)

// Log is the --debug log: a file the user can attach to a bug report.
// The TUI owns stdout, so nothing is ever logged there.
type Log struct {
	path string
	file *os.File
	out  *sessionfile.RedactingWriter
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

// Open creates a new log file under covey's state folder.
func Open() (*Log, error) {
	dir := filepath.Join(stateDir(), "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("debug log: %w", err)
	}
	path := filepath.Join(dir, "covey-"+time.Now().UTC().Format("20060102T150405Z")+".log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("debug log: %w", err)
	}
	out := sessionfile.NewRedactingWriter(f, nil)
	return &Log{path: path, file: f, out: out, log: slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}))}, nil
}

// SetSecrets makes the log redact secrets (the configured keys) from
// here on, as the session file does.
func (d *Log) SetSecrets(secrets []string) {
	if d != nil {
		d.out.SetSecrets(secrets)
	}
}

// Event logs one agent event. Text deltas are left out: they would dwarf
// everything else and are in the session file anyway.
func (d *Log) Event(e agent.Event) {
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

// Debugf logs a debug line (each hook run, for one).
func (d *Log) Debugf(format string, a ...any) {
	if d != nil {
		d.log.Debug(fmt.Sprintf(format, a...))
	}
}

// Errorf logs an error.
func (d *Log) Errorf(format string, a ...any) {
	if d != nil {
		d.log.Error(fmt.Sprintf(format, a...))
	}
}

// Close closes the file and tells the user where it is.
func (d *Log) Close(stderr io.Writer) {
	if d == nil {
		return
	}
	_ = d.file.Close()
	fmt.Fprintln(stderr, "covey: debug log:", d.path)
}
