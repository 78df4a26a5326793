package headless

import (
	"errors"
	"strings"
	"testing"
	"time"

	"covey/agent"
)

// TestFinishSaysWhatHappened checks the last words of a run on stderr: an
// empty answer is said to be empty (an empty stdout alone looks like a lost
// answer), a failure says why, and an answer needs no note.
func TestFinishSaysWhatHappened(t *testing.T) {
	tests := map[string]struct {
		res        agent.Result
		err        error
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		"answer":       {res: agent.Result{Answer: "42", Reason: agent.StopOK}, wantStdout: "42\n"},
		"empty answer": {res: agent.Result{Reason: agent.StopOK}, wantStderr: "covey: the model's answer was empty\n"},
		"blank answer": {res: agent.Result{Answer: " \n", Reason: agent.StopOK}, wantStdout: "", wantStderr: "covey: the model's answer was empty\n"},
		"failed":       {res: agent.Result{Reason: agent.StopError}, err: errors.New("boom"), wantCode: ExitRun, wantStderr: "covey: boom\n"},
		"one turn":     {res: agent.Result{Reason: agent.StopMaxTurns, Turns: 1}, wantCode: ExitRun, wantStderr: "covey: stopped after 1 turn (--max-turns); the answer may be incomplete\n"},
		"two turns":    {res: agent.Result{Reason: agent.StopMaxTurns, Turns: 2, Answer: "so far"}, wantCode: ExitRun, wantStdout: "so far", wantStderr: "covey: stopped after 2 turns (--max-turns); the answer may be incomplete\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := newHeadlessOutput("text", &stdout, &stderr).finish(tc.res, tc.err)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d", code, tc.wantCode)
			}
			if got := strings.TrimSpace(stdout.String()); got != strings.TrimSpace(tc.wantStdout) {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.wantStdout)
			}
			if stderr.String() != tc.wantStderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}

// TestProgressIsTermSafe checks that a progress line built from the model's
// words (a task's description, a tool's argument) cannot reach stderr with
// escape sequences, while a piped answer stays exactly as the model sent it.
func TestProgressIsTermSafe(t *testing.T) {
	var stdout, stderr strings.Builder
	o := newHeadlessOutput("text", &stdout, &stderr)
	o.progress("✓ %s %s", "bash", "printf '\x1b[?25l'")
	if strings.Contains(stderr.String(), "\x1b") {
		t.Errorf("progress line %q holds an escape sequence", stderr.String())
	}
	o.finish(agent.Result{Answer: "exact \x1b[1mbold\x1b[0m", Reason: agent.StopOK}, nil)
	if stdout.String() != "exact \x1b[1mbold\x1b[0m\n" {
		t.Errorf("piped answer %q was changed", stdout.String())
	}
}

// TestCollisionLines checks the stderr lines of the collision radar: a
// write to a file a sibling touched, and declared paths that overlap.
func TestCollisionLines(t *testing.T) {
	src := agent.Source{AgentID: "general-purpose-2", Name: "narrow", AgentType: "general-purpose", Description: "write docs", Depth: 1, ParentID: agent.MainAgentID}
	tests := map[string]struct {
		ev   agent.Collision
		want string
	}{
		"wrote":    {agent.Collision{Source: src, Path: "a.go", WithName: "wide (general-purpose-1)", Action: "read", Ago: 2 * time.Second}, "[general-purpose] write docs: ⚠ collision: wrote a.go, which wide (general-purpose-1) read 2.0s ago\n"},
		"declared": {agent.Collision{Source: src, Path: "NOTES.md ~ *.md", WithName: "wide (general-purpose-1)", Action: "declared"}, "[general-purpose] write docs: ⚠ overlap: its declared paths meet those of wide (general-purpose-1) (NOTES.md ~ *.md)\n"},
		"main":     {agent.Collision{Source: agent.Source{AgentID: agent.MainAgentID}, Path: "a.go", WithName: "wide (general-purpose-1)", Action: "wrote", Ago: time.Second}, "main: ⚠ collision: wrote a.go, which wide (general-purpose-1) wrote 1.0s ago\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			newHeadlessOutput("text", &stdout, &stderr).event(tc.ev)
			if stderr.String() != tc.want {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.want)
			}
		})
	}
}
