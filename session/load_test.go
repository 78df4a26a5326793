package session

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/config"
)

// TestDeferLoad: with DeferLoad, New takes the session without reading or
// writing it; events emitted before Load are written after what loading
// repaired (the result of a call the last run never finished), and Load
// puts the history and the model in place once, however often it is
// called.
func TestDeferLoad(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	ws := t.TempDir()
	dir, err := sessionfile.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sessionfile.Store{Dir: dir}.Create(ws, "old-model")
	if err != nil {
		t.Fatal(err)
	}
	rec.Message(agent.Message{Role: agent.RoleUser, Content: "list the files"})
	rec.Message(agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "glob", Arguments: `{}`}}})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(rec.Path())

	s, err := New(Options{Workspace: ws, NoMCP: true, NoHooks: true, Record: true, Continue: true, DeferLoad: true,
		Endpoint: config.Endpoint{Name: "test", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range s.Events() {
		}
	}()
	if now, _ := os.ReadFile(rec.Path()); !bytes.Equal(now, before) {
		t.Fatal("New changed the file before Load")
	}
	if s.Replay() != nil || s.Model() != "m" {
		t.Fatalf("before Load: replay %v, model %q", s.Replay(), s.Model())
	}
	s.emit(agent.ChildMessage{Source: agent.Source{AgentID: "early-1"}, Text: "EARLY NOTICE"})
	for range 2 {
		if err := s.Load(); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(s.main.History()); got != 3 {
		t.Errorf("history of %d messages, want 3 (the repaired result included)", got)
	}
	if s.Model() != "old-model" || len(s.Replay()) == 0 {
		t.Errorf("after Load: model %q, %d replayed events", s.Model(), len(s.Replay()))
	}
	s.EndEvents()
	s.Close(io.Discard)
	after, _ := os.ReadFile(rec.Path())
	result := bytes.Index(after, []byte(sessionfile.InterruptedResult))
	early := bytes.Index(after, []byte("EARLY NOTICE"))
	if result < 0 || early < result {
		t.Errorf("the early event is not after the repaired end (result at %d, event at %d):\n%s", result, early, after)
	}
}
