package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"covey/config"
	"covey/tools/toolname"
	"covey/ui"
)

// parse runs the command line on args without running covey, returning the
// options the root command would have run with (nil when it did not run)
// and the exit code.
func parse(t *testing.T, args ...string) (*options, int, string, string) {
	t.Helper()
	var o options
	var ran *options
	var stdout, stderr strings.Builder
	root := newRootCmd(&o, strings.NewReader(""), &stdout, &stderr, func(_ context.Context, o *options) int {
		ran = o
		return exitOK
	})
	root.SetArgs(normalizeArgs(args))
	code := exitOK
	if err := root.Execute(); err != nil {
		code = exitUsage
		var c exitCode
		if errors.As(err, &c) {
			code = int(c)
		}
		stderr.WriteString(err.Error())
	}
	return ran, code, stdout.String(), stderr.String()
}

func TestCommandLine(t *testing.T) {
	tests := map[string]struct {
		args     []string
		wantCode int
		wantErr  string // in stderr
		wantOut  string // in stdout
		check    func(t *testing.T, o *options)
	}{
		"headless": {args: []string{"-p", "hi", "--output-format", "json"}, check: func(t *testing.T, o *options) {
			if !o.promptSet || o.prompt != "hi" || o.outputFormat != "json" {
				t.Fatalf("%+v", o)
			}
		}},
		"long prompt and stdin": {args: []string{"--prompt", "-"}, check: func(t *testing.T, o *options) {
			if !o.promptSet || o.prompt != "-" {
				t.Fatalf("%+v", o)
			}
		}},
		"short prompt reads stdin": {args: []string{"-p", "-", "--model", "m"}, check: func(t *testing.T, o *options) {
			if o.prompt != "-" || o.flags.Model != "m" {
				t.Fatalf("%+v", o)
			}
		}},
		"prompt words after flags": {args: []string{"--base-url", "http://x/v1", "fix", "the", "bug"}, check: func(t *testing.T, o *options) {
			if o.promptSet || strings.Join(o.args, " ") != "fix the bug" || o.flags.BaseURL != "http://x/v1" {
				t.Fatalf("%+v", o)
			}
		}},
		"help is a prompt word": {args: []string{"help", "me"}, check: func(t *testing.T, o *options) {
			if strings.Join(o.args, " ") != "help me" {
				t.Fatalf("%+v", o.args)
			}
		}},
		"resume with ID": {args: []string{"--resume", "20260102T150405Z-a1b2c3", "--continue"}, check: func(t *testing.T, o *options) {
			if !o.resumeSet || o.resume != "20260102T150405Z-a1b2c3" || !o.cont {
				t.Fatalf("%+v", o)
			}
		}},
		"resume ID prefix, short": {args: []string{"-r", "20260102T15"}, check: func(t *testing.T, o *options) {
			if !o.resumeSet || o.resume != "20260102T15" {
				t.Fatalf("%+v", o)
			}
		}},
		"resume without ID picks": {args: []string{"--resume", "go", "on"}, check: func(t *testing.T, o *options) {
			if !o.resumeSet || o.resume != "" || strings.Join(o.args, " ") != "go on" {
				t.Fatalf("%+v", o)
			}
		}},
		"resume with =": {args: []string{"--resume=abc"}, check: func(t *testing.T, o *options) {
			if o.resume != "abc" {
				t.Fatalf("%+v", o)
			}
		}},
		"version short": {args: []string{"-v"}, check: func(t *testing.T, o *options) {
			if !o.showVersion {
				t.Fatalf("%+v", o)
			}
		}},
		"bad format":        {args: []string{"--output-format", "xml"}, wantCode: exitUsage, wantErr: "unknown --output-format"},
		"format without -p": {args: []string{"--output-format", "json", "fix it"}, wantCode: exitUsage, wantErr: "--output-format is for headless runs: add -p PROMPT"},
		"format with -p after it": {args: []string{"--output-format=stream-json", "-p", "hi"}, check: func(t *testing.T, o *options) {
			if o.outputFormat != "stream-json" || o.prompt != "hi" {
				t.Fatalf("%+v", o)
			}
		}},
		"bad mode":                     {args: []string{"--permission-mode", "yolo"}, wantCode: exitUsage, wantErr: "unknown permission mode"},
		"bad sandbox":                  {args: []string{"--sandbox", "strict"}, wantCode: exitUsage, wantErr: "unknown sandbox mode \"strict\": use workspace-write or off"},
		"negative turns":               {args: []string{"--max-turns", "-1"}, wantCode: exitUsage, wantErr: "--max-turns"},
		"unknown flag":                 {args: []string{"--no-such-flag"}, wantCode: exitUsage, wantErr: "unknown flag: --no-such-flag (run covey --help)"},
		"unknown flag of a subcommand": {args: []string{"agents", "--nope"}, wantCode: exitUsage, wantErr: "unknown flag: --nope (run covey agents --help)"},
		"help":                         {args: []string{"--help"}, wantOut: "--base-url URL"},
		"short help":                   {args: []string{"-h"}, wantOut: "-p, --prompt PROMPT"},
		"agents help":                  {args: []string{"agents", "--help"}, wantOut: "--json"},
		"tool help":                    {args: []string{"tool", "-h"}, wantOut: toolname.ReadFile},
		"tool help names web_fetch":    {args: []string{"tool", "-h"}, wantOut: toolname.TodoWrite + ", " + toolname.WebFetch},
		"tool usage names web_fetch":   {args: []string{"tool"}, wantCode: exitUsage, wantErr: toolname.TodoWrite + ", " + toolname.WebFetch + ")"},
		"sessions help":                {args: []string{"sessions", "--help"}, wantOut: "Global flags:"},
		"global flag after subcommand": {args: []string{"tool", "nope", "--permission-mode", "yolo"}, wantCode: exitUsage, wantErr: "unknown permission mode"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			o, code, stdout, stderr := parse(t, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.wantCode, stderr)
			}
			if tc.wantErr != "" && !strings.Contains(stderr, tc.wantErr) {
				t.Fatalf("stderr %q, want %q", stderr, tc.wantErr)
			}
			if tc.wantOut != "" && !strings.Contains(stdout, tc.wantOut) {
				t.Fatalf("stdout %q, want %q", stdout, tc.wantOut)
			}
			if tc.check != nil {
				if o == nil {
					t.Fatal("the root command did not run")
				}
				tc.check(t, o)
			}
		})
	}
}

// TestUnknownFlagIsOneLine checks what the user sees: one line naming the
// flag and the way to help, exit 2, no usage dump.
func TestUnknownFlagIsOneLine(t *testing.T) {
	var stdout, stderr strings.Builder
	code := run([]string{"--bogus"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	if got, want := stderr.String(), "covey: unknown flag: --bogus (run covey --help)\n"; got != want {
		t.Fatalf("stderr %q, want %q", got, want)
	}
	if stdout.Len() != 0 {
		t.Fatalf("stdout %q, want nothing", stdout.String())
	}
}

// TestArgumentErrorsAreOneLineWithHint checks that a missing argument or an
// unknown subcommand reads like an unknown flag: one line with the command's
// help to run, exit 2.
func TestArgumentErrorsAreOneLineWithHint(t *testing.T) {
	tests := map[string]struct {
		args []string
		want string
	}{
		"mcp add without arguments":   {args: []string{"mcp", "add"}, want: "(run covey mcp add --help)"},
		"mcp remove without the name": {args: []string{"mcp", "remove"}, want: "(run covey mcp remove --help)"},
		"unknown mcp subcommand":      {args: []string{"mcp", "frob"}, want: "unknown command \"frob\" for \"covey mcp\" (run covey mcp --help)"},
		"sessions with an argument":   {args: []string{"sessions", "extra"}, want: "(run covey sessions --help)"},
		// A session's flags mean nothing to a subcommand: refused, not ignored.
		"sessions with --output-format": {args: []string{"sessions", "--output-format", "json"}, want: "unknown flag: --output-format (run covey sessions --help)"},
		"mcp list with -p":              {args: []string{"mcp", "list", "-p", "x"}, want: "unknown shorthand flag: 'p' in -p (run covey mcp list --help)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			var stdout, stderr strings.Builder
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, stderr.String())
			}
			got := stderr.String()
			if !strings.HasPrefix(got, "covey: ") || !strings.HasSuffix(got, tc.want+"\n") || strings.Count(got, "\n") != 1 {
				t.Fatalf("stderr %q, want one line ending %q", got, tc.want)
			}
		})
	}
}

// TestHeadlessPrompt checks that no word of a -p prompt is lost: the words
// after -p's value belong to the prompt, and stdin cannot be mixed with them.
func TestHeadlessPrompt(t *testing.T) {
	tests := map[string]struct {
		args    []string
		stdin   string
		want    string
		wantErr string
	}{
		"quoted":              {args: []string{"-p", "fix the bug"}, want: "fix the bug"},
		"unquoted words":      {args: []string{"-p", "fix", "the", "bug", "--model", "m"}, want: "fix the bug"},
		"long flag and words": {args: []string{"--prompt=where", "is", "main?"}, want: "where is main?"},
		"stdin":               {args: []string{"-p", "-"}, stdin: "from stdin\n", want: "from stdin\n"},
		"stdin and words":     {args: []string{"-p", "-", "more"}, stdin: "x", wantErr: `"more" has nowhere to go`},
		"empty":               {args: []string{"-p", " "}, wantErr: "-p needs a prompt"},
		"empty stdin":         {args: []string{"-p", "-"}, wantErr: "-p needs a prompt"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			o, code, _, stderr := parse(t, tc.args...)
			if code != exitOK || o == nil {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, err := headlessPrompt(o, strings.NewReader(tc.stdin))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("prompt %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestBinaryLinksNoTestCode keeps test code out of the shipped binary: the
// main package must not depend on package testing or on anything under
// covey/e2e (the scripted server lives in internal/scripted for that).
func TestBinaryLinksNoTestCode(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed only %v", deps)
	}
	for _, d := range deps {
		if d == "testing" || d == "covey/e2e" || strings.HasPrefix(d, "covey/e2e/") || strings.HasSuffix(d, "/scriptedtest") {
			t.Errorf("the covey binary depends on %s", d)
		}
	}
}

// TestTerminalProblem checks that the full-screen session refuses to start
// where it would lose input or draw where nobody sees it, and says what to
// run instead.
func TestTerminalProblem(t *testing.T) {
	tests := map[string]struct {
		stdin, stdout bool
		want          string
	}{
		"terminal":      {stdin: true, stdout: true},
		"piped in":      {stdin: false, stdout: true, want: "covey -p -"},
		"redirected":    {stdin: true, stdout: false, want: "covey -p PROMPT"},
		"neither a tty": {want: "stdin is not a terminal"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := terminalProblem(tc.stdin, tc.stdout)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Fatalf("terminalProblem = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestGoneWorkDir checks the words when the current folder was removed
// under the shell: what happened and what to do, not "getwd: no such file".
func TestGoneWorkDir(t *testing.T) {
	gone := t.TempDir() + "/gone"
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := run([]string{"sessions"}, strings.NewReader(""), &stdout, &stderr)
	if code == exitOK || !strings.Contains(stderr.String(), "the current folder no longer exists") {
		t.Fatalf("exit %d, stderr %q; want an error saying the folder is gone", code, stderr.String())
	}
}

func TestTUIOnlyCommand(t *testing.T) {
	for prompt, want := range map[string]string{
		"/cost":           "cost",
		"  /Model gpt":    "model",
		"/init":           "",
		"/review errors":  "",
		"fix /cost there": "",
		"/usr/bin/env":    "",
	} {
		if got := tuiOnlyCommand(prompt); got != want {
			t.Errorf("tuiOnlyCommand(%q) = %q, want %q", prompt, got, want)
		}
	}
}

// TestWatchStop: after a signal, a run that does not end by itself is
// ended once the grace has passed, or at once on a second signal; a run
// that ends in time is left alone.
func TestWatchStop(t *testing.T) {
	tests := map[string]struct {
		signals int
		grace   time.Duration
		want    int // exit code, 0 for no exit
	}{
		"ends after the grace":     {signals: 1, grace: 50 * time.Millisecond, want: 128 + int(syscall.SIGUSR1)},
		"a second signal ends now": {signals: 2, grace: time.Hour, want: 128 + int(syscall.SIGUSR1)},
		"no signal, no exit":       {signals: 0, grace: 10 * time.Millisecond},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			exited := make(chan int, 1)
			var out strings.Builder
			var mu sync.Mutex
			stop := watchStopOn(lockedWriter{&mu, &out}, tc.grace, func(code int) { exited <- code }, syscall.SIGUSR1)
			defer stop()
			for range tc.signals {
				if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
					t.Fatal(err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			select {
			case code := <-exited:
				mu.Lock()
				defer mu.Unlock()
				if code != tc.want || !strings.Contains(out.String(), "stopping now") {
					t.Fatalf("exit %d with %q, want %d", code, out.String(), tc.want)
				}
			case <-time.After(2 * time.Second):
				if tc.want != 0 {
					t.Fatal("no exit")
				}
			}
		})
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestHeadlessDemo runs -p on the demo's scripted model: --demo needs no
// key headless too (it was read by the TUI only, so -p --demo asked for
// an endpoint and suggested --demo).
func TestHeadlessDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo's exchange")
	}
	t.Chdir(t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	var stdout, stderr strings.Builder
	code := run([]string{"-p", "hi", "--demo"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitOK || strings.TrimSpace(stdout.String()) == "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the demo's answer", code, stdout.String(), stderr.String())
	}
}

// TestApprovalGraceDefaultsAgree: the trust rule's floor for a project's
// approval_grace is the TUI's default.
func TestApprovalGraceDefaultsAgree(t *testing.T) {
	if config.DefaultApprovalGrace != ui.DefaultApprovalGrace {
		t.Fatalf("config.DefaultApprovalGrace %s != ui.DefaultApprovalGrace %s", config.DefaultApprovalGrace, ui.DefaultApprovalGrace)
	}
}
