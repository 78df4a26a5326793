package sessionfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"covey/agent"
)

func TestDefaultDir(t *testing.T) {
	home := t.TempDir()
	tests := map[string]struct {
		xdg, want string
	}{
		"XDG_DATA_HOME set":      {"/data", "/data/covey/sessions"},
		"unset":                  {"", filepath.Join(home, ".local/share/covey/sessions")},
		"relative is ignored":    {"rel/dir", filepath.Join(home, ".local/share/covey/sessions")},
		"trailing slash cleaned": {"/data/", "/data/covey/sessions"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("HOME", home)
			t.Setenv("XDG_DATA_HOME", tc.xdg)
			got, err := DefaultDir()
			if err != nil || got != tc.want {
				t.Fatalf("DefaultDir() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/work/ws/", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{6}$`).MatchString(r.ID()) {
		t.Fatalf("ID %q is not time-sortable", r.ID())
	}
	if r.Path() != filepath.Join(s.Dir, r.ID()+".jsonl") {
		t.Fatalf("Path() = %q", r.Path())
	}
	for path, want := range map[string]os.FileMode{s.Dir: 0o700, r.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode %v, want %v", path, got, want)
		}
	}
	h, err := readHeader(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if h.Workspace != "/work/ws" || h.ID != r.ID() || time.Since(h.Created) > time.Hour || h.Created.Location() != time.UTC {
		t.Fatalf("header = %+v", h)
	}
	rel, err := s.Create(".", "m")
	if err != nil {
		t.Fatal(err)
	}
	rel.Close()
	wd, _ := os.Getwd()
	if h, err := readHeader(rel.Path()); err != nil || h.Workspace != wd {
		t.Fatalf("workspace \".\" recorded as %q (%v), want %q", h.Workspace, err, wd)
	}
	if _, err := (Store{}).Create("/ws", "m"); err == nil {
		t.Fatal("Create without a folder succeeded")
	}
}

// sessions writes files with chosen IDs and modification times: the store
// orders by last activity, which a test cannot wait for.
func sessions(t *testing.T, s Store) {
	t.Helper()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	user := func(c string) string { return msgLine(agent.Message{Role: agent.RoleUser, Content: c}) }
	answer := msgLine(agent.Message{Role: agent.RoleAssistant, Content: "sure"})
	writeSession(t, s, "20260101T000000Z-aaaaaa", "/ws/a", base.Add(1*time.Hour), user("first in a"), answer)
	writeSession(t, s, "20260102T000000Z-aaabbb", "/ws/a", base.Add(3*time.Hour), user("  a   long\n\tquestion "+strings.Repeat("word ", 30)), answer, user("second"))
	writeSession(t, s, "20260103T000000Z-cccccc", "/ws/b", base.Add(5*time.Hour), user("in b"))
	writeSession(t, s, "20260104T000000Z-dddddd", "/ws/a/", base.Add(2*time.Hour),
		user("before clear"), `{"type":"model","model":"other"}`+"\n", `{"type":"clear"}`+"\n",
		eventLine(agent.TextDelta{Source: mainSrc, Text: "x"}), user("after clear"),
		`{"type":"message","message":{"role":"us`)
	if err := os.WriteFile(filepath.Join(s.Dir, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "20260105T000000Z-eeeeee.jsonl"), []byte("not a session\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLatest(t *testing.T) {
	s := testStore(t)
	sessions(t, s)
	tests := map[string]struct {
		workspace, want string
		err             error
	}{
		"newest of this workspace, not the newest overall": {"/ws/a", "20260102T000000Z-aaabbb", nil},
		"path written differently":                         {"/ws/a/.", "20260102T000000Z-aaabbb", nil},
		"the other workspace":                              {"/ws/b", "20260103T000000Z-cccccc", nil},
		"a parent is not the workspace":                    {"/ws", "", ErrNoSession},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := s.Latest(tc.workspace)
			if got != tc.want || !errors.Is(err, tc.err) {
				t.Fatalf("Latest = %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
		})
	}
	empty := Store{Dir: filepath.Join(t.TempDir(), "none")}
	if _, err := empty.Latest("/ws/a"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Latest in a missing folder = %v", err)
	}
}

func TestResolve(t *testing.T) {
	s := testStore(t)
	sessions(t, s)
	tests := map[string]struct {
		in, want string
		err      error
		mention  []string
	}{
		"exact":            {in: "20260103T000000Z-cccccc", want: "20260103T000000Z-cccccc"},
		"unique prefix":    {in: "20260103", want: "20260103T000000Z-cccccc"},
		"ambiguous prefix": {in: "202601", err: ErrAmbiguous, mention: []string{"20260101T000000Z-aaaaaa", "20260104T000000Z-dddddd", "5 sessions"}},
		"no match":         {in: "1999", err: ErrNoSession},
		"path":             {in: "../sessions/x", err: ErrInvalidID},
		"empty":            {in: "", err: ErrInvalidID},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := s.Resolve(tc.in)
			if got != tc.want || !errors.Is(err, tc.err) {
				t.Fatalf("Resolve(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
			}
			for _, m := range tc.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

func TestList(t *testing.T) {
	s := testStore(t)
	sessions(t, s)
	got, err := s.List("/ws/a")
	if err != nil {
		t.Fatal(err)
	}
	// The file that is not a session may be anyone's: it is listed, first
	// (the newest), with why it cannot be read.
	if len(got) == 0 || got[0].ID != "20260105T000000Z-eeeeee" || !strings.Contains(got[0].Problem, "no session header") {
		t.Fatalf("List does not show the unreadable file first with its problem: %+v", got)
	}
	got = got[1:]
	long := "a long question " + strings.TrimSpace(strings.Repeat("word ", 30))
	long = long[:firstMessageRunes-1] + "…"
	want := []Info{
		{ID: "20260102T000000Z-aaabbb", Workspace: "/ws/a", Model: "m", FirstMessage: long, Messages: 3},
		{ID: "20260104T000000Z-dddddd", Workspace: "/ws/a/", Model: "other", FirstMessage: "after clear", Messages: 1},
		{ID: "20260101T000000Z-aaaaaa", Workspace: "/ws/a", Model: "m", FirstMessage: "first in a", Messages: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("List = %+v", got)
	}
	for i := range want {
		g := got[i]
		if g.Path != s.Path(g.ID) || g.Modified.IsZero() || !g.Created.Equal(g.Modified) {
			t.Errorf("%s: path %q, created %v, modified %v", g.ID, g.Path, g.Created, g.Modified)
		}
		g.Path, g.Created, g.Modified = "", time.Time{}, time.Time{}
		mustEqual(t, "info "+want[i].ID, g, want[i])
	}
	// The summary matches what loading the session gives.
	l, err := s.Load(got[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Messages) != got[1].Messages || l.Model != got[1].Model {
		t.Fatalf("List says %d messages and %s, Load %d and %s", got[1].Messages, got[1].Model, len(l.Messages), l.Model)
	}

	all, err := s.List("")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range all {
		ids = append(ids, in.ID)
	}
	mustEqual(t, "every workspace", ids, []string{"20260105T000000Z-eeeeee", "20260103T000000Z-cccccc", "20260102T000000Z-aaabbb", "20260104T000000Z-dddddd", "20260101T000000Z-aaaaaa"})

	none, err := Store{Dir: filepath.Join(t.TempDir(), "missing")}.List("")
	if err != nil || len(none) != 0 {
		t.Fatalf("List of a missing folder = %v, %v", none, err)
	}
}

// TestWireRecorded: the header records the wire and base URL a session
// was made on, and each SetWire the later ones; loading reports the last
// (a SetModel of an older covey records no wire).
func TestWireRecorded(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	made := Wire{Model: "claude-x", API: "anthropic", BaseURL: "https://api.anthropic.com"}
	r, err := s.CreateOn("/ws", made)
	if err != nil {
		t.Fatal(err)
	}
	path := r.Path()
	load := func() *Loaded {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if l := load(); l.Wire != made || l.Model != "claude-x" {
		t.Fatalf("after create: %+v, model %q; want %+v", l.Wire, l.Model, made)
	}
	moved := Wire{Model: "gpt-5-codex", API: "responses", BaseURL: "https://api.openai.com/v1"}
	r.SetWire(moved)
	if l := load(); l.Wire != moved || l.Model != "gpt-5-codex" {
		t.Fatalf("after SetWire: %+v; want %+v", l.Wire, moved)
	}
	r.SetModel("plain")
	if l := load(); l.Wire != (Wire{Model: "plain"}) || l.Model != "plain" {
		t.Fatalf("after SetModel: %+v", l.Wire)
	}
	_ = r.Close()
}
