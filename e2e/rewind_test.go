package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// The rewind scenario: three turns change files through write_file, bash,
// and a crew of two (one child in place, one in its own worktree).
const (
	rwOne   = "[e2e:rewind] one: write a"
	rwTwo   = "two: run bash"
	rwThree = "three: send the crew"
)

func scriptRewind(srv *scripted.Server) {
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: "[e2e:rewind]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "a.txt", "content": "a from turn one\n"})}},
		{Text: "T1 done"},
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "echo b > b.txt && rm README.md"})}},
		{Text: "T2 done"},
		{ToolCalls: []scripted.Call{{ID: "call_rw_crew", Name: "task", Args: map[string]any{"tasks": []map[string]any{
			{"description": "write c in place", "subagent_type": "general-purpose", "prompt": "[rw-child] write c.txt"},
			{"description": "write w isolated", "subagent_type": "general-purpose", "prompt": "[rw-wt] write w.txt", "isolation": "worktree"},
		}}}}},
		{Text: "T3 done"},
	}})
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[rw-child]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "c.txt", "content": "c from the child\n"})}},
		{Text: "wrote c.txt"},
	}})
	srv.Add(scripted.Conversation{Name: "wt", Match: scripted.Match{FirstUser: "[rw-wt]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "w.txt", "content": "w from the worktree\n"})}},
		{Text: "wrote w.txt"},
	}})
}

// TestRewindTUI runs the scenario at 80x24 and 200x50: /rewind (esc
// twice) to the second message with each of the three choices, checking
// the files, the next request, the input line and the crew; redo goes
// forward again each time.
func TestRewindTUI(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			rewindScenario(t, size[0], size[1])
		})
	}
}

type rewindRun struct {
	t   *testing.T
	tm  *term
	ws  string
	srv *scripted.Server
}

func (r rewindRun) file(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(r.ws, name))
	return string(b), err == nil
}

// files checks which files exist (want "" for gone).
func (r rewindRun) files(what string, want map[string]string) {
	r.t.Helper()
	for name, body := range want {
		got, ok := r.file(name)
		switch {
		case body == "" && ok:
			r.t.Errorf("%s: %s is still there (%q)", what, name, got)
		case body != "" && (!ok || got != body):
			r.t.Errorf("%s: %s = %q (exists %v), want %q", what, name, got, ok, body)
		}
	}
}

// rewind opens /rewind with esc twice, picks the entry down rows from
// the top and the choice (0 both, 1 conversation, 2 code); the caller
// waits for its effect.
func (r rewindRun) rewind(down, choice int) {
	r.t.Helper()
	// esc cancels a turn still running (its answer may be on screen
	// before it has ended).
	r.tm.waitFor("the turn and the last rewind over", waitLong, func(s string) bool {
		return !strings.Contains(s, "cancel turn") && !strings.Contains(s, "rewinding to")
	})
	r.tm.press("Escape")
	r.tm.waitText("again to rewind")
	r.tm.press("Escape")
	r.tm.waitText("Rewind to before which message?")
	for range down {
		r.tm.press("Down")
	}
	r.tm.press("Enter")
	r.tm.waitText("what goes back?")
	for range choice {
		r.tm.press("Down")
	}
	r.tm.press("Enter")
	r.tm.waitFor("the rewind screen closed", waitLong, func(s string) bool { return !strings.Contains(s, "what goes back?") })
}

// waitFiles waits until the files are as want says, then checks them.
func (r rewindRun) waitFiles(what string, want map[string]string) {
	r.t.Helper()
	deadline := time.Now().Add(waitLong)
	for time.Now().Before(deadline) {
		ok := true
		for name, body := range want {
			got, exists := r.file(name)
			if (body == "") == exists || body != "" && got != body {
				ok = false
			}
		}
		if ok {
			break
		}
		time.Sleep(pollEvery)
	}
	r.files(what, want)
}

// crew opens the crew overview and returns it.
func (r rewindRun) crew() string {
	r.t.Helper()
	r.tm.press("C-g")
	s := r.tm.waitText("Crew")
	r.tm.press("Escape")
	r.tm.waitFor("the crew overview closed", waitLong, func(s string) bool { return !strings.Contains(s, "Crew ·") })
	return s
}

// inputHas checks the input line holds text.
func (r rewindRun) inputHas(text string) {
	r.t.Helper()
	r.tm.waitFor("the message back in the input", waitLong, func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "› "+text) {
				return true
			}
		}
		return false
	})
}

func rewindScenario(t *testing.T, width, height int) {
	srv := scriptedtest.New(t)
	scriptRewind(srv)
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, "--model", "e2e-model", "--permission-mode", "bypassPermissions")
	tm.waitText(helpLine)
	tm.resize(width, height)
	r := rewindRun{t: t, tm: tm, ws: ws, srv: srv}

	tm.submit(rwOne)
	tm.waitText("T1 done")
	tm.submit(rwTwo)
	tm.waitText("T2 done")
	tm.submit(rwThree)
	tm.waitText("T3 done")
	readme := sampleFiles()["README.md"]
	r.files("after three turns", map[string]string{"a.txt": "a from turn one\n", "b.txt": "b\n", "c.txt": "c from the child\n", "README.md": ""})
	if s := r.crew(); !strings.Contains(s, "write c in place") || !strings.Contains(s, "write w isolated") {
		t.Fatalf("the crew before the rewind:\n%s", frame(s))
	}
	_, wApplied := r.file("w.txt")

	// 1. Code and conversation, back to before the second message.
	r.rewind(1, 0)
	r.waitFiles("code and conversation", map[string]string{"a.txt": "a from turn one\n", "b.txt": "", "c.txt": "", "w.txt": "", "README.md": readme})
	r.inputHas(rwTwo)
	s := tm.waitText("Rewound: conversation cut before")
	if width >= 200 && !strings.Contains(s, "stopped and dropped from the crew: write-c-place, write-w-isolated") {
		t.Errorf("the outcome does not name the children dropped:\n%s", frame(s))
	}
	if s := r.crew(); strings.Contains(s, "write c in place") || strings.Contains(s, "write w isolated") {
		t.Errorf("the crew still lists the children started after the point:\n%s", frame(s))
	}
	before := len(srv.Journal())
	tm.press("Enter") // send the message the rewind put back
	tm.waitText("T2 done")
	j := srv.Journal()
	if len(j) <= before {
		t.Fatal("no request after the rewind")
	}
	var users []string
	for _, m := range j[before].Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if len(users) != 2 || !strings.Contains(users[0], rwOne) || !strings.Contains(users[1], rwTwo) {
		t.Errorf("the request after the rewind carries the user messages %q, want only the first and the resent second", users)
	}
	r.waitFiles("the second message sent again", map[string]string{"b.txt": "b\n"})

	// Redo: forward again to the branch the rewind left.
	r.rewind(0, 0)
	r.waitFiles("redo", map[string]string{"a.txt": "a from turn one\n", "b.txt": "b\n", "c.txt": "c from the child\n", "README.md": ""})
	if wApplied {
		r.files("redo", map[string]string{"w.txt": "w from the worktree\n"})
	}
	tm.waitText("T3 done")

	// 2. Conversation only: the files stay as they are.
	r.rewind(2, 1)
	r.inputHas(rwTwo)
	r.files("conversation only", map[string]string{"b.txt": "b\n", "c.txt": "c from the child\n"})
	if s := tm.screen(); strings.Contains(s, "T3 done") {
		t.Errorf("the third turn is still on screen after a conversation rewind:\n%s", frame(s))
	}
	tm.press("C-u")
	r.rewind(0, 0)
	tm.waitText("T3 done")

	// 3. Code only: the conversation stays.
	r.rewind(2, 2)
	r.waitFiles("code only", map[string]string{"a.txt": "a from turn one\n", "b.txt": "", "c.txt": "", "README.md": readme})
	tm.waitText("T3 done")
	r.rewind(0, 2)
	r.waitFiles("code only, forward again", map[string]string{"b.txt": "b\n", "c.txt": "c from the child\n", "README.md": ""})
}
