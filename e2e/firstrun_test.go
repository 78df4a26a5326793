package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestCLI checks the command line as a user of Go tools expects it: GNU
// help on stdout, one line for an unknown flag, global flags after a
// subcommand.
func TestCLI(t *testing.T) {
	t.Parallel()
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env()
	tests := map[string]struct {
		args               []string
		code               int
		stdout, stderr     []string // substrings
		notStdout          []string
		stderrIsExactly    string
		stdoutEmptyOnError bool
	}{
		"--help": {
			args:      []string{"--help"},
			stdout:    []string{"Usage:", "-p, --prompt PROMPT", "    --base-url URL", "-v, --version", "-h, --help", "agents", "sessions", "tool", "worktrees"},
			notStdout: []string{" -base-url"},
		},
		"-h": {args: []string{"-h"}, stdout: []string{"--output-format FORMAT"}},
		"subcommand help": {
			args:   []string{"agents", "--help"},
			stdout: []string{"covey agents [flags]", "--json", "Global flags:", "--model NAME"},
		},
		"unknown flag": {
			args: []string{"--bogus"}, code: 2,
			stderrIsExactly: "covey: unknown flag: --bogus (run covey --help)\n", stdoutEmptyOnError: true,
		},
		"unknown short flag": {
			args: []string{"-z"}, code: 2,
			stderrIsExactly: "covey: unknown shorthand flag: 'z' in -z (run covey --help)\n", stdoutEmptyOnError: true,
		},
		"-v": {args: []string{"-v"}, stdout: []string{"covey "}},
		"global flag after a subcommand": {
			args:   []string{"tool", "read_file", `{"path":"main.go"}`, "--permission-mode", "plan"},
			stdout: []string{"package main"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := runCovey(t, ws, env, "", tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
				}
			}
			for _, s := range tc.notStdout {
				if strings.Contains(r.stdout, s) {
					t.Errorf("stdout has %q:\n%s", s, r.stdout)
				}
			}
			if tc.stderrIsExactly != "" && r.stderr != tc.stderrIsExactly {
				t.Errorf("stderr %q, want exactly %q", r.stderr, tc.stderrIsExactly)
			}
			if tc.stdoutEmptyOnError && r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
}

// TestTUIWelcomeAndQuit checks the first minute: the welcome card (model and
// endpoint, workspace, AGENTS.md, three key hints) scrolls away with the
// conversation; one ctrl+c on an empty input asks for a second one and the
// question lapses after ~2 s without quitting; two quit.
func TestTUIWelcomeAndQuit(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files["AGENTS.md"] = "# Notes for agents\n\nRun go test.\n"
	ws := workspace(t, files)
	h := newHeadlessRun(t) // the scripted server
	tm := startTUI(t, ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "--model", "e2e-model")
	host := strings.TrimSuffix(strings.TrimPrefix(h.srv.URL(), "http://"), "/v1")
	tm.waitText("covey", "e2e-model at "+host, "AGENTS.md loaded", "? help", "/agents", "ctrl+c twice quit")

	const ask = "press ctrl+c again to quit"
	tm.press("C-c")
	tm.waitText(ask)
	// The question lapses; covey is still running.
	tm.waitFor("the quit question to lapse", waitLong, func(s string) bool {
		return !strings.Contains(s, ask) && strings.Contains(s, helpLine)
	})
	time.Sleep(300 * time.Millisecond)
	tm.press("C-c")
	tm.waitText(ask) // a lone press after the window only asks again
	tm.press("Escape")
	tm.waitFor("another key to end the question", waitLong, func(s string) bool { return !strings.Contains(s, ask) })

	tm.quitAndCheck(helpLine)
}
