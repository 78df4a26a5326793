package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"covey/agent"
	"covey/config"
	"covey/tools/tool"
)

// inputSession is a session on a fresh workspace holding files, with deny
// rules; its events are drained into the returned notices.
func inputSession(t *testing.T, files map[string]string, deny ...string) (*Session, func() []string) {
	t.Helper()
	return inputSessionWith(t, "bypassPermissions", files, deny...)
}

// inputSessionMode is an empty inputSession in a permission mode.
func inputSessionMode(t *testing.T, mode string) (*Session, func() []string) {
	t.Helper()
	return inputSessionWith(t, mode, nil)
}

func inputSessionWith(t *testing.T, mode string, files map[string]string, deny ...string) (*Session, func() []string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	for p, body := range files {
		abs := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Config{}
	cfg.Permissions.Deny = deny
	s, err := New(Options{Workspace: ws, Config: cfg, NoMCP: true, NoHooks: true, PermissionMode: mode,
		Endpoint: config.Endpoint{Name: "test", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	notices := make(chan string, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range s.Events() {
			if n, ok := e.(agent.Notice); ok {
				notices <- n.Level + ": " + n.Message
			}
		}
	}()
	t.Cleanup(func() {
		s.EndEvents()
		<-done
	})
	take := func() []string {
		var out []string
		for {
			select {
			case n := <-notices:
				out = append(out, n)
			default:
				return out
			}
		}
	}
	return s, take
}

// TestAttachments: "@path" words that name a file or a folder bring their
// content or listing into the prompt through read_file and list_dir, so
// the deny rules refuse what they refuse; words that name nothing stay
// words; each outcome is a notice.
func TestAttachments(t *testing.T) {
	s, notices := inputSession(t, map[string]string{
		"src/main.go": "package main\n// ATTACH-MARKER\n",
		"src/util.go": "package main\n",
		".env":        "SECRET=1\n",
	}, "Read(.env)")
	tests := map[string]struct {
		prompt  string
		want    []string // in the added text
		notWant []string
		notices []string
	}{
		"a file": {prompt: "explain @src/main.go, please",
			want:    []string{`<attached-file path="src/main.go">`, "ATTACH-MARKER"},
			notices: []string{"info: attached file @src/main.go"}},
		"a folder": {prompt: "what is in @src/?",
			want:    []string{`<attached-folder path="src/">`, "main.go", "util.go"},
			notices: []string{"info: attached folder @src/"}},
		"a denied file": {prompt: "read @.env",
			notWant: []string{"SECRET"},
			notices: []string{"warning: @.env not attached"}},
		"a missing path": {prompt: "see @src/nope.go",
			notices: []string{"warning: @src/nope.go not attached: no such file"}},
		"not a path":      {prompt: "ask @nobody about mail@example.com"},
		"twice is once":   {prompt: "@src/util.go and @src/util.go", want: []string{`path="src/util.go"`}, notices: []string{"info: attached file @src/util.go"}},
		"no words at all": {prompt: "hello"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := s.attachments(context.Background(), tc.prompt, new([]agent.Image))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("attachments lack %q:\n%s", w, got)
				}
			}
			if n := strings.Count(got, "</attached-"); n > 1 {
				t.Errorf("%d attachments, want at most one:\n%s", n, got)
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("attachments hold %q:\n%s", w, got)
				}
			}
			if len(tc.want) == 0 && got != "" {
				t.Errorf("attached something:\n%s", got)
			}
			// The notices come through the event stream.
			var ns []string
			for i := 0; i < 100 && len(ns) < len(tc.notices); i++ {
				ns = append(ns, notices()...)
				if len(ns) < len(tc.notices) {
					waitABit()
				}
			}
			if len(ns) != len(tc.notices) {
				t.Fatalf("notices %q, want %q", ns, tc.notices)
			}
			for i, n := range ns {
				if !strings.HasPrefix(n, tc.notices[i]) {
					t.Errorf("notice %q, want it to start %q", n, tc.notices[i])
				}
			}
		})
	}
}

// TestUserShellNote: a "!command" runs through the bash tool, and its
// command and output enter the next prompt once, bounded.
func TestUserShellNote(t *testing.T) {
	s, _ := inputSession(t, nil)
	if err := s.RunUserShell(context.Background(), "echo SHELL-$((6*7))"); err != nil {
		t.Fatal(err)
	}
	got := s.withInput(context.Background(), "what did it print?")
	if !strings.Contains(got, "The user ran `echo SHELL-$((6*7))`") || !strings.Contains(got, "SHELL-42") ||
		!strings.HasSuffix(got, "what did it print?") {
		t.Errorf("next prompt:\n%s", got)
	}
	if again := s.withInput(context.Background(), "and now?"); again != "and now?" {
		t.Errorf("the note came twice:\n%s", again)
	}
	if err := s.RunUserShell(context.Background(), "  "); err == nil {
		t.Error("an empty command ran")
	}
	big := shellNote("yes", toolsResult(strings.Repeat("y\n", maxShellNote)))
	if len(big) > maxShellNote+500 || !strings.Contains(big, "bytes cut") {
		t.Errorf("a long output is not bounded: %d bytes", len(big))
	}
}

func toolsResult(content string) tool.Result {
	return tool.Result{Content: content, Summary: "exit 0"}
}

func waitABit() { time.Sleep(10 * time.Millisecond) }

// TestUserShellInPlanMode: plan mode has no bash tool, so a "!command"
// fails as a call (shown, not told to the model) and runs nothing.
func TestUserShellInPlanMode(t *testing.T) {
	plan, _ := inputSessionMode(t, "plan")
	if err := plan.RunUserShell(context.Background(), "touch made"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plan.Workspace(), "made")); err == nil {
		t.Error("the command ran in plan mode")
	}
	if got := plan.withInput(context.Background(), "hi"); got != "hi" {
		t.Errorf("the model is told of a command that did not run:\n%s", got)
	}
}

// TestTypedPrompt: what withInput added to a prompt (shell notes before
// it, attachments after it) comes off again, so a resumed session shows
// what the user typed, as the live one did.
func TestTypedPrompt(t *testing.T) {
	note := shellNote("ls", tool.Result{Content: "a\nb\n", Summary: "exit 0"})
	file := "\n\n<attached-file path=\"greet.go\">\npackage main\n</attached-file>"
	folder := "\n\n<attached-folder path=\"docs\">\nguide.md\n</attached-folder>"
	tests := map[string]struct {
		sent, want string
		notes      []string
	}{
		"plain":             {"explain this", "explain this", nil},
		"attached file":     {"explain @greet.go" + file, "explain @greet.go", []string{"attached file @greet.go"}},
		"file and folder":   {"see @greet.go @docs" + file + folder, "see @greet.go @docs", []string{"attached file @greet.go", "attached folder @docs"}},
		"shell notes":       {note + "\n\n" + note + "\n\nwhat now", "what now", nil},
		"note and file":     {note + "\n\nexplain @greet.go" + file, "explain @greet.go", []string{"attached file @greet.go"}},
		"a tag in the text": {"what is <attached-file path=\"x\">?", "what is <attached-file path=\"x\">?", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, notes := typedPrompt(tc.sent)
			if got != tc.want || strings.Join(notes, "|") != strings.Join(tc.notes, "|") {
				t.Errorf("typedPrompt(%q) = %q, %q; want %q, %q", tc.sent, got, notes, tc.want, tc.notes)
			}
		})
	}
}
