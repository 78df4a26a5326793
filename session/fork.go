package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"covey/agent/sessionfile"
)

// Forked names the session this run forked (--fork-session) and its new
// ID; both "" when it did not fork.
func (s *Session) Forked() (from, id string) {
	if s.rec == nil || s.rec.forkedFrom == "" {
		return "", ""
	}
	return s.rec.forkedFrom, s.rec.id
}

// Fork (/fork) goes on in a copy of the session as it stands, with a new
// ID, which it returns: the session file so far is left exactly as it is.
// Call it only while no turn and no child runs.
func (s *Session) Fork() (string, error) {
	if s.rec == nil {
		return "", errors.New("this session keeps no session file (the demo), so it cannot be forked")
	}
	if err := s.Load(); err != nil {
		return "", err
	}
	if len(s.manager.Running()) > 0 || len(s.shells.Running()) > 0 {
		return "", errors.New("subagents or background shells are running: wait for them (or stop them) before /fork")
	}
	s.cps.settle()
	r := s.rec
	if err := r.rec.Flush(); err != nil {
		return "", fmt.Errorf("fork: %w", err)
	}
	old := r.id
	nid, err := r.store.Fork(old)
	if err != nil {
		return "", err
	}
	lk, err := r.store.Lock(nid)
	if err != nil {
		return "", err
	}
	rec, _, err := lk.Open()
	if err != nil {
		return "", err
	}
	r.earlyMu.Lock()
	prev := r.rec
	r.rec, r.id, r.path, r.forkedFrom = rec, nid, rec.Path(), old
	r.earlyMu.Unlock()
	_ = prev.Close()
	// The new session's checkpoints start from the old one's private
	// index (its stat data), so its first snapshot hashes nothing again.
	if st := s.cps.store; st != nil {
		s.cps.store = st.ForSession(nid)
	}
	return nid, nil
}

// Export (/export) writes the conversation as markdown to file (a
// default name in the workspace when ""), and returns the path written.
func (s *Session) Export(file string) (string, error) {
	l, err := s.reload()
	if err != nil {
		return "", err
	}
	if file == "" {
		file = "covey-" + s.rec.id + ".md"
	}
	if strings.HasPrefix(file, "~/") {
		home, _ := os.UserHomeDir()
		file = filepath.Join(home, file[2:])
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(s.ws.Root, file)
	}
	var b strings.Builder
	if err := sessionfile.Markdown(&b, l, s.rec.path); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	return file, nil
}
