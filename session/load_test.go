package session

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

// TestResumedPromptStartDate: a resumed session's system prompts carry
// the date in its file's header, not today's, whether New reads the file
// (headless) or Load does after the first frame (the TUI's DeferLoad), so
// the first request after the resume has the first day's prefix; the
// children started or restored from then on are told the same date.
func TestResumedPromptStartDate(t *testing.T) {
	for _, deferLoad := range []bool{false, true} {
		t.Run(map[bool]string{false: "headless", true: "deferred"}[deferLoad], func(t *testing.T) {
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
			rec, err := sessionfile.Store{Dir: dir}.Create(ws, "m")
			if err != nil {
				t.Fatal(err)
			}
			rec.Message(agent.Message{Role: agent.RoleUser, Content: "hi"})
			rec.Message(agent.Message{Role: agent.RoleAssistant, Content: "hello"})
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			// The session began three days ago.
			then := time.Now().AddDate(0, 0, -3)
			data, _ := os.ReadFile(rec.Path())
			created := regexp.MustCompile(`"created":"[^"]+"`)
			if !created.Match(data) {
				t.Fatalf("no created time in the header:\n%.300s", data)
			}
			data = created.ReplaceAll(data, []byte(`"created":"`+then.UTC().Format(time.RFC3339Nano)+`"`))
			if err := os.WriteFile(rec.Path(), data, 0o600); err != nil {
				t.Fatal(err)
			}

			s, err := New(Options{Workspace: ws, NoMCP: true, NoHooks: true, Record: true, Continue: true, DeferLoad: deferLoad,
				Endpoint: config.Endpoint{Name: "test", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}})
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				for range s.Events() {
				}
			}()
			defer func() {
				s.EndEvents()
				s.Close(io.Discard)
			}()
			if err := s.Load(); err != nil {
				t.Fatal(err)
			}
			start, today := "Date: "+then.Format("2006-01-02"), "Date: "+time.Now().Format("2006-01-02")
			if sys := s.main.System(); !strings.Contains(sys, start) || strings.Contains(sys, today) {
				t.Errorf("the resumed prompt does not carry the start date %q:\n%s", start, sys)
			}
			if got := s.manager.Environment().Date; got != then.Format("2006-01-02") {
				t.Errorf("children are told the date %q, want the start date %q", got, then.Format("2006-01-02"))
			}
		})
	}
}
