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

// TestTUIChildLongBashShowsProgress: while a child's bash runs, its pane
// shows how long the command has run on the bash line and the command's
// latest output under it, before the command ends.
func TestTUIChildLongBashShowsProgress(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			srv := scriptedtest.New(t)
			// The command prints two lines, then waits for the test.
			const command = "echo line1; echo line2; while [ ! -e release ]; do sleep 0.1; done; echo line3"
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{call("task", map[string]any{"description": "build it", "subagent_type": "general-purpose",
					"name": "builder", "prompt": "[e2e:builder] run the build"})}},
				{Text: "BUILD DONE", ChunkSize: 20},
			}})
			srv.Add(scripted.Conversation{Name: "builder", Match: scripted.Match{FirstUser: "[e2e:builder]"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": command})}},
				{Text: "built"},
			}})
			ws := workspace(t, sampleFiles())
			tm := startSized(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), size.w, size.h, "--model", "e2e-model")
			tm.submit("build")
			tm.waitText("asks:")
			tm.waitApprovalReady()
			tm.press("y")
			// The bash line: "→ bash  echo line1; … · 1.2s".
			clock := regexp.MustCompile(`→ bash .* · \d+(\.\d)?s\s*$`)
			s := tm.waitFor("the running bash line with its time and output", waitLong, func(s string) bool {
				_, body := namedPane(s, "builder")
				var timed, output bool
				for _, l := range body {
					timed = timed || clock.MatchString(strings.TrimRight(l, " "))
					output = output || strings.Contains(l, "line2")
				}
				return timed && output
			})
			if strings.Contains(s, "⎿ line3") || strings.Contains(s, "BUILD DONE") {
				t.Fatalf("the command ended before the test let it:\n%s", frame(s))
			}
			if err := os.WriteFile(filepath.Join(ws, "release"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			tm.waitText("BUILD DONE")
		})
	}
}

// TestTUIChildQueuedApprovalSaysItWaits: when two children ask at once,
// one request is shown and the other child's pane says its request waits
// in the queue, with no spinner, until its turn comes.
func TestTUIChildQueuedApprovalSaysItWaits(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			srv := scriptedtest.New(t)
			kid := func(name, word string) map[string]string {
				return map[string]string{"description": "say " + word, "subagent_type": "general-purpose",
					"name": name, "prompt": "[e2e:" + name + "] say it"}
			}
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{call("task", map[string]any{"tasks": []map[string]string{kid("alpha", "one"), kid("beta", "two")}})}},
				{Text: "BOTH DONE", ChunkSize: 20},
			}})
			for _, name := range []string{"alpha", "beta"} {
				srv.Add(scripted.Conversation{Name: name, Match: scripted.Match{FirstUser: "[e2e:" + name + "]"}, Turns: []scripted.Turn{
					{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "echo said-" + name})}},
					{Text: name + " said it"},
				}})
			}
			ws := workspace(t, sampleFiles())
			tm := startSized(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), size.w, size.h, "--model", "e2e-model")
			tm.submit("say both")
			queued := "approval queued (1 ahead)"
			s := tm.waitFor("one request shown and the other child's pane saying it waits", waitLong, func(s string) bool {
				return strings.Contains(s, "asks:") && strings.Contains(s, queued)
			})
			asking := "alpha"
			if strings.Contains(s, "beta [general-purpose] asks:") {
				asking = "beta"
			}
			waiter := map[string]string{"alpha": "beta", "beta": "alpha"}[asking]
			head, _ := namedPane(s, waiter)
			if !strings.Contains(head, queued) {
				t.Errorf("%s's pane does not say its request is queued: %q\n%s", waiter, head, frame(s))
			}
			if h, _ := namedPane(s, asking); strings.Contains(h, "queued") {
				t.Errorf("the asking child's pane says queued: %q", h)
			}
			// The queued child waits: no spinner frame (braille) in its
			// header.
			if strings.ContainsFunc(head, func(r rune) bool { return r >= 0x2800 && r <= 0x28ff }) {
				t.Errorf("the queued pane spins: %q", head)
			}
			tm.waitApprovalReady()
			tm.press("y")
			s = tm.waitText(waiter + " [general-purpose] asks:")
			if strings.Contains(s, queued) {
				t.Errorf("the queue is empty, yet a pane says it waits in it:\n%s", frame(s))
			}
			tm.waitApprovalReady()
			tm.press("y")
			tm.waitText("BOTH DONE")
		})
	}
}

// namedPane returns the header of the pane of the child with this name
// ("name [type] ...") and the body lines under it.
func namedPane(screen, name string) (header string, body []string) {
	lines := strings.Split(screen, "\n")
	re := regexp.MustCompile(regexp.QuoteMeta(name) + ` \[[^\]]+\]`)
	for i, l := range lines {
		if !re.MatchString(l) || strings.Contains(l, "asks:") {
			continue
		}
		for _, b := range lines[i+1:] {
			if !strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(b, "▌"), " "), "│") {
				break
			}
			body = append(body, b)
		}
		return l, body
	}
	return "", nil
}
