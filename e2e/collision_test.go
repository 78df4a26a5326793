package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestTUICollisionBadgeAndOverview plays two children in the same tree
// that write greet.go in turn, at 80x24 and 200x50: both panes get the
// badge naming the file and the other child, the second's write_file
// result (in the scripted server's journal) names the first, and the crew
// overview shows the COLLIDES column. p on the later writer's badged pane
// pauses it and resumes it, as on any pane.
func TestTUICollisionBadgeAndOverview(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			tm, srv, _ := startCrew(t, "--permission-mode", "acceptEdits")
			tm.resize(size[0], size[1])
			release := newGate(t)
			firstWrote := newGate(t)
			writeTurn := func(text string) []scripted.Turn {
				return []scripted.Turn{
					{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "greet.go"})}},
					{ToolCalls: []scripted.Call{{ID: "w-" + text, Name: "write_file", Args: map[string]any{"path": "greet.go", "content": "package main\n\n// " + text + "\nfunc greeting() string { return \"hi\" }\n"}}}},
				}
			}
			first := append(writeTurn("first"), scripted.Turn{Func: func(scripted.Request) scripted.Turn {
				firstWrote.open()
				return release.hold(scripted.Turn{Text: "first report"}).Func(scripted.Request{})
			}})
			second := writeTurn("second")
			second[0] = firstWrote.hold(second[0]) // reads once the first has written
			second = append(second, release.hold(scripted.Turn{Text: "second report"}))
			srv.Add(scripted.Conversation{Name: "first", Match: scripted.Match{FirstUser: "[e2e:first]"}, Turns: first})
			srv.Add(scripted.Conversation{Name: "second", Match: scripted.Match{FirstUser: "[e2e:second]"}, Turns: second})
			task := func(name string) map[string]string {
				return map[string]string{"description": name + " edits greet", "name": name, "subagent_type": "general-purpose", "prompt": "[e2e:" + name + "] Edit greet.go."}
			}
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				{Text: "Two editors.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": []map[string]string{task("first"), task("second")}}}}},
				{Text: "E2E crew answer: both edited.", ChunkSize: 100},
			}})

			tm.submit("edit greet twice")
			// Both panes wear the badge: the writer's names the first, the
			// first's names the writer.
			tm.waitMatch(regexp.MustCompile(`⚠ greet\.go ↔ first`))
			s := tm.waitMatch(regexp.MustCompile(`⚠ greet\.go ↔ second`))
			if !strings.Contains(s, "collision: wrote greet.go, which first read and wrote") {
				t.Errorf("no pane body line says collision:\n%s", frame(s))
			}
			res := toolResult(t, srv, "w-second")
			if !strings.Contains(res, "[covey: collision]") || !strings.Contains(res, "first (general-purpose-") {
				t.Errorf("the second writer's result does not name the first:\n%s", res)
			}

			tm.press("C-g")
			s = tm.waitText("COLLIDES")
			if !regexp.MustCompile(`(?m)^.*second.*⚠ greet\.go ↔ f`).MatchString(s) {
				t.Errorf("the overview's row of second lacks its collision:\n%s", frame(s))
			}
			tm.press("Escape")
			tm.waitText("❯ edit greet twice")

			// p on the badged pane of the later writer pauses it, and again
			// resumes it.
			// (The badge takes the room of the task's words: the header is
			// found by the name.)
			header := regexp.MustCompile(`second \[general-purpose\] `)
			for range 8 {
				s := tm.screen()
				if l := lineMatching(s, header); strings.HasPrefix(l, "▌") {
					break
				}
				was := focusedBlock(s)
				tm.press("Tab")
				tm.waitFor("tab to move the focus", waitLong, func(s string) bool { return focusedBlock(s) != was })
			}
			tm.press("p")
			tm.waitOK("the second's pane to say paused", func(s string) error {
				if l := lineMatching(s, header); !strings.Contains(l, "paused") || !strings.Contains(l, "⚠ greet.go ↔ first") {
					return fmt.Errorf("header %q", l)
				}
				return nil
			})
			tm.press("p")
			tm.waitOK("the second's pane to run again", func(s string) error {
				if l := lineMatching(s, header); strings.Contains(l, "paused") {
					return fmt.Errorf("header %q", l)
				}
				return nil
			})
			tm.press("Escape")

			release.open()
			tm.waitText("E2E crew answer: both edited.")
			tm.quitAndCheck(helpLine)
		})
	}
}

// lineMatching is the first line of screen that re matches, or "".
func lineMatching(screen string, re *regexp.Regexp) string {
	for _, l := range strings.Split(screen, "\n") {
		if re.MatchString(l) {
			return l
		}
	}
	return ""
}
