package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestHeadlessDamagedLine breaks the JSON of a user message in a session
// file, then continues it headless: stderr names the line and says a
// message of the user was lost, and the model gets a history whose roles
// alternate (a marked placeholder where the message was), not two replies
// in a row.
func TestHeadlessDamagedLine(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	const (
		first  = "remember the word plum"
		second = "and the word pear"
		third  = "which words?"
	)
	crashScript(h.srv, map[string]scripted.Turn{
		first:  {Text: "I will remember plum."},
		second: {Text: "I will remember pear."},
		third:  {Text: "E2E damage answer."},
	})
	for i, p := range []string{first, second} {
		args := []string{"-p", p}
		if i > 0 {
			args = append(args, "--continue")
		}
		if r := h.run(t, "", args...); r.code != 0 {
			t.Fatalf("run %q: exit %d\n%s", p, r.code, r.stderr)
		}
	}
	files, _ := filepath.Glob(filepath.Join(h.box.home, ".local/share/covey/sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	n := 0
	for i, ln := range lines {
		if strings.Contains(ln, `"content":"`+second+`"`) {
			n = i + 1
			lines[i] = strings.Replace(ln, `"content":"`+second+`"`, `"content":"and the wo`, 1)
		}
	}
	if n == 0 {
		t.Fatalf("no user message %q in the session:\n%s", second, data)
	}
	if err := os.WriteFile(files[0], []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}

	r := h.run(t, "", "-p", third, "--continue")
	if r.code != 0 || !strings.Contains(r.stdout, "E2E damage answer.") {
		t.Fatalf("continued run: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	want := "line " + strconv.Itoa(n) + " is damaged"
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "a message of the user was lost") {
		t.Errorf("stderr does not say %q and what was lost:\n%s", want, r.stderr)
	}
	last := lastRequest(t, h.srv, "main")
	prev := ""
	var roles []string
	for _, m := range last.Messages {
		roles = append(roles, m.Role)
		if m.Role == "assistant" && prev == "assistant" {
			t.Errorf("two assistant messages in a row in the request: %v", roles)
		}
		if m.Role != "system" {
			prev = m.Role
		}
	}
	if !strings.Contains(last.Messages[len(last.Messages)-3].Content, "lost") {
		t.Errorf("no placeholder where the user's message was: %+v", last.Messages)
	}
}

// TestTUIDamagedLine resumes, in the TUI, a session whose user message has
// a broken line: the screen names the line and what was lost.
func TestTUIDamagedLine(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	const first = "remember the word fig"
	crashScript(h.srv, map[string]scripted.Turn{first: {Text: "I will remember fig."}})
	if r := h.run(t, "", "-p", first); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(h.box.home, ".local/share/covey/sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	n := 0
	for i, ln := range lines {
		if strings.Contains(ln, `"content":"`+first+`"`) {
			n = i + 1
			lines[i] = strings.Replace(ln, `"content":"`+first+`"`, `"content":"remember`, 1)
		}
	}
	if err := os.WriteFile(files[0], []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := startTUI(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "--model", "e2e-model", "--continue")
	tm.waitText("line "+strconv.Itoa(n)+" is damaged", "I will remember fig.")
	s := strings.Join(strings.Fields(tm.waitText(helpLine)), " ")
	if !strings.Contains(s, "a message of the user was lost") {
		t.Errorf("the TUI does not say what was lost:\n%s", s)
	}
	tm.quitAndCheck(helpLine)
}
