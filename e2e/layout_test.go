package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// layoutSizes are the terminal sizes every layout item of issue 22 §4 is
// tried at: the narrowest the TUI supports well and a wide one.
var layoutSizes = []struct{ w, h int }{{80, 24}, {200, 50}}

// readableEnd is the last column of a pane header's stats on a wide
// terminal: the focus gutter and ui's headerReadable.
const readableEnd = 2 + 100

// atSize runs test once per layout size, in parallel, each with a TUI
// started by start and resized to the size.
func atSize(t *testing.T, test func(t *testing.T, w, h int)) {
	for _, size := range layoutSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			test(t, size.w, size.h)
		})
	}
}

// resizeTo resizes the terminal and waits for a whole frame at the new size.
func resizeTo(tm *term, w, h int) {
	tm.resize(w, h)
	tm.waitOK(fmt.Sprintf("the screen to reflow to %dx%d", w, h), func(s string) error { return checkLayout(s, w, h) })
}

// startAt starts covey's TUI at w×h in a workspace of files against a
// scripted server whose main agent follows turns, and sends prompt.
func startAt(t *testing.T, w, h int, files map[string]string, prompt string, turns ...scripted.Turn) (*term, string) {
	t.Helper()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: prompt}, Turns: turns})
	ws := workspace(t, files)
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	resizeTo(tm, w, h)
	tm.submit(prompt)
	return tm, ws
}

// TestTUILayoutPaneStats: a subagent pane's and a background shell's stats
// sit at the right edge of a narrow terminal, and within a readable width
// of their names on a wide one (not 130 columns away).
func TestTUILayoutPaneStats(t *testing.T) {
	atSize(t, func(t *testing.T, w, h int) {
		tm, srv, _ := startCrew(t, "--permission-mode", "bypassPermissions")
		resizeTo(tm, w, h)
		hold := newGate(t)
		c := child{marker: "[e2e:layout-stats]", description: "layout stats", turns: []scripted.Turn{
			{Text: "Looking.", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"})}},
			hold.hold(scripted.Turn{Text: "report: three Go files."}),
		}}
		task := spawn("")
		task.ToolCalls[0].Args = map[string]any{"tasks": []map[string]string{c.task("Look around the workspace and report.")}}
		srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{{ID: "call_bg", Name: "bash", Args: map[string]any{"command": "echo layout-tick; sleep 30", "run_in_background": true}}}},
			task,
			{Text: "E2E layout stats answer.", ChunkSize: 100},
		}})
		srv.Add(c.conversation())
		tm.submit("start a shell and a child")
		shellRe := regexp.MustCompile(`shell-1 \[shell\] echo layout-tick.* · \d+ B`)
		s := tm.waitFor("both panes with their stats", waitLong, func(s string) bool {
			return toolsRe(c.description, 1).MatchString(s) && shellRe.MatchString(s)
		})
		want := w
		if w > readableEnd {
			want = readableEnd
		}
		for _, l := range strings.Split(s, "\n") {
			if !toolsRe(c.description, 1).MatchString(l) && !shellRe.MatchString(l) {
				continue
			}
			if end := ansi.StringWidth(strings.TrimRight(l, " ")); end != want {
				t.Errorf("at %d columns the stats end at column %d, want %d: %q", w, end, want, l)
			}
		}
		hold.open()
		tm.waitText("E2E layout stats answer.")
		tm.quitAndCheck(helpLine)
	})
}

// TestTUILayoutNewFileIsUnified: a new file's approval is unified at any
// width (side by side left its old half empty at 200 columns), and offers
// no layout to toggle.
func TestTUILayoutNewFileIsUnified(t *testing.T) {
	atSize(t, func(t *testing.T, w, h int) {
		prompt := fmt.Sprintf("[e2e:layout-newfile-%d] write the notes", w)
		tm, ws := startAt(t, w, h, sampleFiles(), prompt,
			scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_new", Name: "write_file",
				Args: map[string]any{"path": "notes.md", "content": "# Notes\n\none\ntwo\nthree\n"}}}},
			scripted.Turn{Text: "E2E new file answer.", ChunkSize: 100},
		)
		s := tm.waitText("notes.md", "(new file)", "1 +# Notes", "5 +three", "y allow")
		tm.waitApprovalReady()
		if strings.Contains(s, " │ ") || strings.Contains(s, "side by side") || strings.Contains(s, "t unified") {
			t.Errorf("the new file's approval is side by side or offers it at %d columns:\n%s", w, frame(s))
		}
		tm.press("t") // no layout to toggle: nothing changes but a word why
		// Read before y is pressed: "ty" arriving together is typed text.
		s = tm.waitText("no side by side")
		if strings.Contains(s, " │ ") {
			t.Errorf("t turned the new file's approval side by side at %d columns:\n%s", w, frame(s))
		}
		tm.press("y")
		tm.waitText("E2E new file answer.")
		if _, err := os.Stat(filepath.Join(ws, "notes.md")); err != nil {
			t.Errorf("the allowed file was not written: %v", err)
		}
		tm.quitAndCheck(helpLine)
	})
}

// TestTUILayoutWideDiff: an approval's diff line wider than the screen is
// cut with a note of the columns shown, and > and < scroll it sideways;
// once allowed, the tool call's diff in the transcript wraps the line
// into ↪ rows, so all of it shows.
func TestTUILayoutWideDiff(t *testing.T) {
	atSize(t, func(t *testing.T, w, h int) {
		long := "\tfmt.Println(\"" + strings.Repeat("wide ", 60) + "END-OF-LINE\")\n"
		files := sampleFiles()
		prompt := fmt.Sprintf("[e2e:layout-wide-%d] widen main", w)
		tm, ws := startAt(t, w, h, files, prompt,
			scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_read", Name: "read_file", Args: map[string]any{"path": "main.go"}}}},
			scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_wide", Name: "edit_file", Args: map[string]any{"path": "main.go",
				"old_string": "\tfmt.Println(greeting()) // TODO: flags\n", "new_string": long}}}},
			scripted.Turn{Text: "E2E wide diff answer.", ChunkSize: 100},
		)
		tm.waitText("main.go", "y allow", "sideways")
		tm.waitApprovalReady()
		s := tm.screen()
		if !strings.Contains(s, "cols 1–") || strings.Contains(s, "END-OF-LINE") {
			t.Fatalf("the wide line is not cut with a column note:\n%s", frame(s))
		}
		if (w >= 140) != strings.Contains(s, " │ ") {
			t.Errorf("side by side at %d columns: %v\n%s", w, strings.Contains(s, " │ "), frame(s))
		}
		// One key at a time, each seen before the next: keys typed in one
		// burst reach Bubble Tea as one run of letters. The note says when
		// the edge is reached ("cols 1–" at the left, "–N of N" at the
		// right), so no key is pressed there and none waits in vain.
		colsRe := regexp.MustCompile(`cols (\d+)–(\d+) of (\d+)`)
		scroll := func(key string, atEdge func(first, last, of string) bool) {
			for range 40 {
				s := tm.screen()
				m := colsRe.FindStringSubmatch(s)
				if m == nil {
					t.Fatalf("no column note:\n%s", frame(s))
				}
				if atEdge(m[1], m[2], m[3]) {
					return
				}
				tm.press(key)
				tm.waitFor(key+" to move the columns", waitLong, func(s string) bool { return colsRe.FindString(s) != m[0] })
			}
			t.Fatalf("%s did not reach the edge in 40 keys:\n%s", key, frame(tm.screen()))
		}
		scroll(">", func(_, last, of string) bool { return last == of })
		s = tm.waitText("END-OF-LINE")
		if !regexp.MustCompile(`cols \d+–(\d+) of `).MatchString(s) || strings.Contains(s, "cols 1–") {
			t.Errorf("the column note did not follow the scroll:\n%s", frame(s))
		}
		scroll("<", func(first, _, _ string) bool { return first == "1" })
		tm.waitFor("the diff back at its left edge", waitLong, func(s string) bool {
			return strings.Contains(s, "cols 1–") && !strings.Contains(s, "END-OF-LINE")
		})
		tm.press("y")
		s = tm.waitText("E2E wide diff answer.", "END-OF-LINE")
		if !strings.Contains(s, "↪") {
			t.Errorf("the allowed edit's diff does not wrap its wide line:\n%s", frame(s))
		}
		if got, _ := os.ReadFile(filepath.Join(ws, "main.go")); !strings.Contains(string(got), "END-OF-LINE") {
			t.Errorf("the edit was not applied: %q", got)
		}
		tm.quitAndCheck(helpLine)
	})
}

// TestTUILayoutMarkdownStreams: while an answer streams, its finished
// list items are drawn as rendered bullets (no raw "- **x**:"), the open
// item hangs its wrapped lines under its text, and the finished answer
// keeps the lines the stream drew.
func TestTUILayoutMarkdownStreams(t *testing.T) {
	atSize(t, func(t *testing.T, w, h int) {
		words := strings.Repeat("and the retry waits a little longer each time ", 5)
		answer := "Findings:\n\n" +
			"- **loop**: the agent loop retries a failed request " + words + "until it gives up.\n" +
			"- **provider**: the provider wraps every request " + words + "with its timeout.\n" +
			"- **session**: the session file is written after each turn " + words + "LAST-WORD.\n"
		// The stream holds in the third item, a chunk before its last
		// word, until the screen has been read: caught in passing, the
		// state could come and go between two polls of a loaded machine.
		const chunk = 12
		third := newGate(t)
		tm, _ := startAt(t, w, h, sampleFiles(), fmt.Sprintf("[e2e:layout-md-%d] what did you find", w),
			scripted.Turn{Text: answer, ChunkSize: chunk, ChunkDelay: 60 * time.Millisecond,
				Hold: third.ch, HoldAt: utf8.RuneCountInString(answer[:strings.Index(answer, "LAST-WORD")]) - chunk})
		s := tm.waitFor("the third item to stream", waitLong, func(s string) bool {
			return strings.Contains(s, "session") && !strings.Contains(s, "LAST-WORD")
		})
		lines := strings.Split(s, "\n")
		var bullets []string
		for i, l := range lines {
			body := strings.TrimLeft(strings.TrimPrefix(l, "▌"), " ")
			if strings.HasPrefix(body, "- **") {
				t.Errorf("a list item streams raw: %q\n%s", l, frame(s))
			}
			if strings.HasPrefix(body, "• ") {
				bullets = append(bullets, l)
				// The line under a bullet's first line hangs under its text.
				if i+1 < len(lines) {
					next := lines[i+1]
					bullet := strings.Index(l, "•")
					if strings.TrimSpace(next) != "" && !strings.HasPrefix(strings.TrimLeft(next, " "), "•") && !strings.HasPrefix(next, "─") &&
						ansi.StringWidth(next[:len(next)-len(strings.TrimLeft(next, " "))]) != ansi.StringWidth(l[:bullet])+2 {
						t.Errorf("wrapped line %q does not hang under %q", next, l)
					}
				}
			}
		}
		if len(bullets) != 3 || !strings.Contains(bullets[0], "• loop:") || !strings.Contains(bullets[1], "• provider:") {
			t.Errorf("want the two finished items rendered and the open one bulleted, got %q\n%s", bullets, frame(s))
		}
		third.open()
		final := tm.waitFor("the finished answer rendered", waitLong, func(s string) bool {
			return strings.Contains(s, "LAST-WORD") && strings.Contains(s, "• session:") && !strings.Contains(s, "**")
		})
		// Finishing moved none of the lines the stream had rendered.
		for _, b := range bullets[:2] {
			if !strings.Contains(final, b) {
				t.Errorf("the rendered line %q moved when the answer finished:\n%s", b, frame(final))
			}
		}
		tm.quitAndCheck(helpLine)
	})
}

// TestTUILayoutChildDiffWraps: a child's diffs wrap a line wider than the
// screen into ↪ rows in its full-screen view and in /diff, so the whole
// change shows without keys.
func TestTUILayoutChildDiffWraps(t *testing.T) {
	atSize(t, func(t *testing.T, w, h int) {
		tm, srv, _ := startCrew(t, "--permission-mode", "acceptEdits")
		resizeTo(tm, w, h)
		release := newGate(t)
		marker := fmt.Sprintf("[e2e:layout-writer-%d]", w)
		long := "const wide = \"" + strings.Repeat("wide ", 60) + "END-OF-LINE\"\n"
		srv.Add(scripted.Conversation{Name: "writer", Match: scripted.Match{FirstUser: marker}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "wide.go", "content": "package main\n\n" + long})}},
			release.hold(scripted.Turn{Text: "writer report: wide.go written."}),
		}})
		srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": []map[string]string{writerTask(marker, "write wide")}}}}},
			{Text: "E2E wide child answer.", ChunkSize: 100},
		}})
		tm.submit("write a wide file")
		tm.waitText("wide.go · created")
		tm.press("C-g")
		name := overviewName(t, tm.waitText("Crew · 1 subagent"), "write wide")
		tm.press("Enter")
		s := tm.waitText("Changed files · 1 file +3 −0", "END-OF-LINE")
		if !strings.Contains(s, "↪") {
			t.Errorf("the child's view does not wrap the wide line:\n%s", frame(s))
		}
		tm.press("Escape")
		tm.waitText("Crew · 1 subagent")
		tm.press("Escape")
		release.open()
		tm.waitText("E2E wide child answer.")
		tm.submit("/diff " + name)
		s = tm.waitText("Files changed by "+name, "END-OF-LINE")
		if !strings.Contains(s, "↪") {
			t.Errorf("/diff does not wrap the wide line:\n%s", frame(s))
		}
		tm.quitAndCheck(helpLine)
	})
}
