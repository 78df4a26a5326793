package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"covey/internal/scripted"
)

// lastLine is the screen's bottom line: the hint line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// paneFocused reports whether the pane of description has the focus.
func paneFocused(s, description string) bool {
	h, _, ok := paneHeader(s, description)
	return ok && strings.HasPrefix(h, "▌")
}

// helpPages presses ? until the hint line comes back and returns every
// page the full help showed. It waits on the help's state (the hint line,
// or which page shows), not on any change of the screen: a live pane's
// spinner changes the screen before the key is read.
func helpPages(tm *term) string {
	tm.t.Helper()
	var all strings.Builder
	prev := tm.screen()
	state := helpState(prev)
	for range 12 {
		tm.press("?")
		prev = tm.waitFor("? to change the help", waitLong, func(s string) bool { return helpState(s) != state })
		if state = helpState(prev); state == "hint" {
			return all.String()
		}
		all.WriteString(prev)
	}
	tm.t.Fatalf("? never brought the hint line back:\n%s", frame(prev))
	return ""
}

var helpPageRe = regexp.MustCompile(`page (\d+)/(\d+) · `)

// helpState says what the help shows: "hint" (the one-line hint, ending
// with "? more"), or the full help's page ("page 1/1" when it fits).
func helpState(s string) string {
	if strings.Contains(lastLine(s), "? more") {
		return "hint"
	}
	if m := helpPageRe.FindString(s); m != "" {
		return strings.TrimSuffix(m, " · ")
	}
	return "page 1/1"
}

// TestTUIKeysAndViews drives issue 22 §1–2 at 80x24 and 200x50: the
// welcome card names the crew keys; on a focused pane the hint line keeps
// the pane's keys and ends with "? more", and ? reaches every key of it,
// paged when the screen is small; the overview and the full-screen view
// show their own keys where the input stands; esc goes back to where the
// user came from; x asks for a second x, esc keeps the child; p on a
// finished pane says why it does nothing and types nothing.
func TestTUIKeysAndViews(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			tm, srv, _ := startCrew(t)
			tm.resize(size[0], size[1])
			tm.waitText("tab to a subagent's pane, then o open")
			hold := newGate(t)
			runner := child{marker: "[e2e:keys]", description: "run long", turns: []scripted.Turn{
				{Text: "Globbing.", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"})}},
				hold.hold(scripted.Turn{Text: "runner report.", ChunkSize: 100}),
			}}
			srv.Add(runner.conversation())
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				spawn("One runner.", runner),
				{Text: "E2E keys: the runner was cancelled.", ChunkSize: 100},
			}})
			tm.submit("start the runner")
			tm.waitMatch(toolsRe("run long", 1))
			focusPane(tm, "run long")

			s := tm.waitText("? more")
			for _, want := range []string{"o open", "m message", "p pause/resume", "? more"} {
				if !strings.Contains(lastLine(s), want) {
					t.Errorf("the hint line lacks %q: %q", want, lastLine(s))
				}
			}
			help := helpPages(tm)
			for _, want := range []string{"o open full-screen", "m message", "p pause/resume", "ctrl+b background",
				"x cancel", "ctrl+g crew overview", "esc back to the input", "shift+tab focus previous block"} {
				if !strings.Contains(help, want) {
					t.Errorf("? never shows %q:\n%s", want, help)
				}
			}

			// The overview, opened from the pane: its keys where the
			// input was; esc gives the focus back to the pane.
			tm.press("C-g")
			s = tm.waitText("▸ crew overview: esc back to the pane")
			if strings.Contains(s, "Ask covey") {
				t.Errorf("the overview still shows the prompt:\n%s", frame(s))
			}
			tm.press("Escape")
			tm.waitFor("the pane to have the focus again", waitLong, func(s string) bool {
				return paneFocused(s, "run long") && !strings.Contains(s, "crew overview:")
			})

			// o opens it full-screen; a first x asks, esc keeps it; esc
			// again goes back to the pane.
			tm.press("o")
			tm.waitText("▸ subagent view: esc back to the pane")
			tm.press("x")
			tm.waitText("x again to cancel run-long · esc keeps it")
			tm.press("Escape")
			s = tm.waitFor("the confirm to go", waitLong, func(s string) bool { return !strings.Contains(s, "x again") })
			if !strings.Contains(s, "▸ subagent view") {
				t.Fatalf("esc that kept the child also left the view:\n%s", frame(s))
			}
			tm.press("Escape")
			tm.waitFor("the pane to have the focus again", waitLong, func(s string) bool {
				return paneFocused(s, "run long") && !strings.Contains(s, "subagent view:")
			})

			// x x cancels it; p then says why it does nothing.
			tm.press("x")
			tm.waitText("x again to cancel run-long")
			tm.press("x")
			tm.waitText("E2E keys: the runner was cancelled.")
			focusPane(tm, "run long")
			tm.press("p")
			s = tm.waitText("run-long has ended (cancelled): nothing to pause")
			if strings.Contains(s, "› p") || !paneFocused(s, "run long") {
				t.Errorf("p on a finished pane typed into the input or left the pane:\n%s", frame(s))
			}
			tm.press("Escape")
			tm.waitText("enter send")
			tm.quitAndCheck("enter send")
		})
	}
}

// TestTUIApprovalGrace: a request that appears while the user types is
// not answered by the keys in flight; its keys show dimmed after "wait…"
// until the keyboard has been quiet, then y answers it.
func TestTUIApprovalGrace(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			const answer = "E2E grace answer: ran it."
			// A grace of 3 s (approval_grace) rather than 425 ms: the keys
			// below are 150 ms apart, and a loaded machine must not stretch
			// a gap past the grace.
			files := sampleFiles()
			files[".covey/config.yaml"] = "approval_grace: 3s\n"
			tm, _, _ := startApproval(t, files, "[e2e:grace] run it",
				scripted.Turn{Text: "Running.", ToolCalls: []scripted.Call{{ID: "call_grace", Name: "bash",
					Args: map[string]any{"command": "echo graceful"}}}},
				scripted.Turn{Text: answer, ChunkSize: 100},
			)
			tm.resize(size[0], size[1])
			tm.waitText("? Allow bash")
			// Keys typed in the grace are no answer, and each starts it
			// again: the request keeps saying "wait…".
			for range 4 {
				tm.typeText("n")
				time.Sleep(150 * time.Millisecond)
				if s := tm.screen(); !strings.Contains(s, "wait… y allow") {
					t.Fatalf("the grace does not show while keys arrive:\n%s", frame(s))
				}
			}
			tm.waitApprovalReady()
			s := tm.waitText("y allow")
			if strings.Contains(s, "denied") || strings.Contains(s, answer) {
				t.Fatalf("a key typed during the grace answered the request:\n%s", frame(s))
			}
			tm.press("y")
			tm.waitText(answer, "allowed")
		})
	}
}
