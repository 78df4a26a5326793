package session

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/agent"
	"covey/checkpoint"
	"covey/config"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

func newRewindSession(t *testing.T, srv *scripted.Server, ws string, opts Options) *Session {
	t.Helper()
	opts.Workspace, opts.NoMCP, opts.NoHooks, opts.PermissionMode, opts.Record = ws, true, true, "bypassPermissions", true
	opts.Endpoint = config.Endpoint{Name: "test", BaseURL: srv.URL(), Model: "m"}
	s, err := New(opts)
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
		s.Close(os.Stderr)
	})
	return s
}

func fileIs(t *testing.T, ws, name, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, name))
	switch {
	case want == "" && err == nil:
		t.Errorf("%s exists (%q), want it gone", name, b)
	case want != "" && (err != nil || string(b) != want):
		t.Errorf("%s = %q, %v; want %q", name, b, err, want)
	}
}

// TestRewindPutsBackFilesOfEveryKindAndCutsTheConversation: three turns
// change files through write_file, bash and edit_file; between the second
// and the third the user edits a file in an editor. /rewind to the second
// turn restores what covey changed, asks about the user's edit, cuts the
// conversation (the next request carries only the first turn), and redo
// brings both back.
func TestRewindPutsBackFilesOfEveryKindAndCutsTheConversation(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "three", Match: scripted.Match{FirstUser: "one"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "w", Name: "write_file", Args: map[string]any{"path": "a.txt", "content": "a\n"}}}}, {Text: "wrote a"},
		{ToolCalls: []scripted.Call{{ID: "b", Name: "bash", Args: map[string]any{"command": "echo b > b.txt && rm keep.txt"}}}}, {Text: "ran bash"},
		{ToolCalls: []scripted.Call{{ID: "e", Name: "edit_file", Args: map[string]any{"path": "a.txt", "old_string": "a", "new_string": "A"}}}}, {Text: "edited a"},
		{Text: "answer after the rewind"},
	}})
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	if err := os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newRewindSession(t, srv, ws, Options{})
	ctx := context.Background()
	for i, p := range []string{"one: write a", "two: run bash", "three: edit a"} {
		if i == 2 {
			// An editor, between turns (after the turn's end is
			// recorded, as a person's edit comes).
			s.cps.settle()
			if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("mine, edited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if res, err := s.Prompt(ctx, p); err != nil || res.Reason != agent.StopOK {
			t.Fatalf("%q: %+v, %v", p, res, err)
		}
	}
	fileIs(t, ws, "a.txt", "A\n")
	fileIs(t, ws, "b.txt", "b\n")
	fileIs(t, ws, "keep.txt", "")
	points, err := s.RewindPoints()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range points {
		texts = append(texts, p.Text)
	}
	if !slices.Equal(texts, []string{"three: edit a", "two: run bash", "one: write a"}) {
		t.Fatalf("points %v", texts)
	}
	if !slices.Equal(points[1].Files, []string{"b.txt", "keep.txt"}) {
		t.Errorf("files of the second turn: %v", points[1].Files)
	}
	two := points[1]
	// The user edited notes.txt, which did not change in any turn... but
	// going back past it would undo the edit: it is asked about.
	plan, err := s.PlanRewind(ctx, two.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Conflicts) != 1 || plan.Conflicts[0].Path != "notes.txt" || !strings.Contains(plan.Conflicts[0].Diff, "+mine\n") {
		t.Fatalf("plan %+v", plan)
	}
	out, events, err := s.Rewind(ctx, checkpoint.Request{To: two.ID, Mode: checkpoint.Both, Keep: []string{"notes.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "two: run bash" || len(events) == 0 {
		t.Fatalf("outcome %+v, %d events", out, len(events))
	}
	fileIs(t, ws, "a.txt", "a\n")
	fileIs(t, ws, "b.txt", "")
	fileIs(t, ws, "keep.txt", "keep\n")
	fileIs(t, ws, "notes.txt", "mine, edited\n")
	if res, err := s.Prompt(ctx, "two, again"); err != nil || res.Reason != agent.StopOK {
		t.Fatalf("after the rewind: %+v, %v", res, err)
	}
	j := srv.Journal()
	last := j[len(j)-1]
	var users []string
	for _, m := range last.Messages {
		if m.Role == agent.RoleUser {
			users = append(users, m.Content)
		}
	}
	if len(users) != 2 || !strings.HasPrefix(users[0], "one: write a") || !strings.HasPrefix(users[1], "two, again") {
		t.Fatalf("the request after the rewind carries %q", users)
	}
	// Redo: forward again to the branch the rewind left.
	points, err = s.RewindPoints()
	if err != nil || !points[0].Redo {
		t.Fatalf("points %+v, %v", points, err)
	}
	if _, _, err := s.Rewind(ctx, checkpoint.Request{To: points[0].ID, Mode: checkpoint.Both}); err != nil {
		t.Fatal(err)
	}
	fileIs(t, ws, "a.txt", "A\n")
	fileIs(t, ws, "b.txt", "b\n")
	fileIs(t, ws, "keep.txt", "")
	if h := s.main.History(); len(h) == 0 || !strings.Contains(h[len(h)-1].Content, "edited a") {
		t.Fatalf("history after redo ends %+v", h[len(h)-1])
	}
}

// TestKilledRewindIsFinishedAndSaidAtNextStart kills (SIGKILL) a process
// in the middle of a restore; the next session started in the workspace
// finishes it before anything else and says so.
func TestKilledRewindIsFinishedAndSaidAtNextStart(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	names := []string{"f1", "f2", "f3", "f4", "f5"}
	put := func(suffix string) {
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(ws, n), []byte(n+suffix), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	put(" before\n")
	st, err := checkpoint.Open(ctx, checkpoint.Dir(StateDir(), ws), ws, "killed")
	if err != nil {
		t.Fatal(err)
	}
	before, err := st.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	put(" after\n")
	after, err := st.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "marker")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledRewind$")
	cmd.Env = append(os.Environ(), "COVEY_REWIND_HELPER="+strings.Join([]string{ws, after.Tree, before.Tree, marker}, "\n"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if i > 3000 {
			_ = cmd.Process.Kill()
			t.Fatal("the helper never reached the middle of its restore")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	half := 0
	for _, n := range names {
		if b, _ := os.ReadFile(filepath.Join(ws, n)); string(b) == n+" before\n" {
			half++
		}
	}
	if half == 0 || half == len(names) {
		t.Fatalf("the kill left %d of %d files restored: not in the middle", half, len(names))
	}
	srv := scriptedtest.New(t)
	s := newRewindSession(t, srv, ws, Options{})
	var said string
	for _, w := range s.Warnings() {
		if strings.Contains(w, "stopped during a /rewind") {
			said = w
		}
	}
	if !strings.Contains(said, "fully restored to before “the point”") {
		t.Errorf("the start says %q", said)
	}
	for _, n := range names {
		fileIs(t, ws, n, n+" before\n")
	}
}

// TestHelperKilledRewind is the process the test above kills mid-restore.
func TestHelperKilledRewind(t *testing.T) {
	spec := os.Getenv("COVEY_REWIND_HELPER")
	if spec == "" {
		t.Skip("run by TestKilledRewindIsFinishedAndSaidAtNextStart")
	}
	f := strings.Split(spec, "\n")
	ctx := context.Background()
	st, err := checkpoint.Open(ctx, checkpoint.Dir(StateDir(), f[0]), f[0], "killed")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = st.Restore(ctx, f[1], f[2], "“the point”", nil, nil, func(done int) {
		if done == 2 {
			_ = os.WriteFile(f[3], nil, 0o600)
			select {}
		}
	})
}
