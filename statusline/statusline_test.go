package statusline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadAndRun: the local settings win over the project's and the
// user's; a project's line is marked so; the command reads the JSON and
// only its first line is kept.
func TestReadAndRun(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude/settings.json"), `{"statusLine": {"type": "command", "command": "echo user"}, "subagentStatusLine": {"command": "echo sub"}}`)
	write(t, filepath.Join(ws, ".claude/settings.json"), `{"statusLine": {"type": "command", "command": "echo project"}}`)
	write(t, filepath.Join(ws, ".claude/settings.local.json"), `{"statusLine": {"type": "command", "command": "cat; echo; echo second", "padding": 2}}`)
	s := Read(home, ws)
	if s.Main == nil || s.Main.Command != "cat; echo; echo second" || !s.Main.Project || s.Main.Source != filepath.Join(".claude", "settings.local.json") {
		t.Fatalf("main = %+v", s.Main)
	}
	if s.Subagent == nil || s.Subagent.Project || s.Subagent.Command != "echo sub" {
		t.Fatalf("sub = %+v", s.Subagent)
	}
	in := Input{Model: Model{ID: "m1"}}
	in.ContextWindow.Fill(50, 200)
	line, err := Run(context.Background(), *s.Main, in, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`  {"hook_event_name":"Status"`, `"model":{"id":"m1"`, `"used_percentage":25`, `"context_window_size":200`} {
		if !strings.Contains(line, want) {
			t.Errorf("line lacks %s: %s", want, line)
		}
	}
	if strings.Contains(line, "second") {
		t.Errorf("more than the first line: %q", line)
	}
	write(t, filepath.Join(ws, ".claude/settings.local.json"), `{"statusLine": {"type": "prompt", "command": "x"}}`)
	if s := Read(home, ws); len(s.Problems) != 1 || s.Main == nil || s.Main.Command != "echo project" {
		t.Errorf("a type covey lacks: %+v", s)
	}
}

// TestRunScrubsKeys: the status line command does not get the variables
// it is told to scrub (covey's keys), and does get the others.
func TestRunScrubsKeys(t *testing.T) {
	t.Setenv("COVEY_TEST_SECRET", "sk-status-secret")
	t.Setenv("COVEY_TEST_PLAIN", "plain-value")
	cmd := Setting{Command: `printf '%s|%s' "$COVEY_TEST_SECRET" "$COVEY_TEST_PLAIN"`}
	for name, tc := range map[string]struct {
		scrub []string
		want  string
	}{
		"scrubbed": {[]string{"COVEY_TEST_SECRET"}, "|plain-value"},
		"kept":     {nil, "sk-status-secret|plain-value"},
	} {
		t.Run(name, func(t *testing.T) {
			line, err := Run(context.Background(), cmd, Input{}, t.TempDir(), tc.scrub)
			if err != nil {
				t.Fatal(err)
			}
			if line != tc.want {
				t.Errorf("line = %q, want %q", line, tc.want)
			}
		})
	}
}
