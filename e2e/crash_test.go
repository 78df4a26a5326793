package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// crashScript answers the main agent by the prompt it was given, whatever
// turn number the request has: after a crash the resumed conversation may
// or may not hold the cut answer, so the turn index is not known up front.
func crashScript(srv *scripted.Server, answers map[string]scripted.Turn) {
	turn := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		// The prompt ends the last user message (an unanswered one before
		// it is joined in front, see agent.UnansweredNote).
		last := r.LastUser()
		for prompt, answer := range answers {
			if strings.HasSuffix(last, prompt) {
				return answer
			}
		}
		return scripted.Turn{Text: "unscripted prompt: " + last}
	}}
	turns := make([]scripted.Turn, 8)
	for i := range turns {
		turns[i] = turn
	}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: turns})
}

// coveyPID is the covey process running in the pane: the child of the sh
// that startTUI runs there. It checks the child really is the binary under
// test, so the test never kills anything else.
func (tm *term) coveyPID() int {
	tm.t.Helper()
	shell := strings.TrimSpace(tm.tmux("list-panes", "-t", sessionName, "-F", "#{pane_pid}"))
	out, err := exec.Command("pgrep", "-P", shell).Output()
	if err != nil {
		tm.t.Fatalf("pgrep -P %s (the pane's sh): %v", shell, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 1 {
		tm.t.Fatalf("the pane's sh (pid %s) has children %q, want covey alone", shell, fields)
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		tm.t.Fatalf("pgrep printed %q: %v", fields[0], err)
	}
	exe, err := os.Readlink(filepath.Join("/proc", fields[0], "exe"))
	if err != nil {
		tm.t.Fatalf("the pane's child %d: %v", pid, err)
	}
	if want := coveyBin(tm.t); exe != want {
		tm.t.Fatalf("the pane's child %d runs %q, want the covey binary %q", pid, exe, want)
	}
	return pid
}

// resumedRe matches the notice of a resumed session and captures its ID.
var resumedRe = regexp.MustCompile(`resumed session (\S+) \((\d+) messages?\)`)

// TestTUIContinueAfterSIGKILL kills covey with SIGKILL while an answer
// streams in, then starts `covey --continue` in the same workspace: the
// earlier conversation is back on screen, and the next prompt reaches the
// model with that history, in a conversation every provider accepts.
func TestTUIContinueAfterSIGKILL(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	box := newSandbox(t)
	env := box.env("OPENAI_BASE_URL=" + srv.URL())

	const (
		first       = "crash first prompt"
		firstAnswer = "FIRST ANSWER done"
		second      = "crash second prompt"
		third       = "crash third prompt"
		thirdAnswer = "THIRD ANSWER after the crash"
	)
	slow := "SLOW ANSWER begins" + strings.Repeat(" and goes on", 60) + " SLOW END"
	crashScript(srv, map[string]scripted.Turn{
		first:  {Text: firstAnswer, ChunkSize: len(firstAnswer)},
		second: {Text: slow, ChunkSize: 12, ChunkDelay: 200 * time.Millisecond},
		third:  {Text: thirdAnswer, ChunkSize: len(thirdAnswer)},
	})

	tm := startTUI(t, ws, env, "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit(first)
	tm.waitFor("the first answer and the end of its turn", waitLong, func(s string) bool {
		return strings.Contains(s, firstAnswer) && !strings.Contains(s, "esc interrupt")
	})
	tm.submit(second)
	tm.waitText("SLOW ANSWER begins")
	// The screen may be ahead of the session file by the recorder's
	// flush: the kill comes once the file holds what the screen showed.
	deadline := time.Now().Add(waitLong)
	for !sessionFilesHold(t, box, "begins") {
		if time.Now().After(deadline) {
			t.Fatal("the session file never held the streamed text")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := tm.screen(); strings.Contains(s, "SLOW END") {
		t.Fatalf("the slow answer finished before the kill:\n%s", frame(s))
	}
	if err := syscall.Kill(tm.coveyPID(), syscall.SIGKILL); err != nil {
		t.Fatalf("kill covey: %v", err)
	}
	// sh reports 128+9 once covey is gone; the terminal stays as covey
	// left it, which is what a crash does.
	if code, _, s := tm.exited(); code != "137" {
		t.Fatalf("covey exited with %q after SIGKILL, want 137:\n%s", code, frame(s))
	}

	tm2 := startTUI(t, ws, env, "--model", "e2e-model", "--continue")
	s := tm2.waitOK("the resumed conversation", func(s string) error {
		for _, want := range []string{first, firstAnswer, second} {
			if !strings.Contains(s, want) {
				return fmt.Errorf("%q is not on screen", want)
			}
		}
		if !resumedRe.MatchString(s) {
			return fmt.Errorf("no resumed session notice")
		}
		return nil
	})
	if !strings.Contains(s, "interrupted: covey stopped") {
		t.Errorf("the answer cut by the kill is not marked interrupted:\n%s", frame(s))
	}
	id := resumedRe.FindStringSubmatch(s)[1]
	if got := runCovey(t, ws, env, "", "sessions"); got.code != 0 || !strings.Contains(got.stdout, id) {
		t.Errorf("covey sessions (exit %d) does not list the resumed session %s:\n%s%s", got.code, id, got.stdout, got.stderr)
	}

	tm2.submit(third)
	tm2.waitText(thirdAnswer)
	last := lastRequest(t, srv, "main")
	if got := (scripted.Request{Entry: last}).LastUser(); !strings.Contains(got, third) {
		t.Fatalf("the last request ends with user message %q, want the third prompt", got)
	}
	var history []string
	for _, m := range last.Messages {
		history = append(history, m.Role+": "+m.Content)
	}
	joined := strings.Join(history, "\n")
	// The answer the kill cut is carried as far as it came: the model
	// sees what the user saw.
	for _, want := range []string{"user: " + first, "assistant: " + firstAnswer, "user: " + second, "assistant: SLOW ANSWER begins"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the request after --continue lacks %q; its messages:\n%s", want, joined)
		}
	}
	if missing := unansweredCalls(last.Messages); len(missing) > 0 {
		t.Errorf("the request after --continue leaves tool calls unanswered: %v", missing)
	}
	tm2.quitAndCheck(helpLine)
}

// TestHeadlessContinue runs two headless prompts, the second with
// --continue: its request carries the first exchange.
func TestHeadlessContinue(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	const (
		first       = "remember the word plum"
		firstAnswer = "I will remember plum."
		second      = "what word?"
	)
	crashScript(h.srv, map[string]scripted.Turn{
		first:  {Text: firstAnswer},
		second: {Text: "The word was plum."},
	})
	if r := h.run(t, "", "-p", first); r.code != 0 || !strings.Contains(r.stdout, firstAnswer) {
		t.Fatalf("first run: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r := h.run(t, "", "-p", second, "--continue")
	if r.code != 0 || !strings.Contains(r.stdout, "The word was plum.") {
		t.Fatalf("continued run: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	last := lastRequest(t, h.srv, "main")
	var roles []string
	for _, m := range last.Messages {
		if m.Role != "system" {
			roles = append(roles, m.Role+": "+m.Content)
		}
	}
	want := []string{"user: " + first, "assistant: " + firstAnswer, "user: " + second}
	if strings.Join(roles, "\n") != strings.Join(want, "\n") {
		t.Errorf("the continued request's messages are\n%s\nwant\n%s", strings.Join(roles, "\n"), strings.Join(want, "\n"))
	}
	if missing := unansweredCalls(last.Messages); len(missing) > 0 {
		t.Errorf("the continued request leaves tool calls unanswered: %v", missing)
	}
}

// sessionFilesHold reports whether a session file in box holds text.
func sessionFilesHold(t *testing.T, box sandbox, text string) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(box.home, ".local", "share", "covey", "sessions", "*.jsonl"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), text) {
			return true
		}
	}
	return false
}
