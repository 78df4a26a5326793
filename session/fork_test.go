package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestForkGoesOnInACopy: /fork leaves the session file as it was and
// records what follows in the new one, which holds the whole conversation;
// /export writes it as markdown.
func TestForkGoesOnInACopy(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "f", Match: scripted.Match{FirstUser: "first"}, Turns: []scripted.Turn{{Text: "ONE"}, {Text: "TWO"}}})
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	s := newRewindSession(t, srv, ws, Options{})
	ctx := context.Background()
	if res, err := s.Prompt(ctx, "first"); err != nil || res.Reason != agent.StopOK {
		t.Fatalf("%+v %v", res, err)
	}
	old, oldPath := s.rec.id, s.rec.path
	id, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(oldPath)
	if res, err := s.Prompt(ctx, "second"); err != nil || res.Reason != agent.StopOK {
		t.Fatalf("%+v %v", res, err)
	}
	if after, _ := os.ReadFile(oldPath); string(after) != string(before) {
		t.Fatal("the session before the fork changed")
	}
	dir, _ := sessionfile.DefaultDir()
	l, err := sessionfile.Store{Dir: dir}.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if l.Header.ForkedFrom != old || len(l.Messages) != 4 {
		t.Fatalf("the fork: %+v, %d messages", l.Header, len(l.Messages))
	}
	path, err := s.Export("out.md")
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(path)
	if path != filepath.Join(ws, "out.md") || !strings.Contains(string(md), "## You\n\nsecond") || !strings.Contains(string(md), "TWO") {
		t.Fatalf("export %s:\n%s", path, md)
	}
}
