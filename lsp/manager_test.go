package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/proctree"
)

// fakeManager returns a manager whose one server is this test binary in
// the given fake mode, serving .fake files, and a workspace for it.
func fakeManager(t *testing.T, mode string, wait time.Duration) (*Manager, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{Wait: wait, OtherFiles: mode == "flood", Servers: map[string]ServerConfig{
		"fake": {Command: exe, Args: []string{"-test.run=^$"}, Extensions: []string{".fake"}, Env: map[string]string{"COVEY_FAKE_LSP": mode}},
	}})
	m.SetLookPath(func(string) (string, error) { return "", errors.New("no default servers in tests") })
	t.Cleanup(m.Close)
	return m, t.TempDir()
}

// write puts content in the file and tells the manager, as write_file does.
func write(t *testing.T, m *Manager, ws, name, content string) string {
	t.Helper()
	abs := filepath.Join(ws, name)
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return m.AfterWrite(context.Background(), ws, abs, content)
}

func TestAfterWriteGivesTheChangesOwnDiagnostics(t *testing.T) {
	for _, mode := range []string{"ok", "noversion"} {
		t.Run(mode, func(t *testing.T) {
			m, ws := fakeManager(t, mode, 10*time.Second)
			got := write(t, m, ws, "a.fake", "fine\nx BAD y\nMEH\n")
			for _, want := range []string{"fake reports in a.fake after this change (1 error, 1 warning):", "a.fake:2:3: error: BAD is not allowed (fake)", "a.fake:3:1: warning: MEH is dubious"} {
				if !strings.Contains(got, want) {
					t.Errorf("after the breaking edit, want %q in:\n%s", want, got)
				}
			}
			if strings.Index(got, "error:") > strings.Index(got, "warning:") {
				t.Errorf("errors must come first:\n%s", got)
			}
			// The fixing edit: never the error from before.
			got = write(t, m, ws, "a.fake", "fine\nx y\n")
			if !strings.Contains(got, "fake reports no problems in a.fake after this change.") || strings.Contains(got, "BAD") {
				t.Errorf("after the fix, got:\n%s", got)
			}
			// Edits in quick succession: each result is its own version's.
			for i := range 5 {
				content := "ok\n"
				if i%2 == 0 {
					content = strings.Repeat("\n", i) + "BAD\n"
				}
				got := write(t, m, ws, "a.fake", content)
				if hasErr := strings.Contains(got, "BAD is not allowed"); hasErr != (i%2 == 0) {
					t.Fatalf("edit %d (%q): stale or missing diagnostics:\n%s", i, content, got)
				}
				if i%2 == 0 && !strings.Contains(got, "a.fake:"+strconv.Itoa(i+1)+":1:") {
					t.Fatalf("edit %d: the error should be on line %d:\n%s", i, i+1, got)
				}
			}
			if e, w := m.Counts(ws); e != 1 || w != 0 {
				t.Errorf("Counts = %d errors, %d warnings; want 1, 0", e, w)
			}
		})
	}
}

func TestNoServerForTheFileAddsNothing(t *testing.T) {
	m, ws := fakeManager(t, "ok", time.Second)
	if got := write(t, m, ws, "a.txt", "BAD"); got != "" {
		t.Errorf("a file no server serves: got %q", got)
	}
	if len(m.Status()) != 0 {
		t.Errorf("no server should have started: %+v", m.Status())
	}
	var nilM *Manager
	if got := nilM.AfterWrite(context.Background(), ws, filepath.Join(ws, "a.fake"), "BAD"); got != "" {
		t.Errorf("a nil manager: got %q", got)
	}
}

func TestCrashMidCallIsReportedAndRestartedWithBackoff(t *testing.T) {
	m, ws := fakeManager(t, "crash", 10*time.Second)
	abs := filepath.Join(ws, "a.fake")
	if got := write(t, m, ws, "a.fake", "abc\n"); !strings.Contains(got, "no problems") {
		t.Fatalf("first edit: %s", got)
	}
	_, err := m.Query(context.Background(), ws, Query{Op: OpDefinition, Abs: abs, Line: 1, Character: 1})
	if err == nil {
		t.Fatal("a definition the server crashed in answered without error")
	}
	st := waitState(t, m, StateCrashed)
	if st.LastError == "" || st.Restarts != 1 {
		t.Errorf("status after the crash: %+v", st)
	}
	// Within the backoff the edit's result says so at once.
	if got := write(t, m, ws, "a.fake", "BAD\n"); !strings.Contains(got, "crashed") || !strings.Contains(got, "restarted in") {
		t.Errorf("an edit during the backoff: %q", got)
	}
	time.Sleep(time.Until(time.Now().Add(st.RetryIn)) + 100*time.Millisecond)
	if got := write(t, m, ws, "a.fake", "BAD\n"); !strings.Contains(got, "BAD is not allowed") {
		t.Errorf("after the backoff the server should be back: %q", got)
	}
	if st := m.Status()[0]; st.State != StateRunning {
		t.Errorf("state after the restart: %+v", st)
	}
}

func waitState(t *testing.T, m *Manager, state string) Status {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st := m.Status(); len(st) == 1 && st[0].State == state {
			return st[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the server never reached %s: %+v", state, m.Status())
	return Status{}
}

func TestAHungServerHoldsUpNothing(t *testing.T) {
	for _, mode := range []string{"hang", "hanginit"} {
		t.Run(mode, func(t *testing.T) {
			m, ws := fakeManager(t, mode, 300*time.Millisecond)
			got := write(t, m, ws, "a.fake", "BAD\n")
			if mode == "hang" {
				// Started (initialize answered), then silent.
				waitState(t, m, StateRunning)
				got = write(t, m, ws, "a.fake", "BAD\n")
			}
			want := "had not reported on this change within 300ms"
			if mode == "hanginit" {
				want = "still starting"
			}
			if !strings.Contains(got, want) {
				t.Errorf("got %q, want it to say %q", got, want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := m.Query(ctx, ws, Query{Op: OpDefinition, Abs: filepath.Join(ws, "a.fake"), Line: 1, Character: 1})
			if err == nil {
				t.Error("a query of a hung server answered")
			}
		})
	}
}

func TestAFloodOfDiagnosticsIsBounded(t *testing.T) {
	m, ws := fakeManager(t, "flood", 30*time.Second)
	got := write(t, m, ws, "a.fake", "BAD\n")
	if !strings.Contains(got, "BAD is not allowed") || !strings.Contains(got, "… and ") || !strings.Contains(got, "fake reports errors in other files:") {
		t.Errorf("the flooded result should list the first errors and count the rest:\n%.2000s", got)
	}
	if len(got) > 8<<10 {
		t.Errorf("the result is %d bytes; a flood must stay bounded", len(got))
	}
	if e, _ := m.Counts(ws); e < 5000 {
		t.Errorf("Counts = %d errors, want the flood counted", e)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	m, ws := fakeManager(t, "ok", 10*time.Second)
	write(t, m, ws, "a.fake", "x\n")
	st := m.Status()
	if len(st) != 1 || st[0].PID == 0 {
		t.Fatalf("status: %+v", st)
	}
	m.mu.Lock()
	var mark string
	for _, s := range m.servers {
		mark = s.mark
	}
	m.mu.Unlock()
	m.Close()
	if pids := proctree.Find(mark); len(pids) != 0 {
		t.Errorf("processes left after Close: %v", pids)
	}
	if err := syscall.Kill(st[0].PID, 0); err == nil {
		// A zombie not yet reaped is gone for every purpose but ps.
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(st[0].PID) + "/stat"); !strings.Contains(string(b), ") Z") {
			t.Errorf("the server %d still runs after Close", st[0].PID)
		}
	}
	if got := write(t, m, ws, "a.fake", "BAD\n"); strings.Contains(got, "BAD is not allowed") {
		t.Errorf("a closed manager started a server again: %s", got)
	}
}

func TestRenameComputesEachFilesContent(t *testing.T) {
	m, ws := fakeManager(t, "ok", 10*time.Second)
	abs := filepath.Join(ws, "a.fake")
	write(t, m, ws, "a.fake", "foo bar\nfoo\n")
	a, err := m.Query(context.Background(), ws, Query{Op: OpRename, Abs: abs, Line: 1, Character: 1, NewName: "renamed"})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Renamed[abs]; got != "renamed bar\nfoo\n" {
		t.Errorf("renamed content = %q", got)
	}
	d, err := m.Query(context.Background(), ws, Query{Op: OpDefinition, Abs: abs, Line: 1, Character: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "a.fake:1:3: foo bar") {
		t.Errorf("definition = %q", d.Text)
	}
}

func TestWarmStartsInTheBackgroundAndNeverAfterClose(t *testing.T) {
	m, ws := fakeManager(t, "ok", 10*time.Second)
	abs := filepath.Join(ws, "a.fake")
	m.Warm(ws, abs, "BAD before the edit\n")
	waitState(t, m, StateRunning)
	if got := write(t, m, ws, "a.fake", "fine now\n"); !strings.Contains(got, "no problems") {
		t.Errorf("after a warm open, the edit's own diagnostics: %s", got)
	}
	m.Close()
	m2, ws2 := fakeManager(t, "ok", time.Second)
	m2.Close()
	m2.Warm(ws2, filepath.Join(ws2, "b.fake"), "x")
	time.Sleep(200 * time.Millisecond)
	if st := m2.Status(); len(st) != 0 {
		t.Errorf("Warm after Close started %+v", st)
	}
}
