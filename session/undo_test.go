package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"covey/agent"
	"covey/config"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestUndoNamesTheTurnByItsMessage: /undo says which turn it undid by the
// message that started it, not by a number counting the session's turns,
// which after a /clear names turns the screen no longer shows ("Undid
// turn 3" for the first turn after the clear).
func TestUndoNamesTheTurnByItsMessage(t *testing.T) {
	srv := scriptedtest.New(t)
	write := func(id, path string) scripted.Turn {
		return scripted.Turn{ToolCalls: []scripted.Call{{ID: id, Name: "write_file", Args: map[string]any{"path": path, "content": path + "\n"}}}}
	}
	srv.Add(scripted.Conversation{Name: "before", Match: scripted.Match{FirstUser: "w1"}, Turns: []scripted.Turn{
		write("a1", "a.txt"), {Text: "wrote a"}, write("b1", "b.txt"), {Text: "wrote b"},
	}})
	srv.Add(scripted.Conversation{Name: "after", Match: scripted.Match{FirstUser: "w3"}, Turns: []scripted.Turn{
		write("c1", "c.txt"), {Text: "wrote c"},
	}})
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	s, err := New(Options{Workspace: ws, Config: config.Config{}, NoMCP: true, NoHooks: true, PermissionMode: "bypassPermissions", Record: true,
		Endpoint: config.Endpoint{Name: "test", BaseURL: srv.URL(), Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range s.Events() {
		}
	}()
	t.Cleanup(func() {
		s.EndEvents()
		<-done
	})
	ctx := context.Background()
	for _, p := range []string{"w1 write a", "and now b"} {
		if res, err := s.Prompt(ctx, p); err != nil || res.Reason != agent.StopOK {
			t.Fatalf("%q: %+v, %v", p, res, err)
		}
	}
	s.Reset() // /clear
	if res, err := s.Prompt(ctx, "w3 write c"); err != nil || res.Reason != agent.StopOK {
		t.Fatalf("after the clear: %+v, %v", res, err)
	}
	for _, want := range []string{
		"Undid the turn of “w3 write c”: removed c.txt.",
		"Undid the turn of “and now b”: removed b.txt.",
		"Undid the turn of “w1 write a”: removed a.txt.",
	} {
		got, err := s.Undo(ctx)
		if err != nil || got != want {
			t.Errorf("undo = %q, %v; want %q", got, err, want)
		}
	}
	if got, err := s.Undo(ctx); err == nil || strings.Contains(got, "Undid") {
		t.Errorf("a fourth undo = %q, %v; want nothing to undo", got, err)
	}
}
