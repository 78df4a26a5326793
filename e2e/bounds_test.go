package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestHeadlessRepairedSessionWarns cuts a session's last line mid-write
// (as a crash does) and continues it headless: stderr carries the warning
// the TUI shows. (-p used to repair the session silently.)
func TestHeadlessRepairedSessionWarns(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	crashScript(h.srv, map[string]scripted.Turn{
		"first prompt":  {Text: "FIRST ANSWER"},
		"second prompt": {Text: "SECOND ANSWER"},
	})
	if r := h.run(t, "", "-p", "first prompt"); r.code != 0 {
		t.Fatalf("first run: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(h.box.home, ".local/share/covey/sessions/*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	cut := strings.Join(lines[:len(lines)-1], "\n") + "\n" + last[:len(last)/2]
	if err := os.WriteFile(files[0], []byte(cut), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run(t, "", "-p", "second prompt", "--continue")
	if r.code != 0 || !strings.Contains(r.stdout, "SECOND ANSWER") {
		t.Fatalf("continued run: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	want := "covey: warning: line " + strconv.Itoa(len(lines)) + ": incomplete last line skipped (covey stopped while writing it)"
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
	}
}
