package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// inputSizes are the terminal sizes the input's conveniences are tested
// at: a small terminal and a large one.
var inputSizes = []struct{ w, h int }{{80, 24}, {200, 50}}

// startInputTUI starts covey on a workspace holding files, against srv,
// in a terminal of w×h.
func startInputTUI(t *testing.T, srv *scripted.Server, files map[string]string, w, h int) (*term, string) {
	t.Helper()
	ws := workspace(t, files)
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.resize(w, h)
	tm.waitFor(fmt.Sprintf("a %dx%d screen", w, h), waitLong, func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return len(lines) == h && strings.Contains(s, strings.Repeat("─", w))
	})
	return tm, ws
}

// inputArea is the part of screen below the input's rule (a line of w
// "─"): the input, the status line and the help line.
func inputArea(screen string, w int) string {
	rule := strings.Repeat("─", w)
	i := strings.LastIndex(screen, rule)
	if i < 0 {
		return ""
	}
	return screen[i+len(rule):]
}

// requestWith is the one request of conversation name; it fails the test
// when there is none.
func requestWith(t *testing.T, srv *scripted.Server, name string, turn int) scripted.Entry {
	t.Helper()
	for _, e := range srv.Journal() {
		if e.Conversation == name && e.Turn == turn {
			return e
		}
	}
	t.Fatalf("no request of %s turn %d; the journal: %+v", name, turn, srv.Journal())
	return scripted.Entry{}
}

// TestTUIAttachFile: "@" completes the workspace's paths (what .gitignore
// hides is not offered), tab puts the path in the message, and the model
// gets the file's content while the transcript shows one attachment line.
func TestTUIAttachFile(t *testing.T) {
	t.Parallel()
	for _, size := range inputSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "attach", Match: scripted.Match{FirstUser: "[e2e:attach]"}, Turns: []scripted.Turn{
				{Text: "E2E attach answered."},
			}})
			files := sampleFiles()
			files["src/attach.go"] = "package src\n\n// E2E-ATTACH-CONTENT is what the model must see.\nconst x = 1\n"
			files[".gitignore"] = "build/\n"
			tm, ws := startInputTUI(t, srv, files, size.w, size.h)
			// Ignored, so never committed by workspace: written after it.
			if err := os.MkdirAll(filepath.Join(ws, "build"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "build", "attach_gen.go"), []byte("package build\n"), 0o644); err != nil {
				t.Fatal(err)
			}

			tm.typeText("[e2e:attach] explain @att")
			s := tm.waitText("@src/attach.go")
			if strings.Contains(s, "attach_gen.go") {
				t.Errorf("an ignored file is offered:\n%s", frame(s))
			}
			tm.press("Tab")
			tm.waitText("explain @src/attach.go")
			tm.press("Enter")
			s = tm.waitText("attached file @src/attach.go", "E2E attach answered.")
			if strings.Contains(s, "E2E-ATTACH-CONTENT") {
				t.Errorf("the transcript shows the attached file's content:\n%s", frame(s))
			}
			first := requestWith(t, srv, "attach", 0).FirstUser
			if !strings.HasPrefix(first, "[e2e:attach] explain @src/attach.go") ||
				!strings.Contains(first, `<attached-file path="src/attach.go">`) || !strings.Contains(first, "E2E-ATTACH-CONTENT") {
				t.Errorf("the model got:\n%s", first)
			}
			tm.quitAndCheck(helpLine)
		})
	}
}

// TestTUIShellCommand: "!" turns the input into a shell command (the
// glyph and the hint say so); the user typed the command, so it runs
// without asking (under the sandbox), its whole output shows as a bash
// block (not a 3-line preview), and the model's next request carries the
// command and its output.
func TestTUIShellCommand(t *testing.T) {
	t.Parallel()
	for _, size := range inputSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "bang", Match: scripted.Match{FirstUser: "[e2e:bang]"}, Turns: []scripted.Turn{
				{Text: "E2E bang answered."},
			}})
			tm, _ := startInputTUI(t, srv, sampleFiles(), size.w, size.h)
			tm.typeText("!")
			tm.waitText("! shell command")
			tm.typeText("seq 101 112; echo E2E-BANG-$((6*7))")
			tm.waitText("! seq 101 112; echo E2E-BANG-$((6*7))")
			tm.press("Enter")
			s := tm.waitFor("the command's end or an approval", waitLong, func(s string) bool {
				return strings.Contains(s, "Allow bash") || strings.Contains(s, "exit 0")
			})
			if strings.Contains(s, "Allow bash") {
				t.Fatalf("the user's own command asks for approval:\n%s", frame(s))
			}
			if strings.Contains(s, "❯ !seq") {
				t.Errorf("the command went to the model as a message:\n%s", frame(s))
			}
			for _, want := range []string{"101", "106", "112", "E2E-BANG-42"} {
				if !regexp.MustCompile(`(?m)^\s+(⎿ )?` + want + `\s*$`).MatchString(s) {
					t.Errorf("the command's output line %q is not shown (the output is clipped):\n%s", want, frame(s))
				}
			}
			if strings.Contains(s, "more line") {
				t.Errorf("the user's command's output is cut to a preview:\n%s", frame(s))
			}
			tm.submit("[e2e:bang] what did it print?")
			tm.waitText("E2E bang answered.")
			first := requestWith(t, srv, "bang", 0).FirstUser
			if !strings.Contains(first, "The user ran `seq 101 112; echo E2E-BANG-$((6*7))`") || !strings.Contains(first, "E2E-BANG-42") ||
				!strings.HasSuffix(first, "[e2e:bang] what did it print?") {
				t.Errorf("the model got:\n%s", first)
			}
			tm.quitAndCheck(helpLine)
		})
	}
}

// TestTUIPasteCollapsed: a long bracketed paste shows as a marker with
// the expand key in the hint, and the model gets the whole text; pasted
// again and expanded with the key, the text itself is in the input.
func TestTUIPasteCollapsed(t *testing.T) {
	t.Parallel()
	for _, size := range inputSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "paste", Match: scripted.Match{FirstUser: "[e2e:paste]"}, Turns: []scripted.Turn{
				{Text: "E2E paste answered."},
				{Text: "E2E expanded answered."},
			}})
			tm, _ := startInputTUI(t, srv, sampleFiles(), size.w, size.h)
			var b strings.Builder
			for i := 1; i <= 30; i++ {
				fmt.Fprintf(&b, "E2E-PASTE line %d\n", i)
			}
			text := b.String()
			buf := filepath.Join(t.TempDir(), "paste.txt")
			if err := os.WriteFile(buf, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			tm.tmux("load-buffer", "-b", "e2e", buf)
			paste := func() { tm.tmux("paste-buffer", "-p", "-b", "e2e", "-t", sessionName) }

			tm.typeText("[e2e:paste] count ")
			paste()
			s := tm.waitText("[e2e:paste] count [pasted 30 lines]", "ctrl+x expand pasted text")
			if strings.Contains(s, "E2E-PASTE line") {
				t.Errorf("the pasted text shows in the input:\n%s", frame(s))
			}
			tm.typeText(" please")
			tm.press("Enter")
			s = tm.waitText("❯ [e2e:paste] count [pasted 30 lines] please", "E2E paste answered.")
			if strings.Contains(s, "E2E-PASTE line") {
				t.Errorf("the transcript shows the pasted text:\n%s", frame(s))
			}
			first := requestWith(t, srv, "paste", 0).FirstUser
			if first != "[e2e:paste] count "+text+" please" {
				t.Errorf("the model got %q", first)
			}

			// The transcript shows the first message now: look at the
			// input alone.
			paste()
			tm.waitFor("the marker in the input", waitLong, func(s string) bool {
				return strings.Contains(inputArea(s, size.w), "[pasted 30 lines]")
			})
			tm.press("C-x")
			tm.waitFor("the pasted text in the input", waitLong, func(s string) bool {
				in := inputArea(s, size.w)
				return strings.Contains(in, "E2E-PASTE line") && !strings.Contains(in, "[pasted 30 lines]")
			})
			tm.press("Enter")
			tm.waitText("E2E expanded answered.")
			last := scripted.Request{Entry: requestWith(t, srv, "paste", 1)}.LastUser()
			if last != strings.TrimRight(text, "\n") && last != text {
				t.Errorf("the model got %q after the expansion", last)
			}
			tm.quitAndCheck(helpLine)
		})
	}
}

// TestHeadlessAttachFile: -p attaches "@path" files as the TUI does, and
// stderr says so.
func TestHeadlessAttachFile(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "hattach", Match: scripted.Match{FirstUser: "[e2e:hattach]"}, Turns: []scripted.Turn{
		{Text: "E2E headless attach answered."},
	}})
	r := h.run(t, "", "-p", "[e2e:hattach] explain @greet.go and @nothing/here.go")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "E2E headless attach answered." {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "attached file @greet.go") || !strings.Contains(r.stderr, "@nothing/here.go not attached") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	first := requestWith(t, h.srv, "hattach", 0).FirstUser
	if !strings.Contains(first, `<attached-file path="greet.go">`) || !strings.Contains(first, "func greeting() string") {
		t.Errorf("the model got:\n%s", first)
	}
}
