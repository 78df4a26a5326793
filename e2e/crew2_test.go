package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"covey/internal/scripted"
)

// lastTick is the highest "tick-N" on screen (0 without any).
func lastTick(s string) int {
	n := 0
	for _, m := range regexp.MustCompile(`tick-(\d+)`).FindAllStringSubmatch(s, -1) {
		if v, _ := strconv.Atoi(m[1]); v > n {
			n = v
		}
	}
	return n
}

// TestTUIBackgroundShell: a background shell is a member of the crew: its
// pane shows its latest output live; the crew overview lists it; o opens
// its whole output; x kills it, and nothing of it is left running.
func TestTUIBackgroundShell(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startCrew(t, "--permission-mode", "bypassPermissions")
	marker := fmt.Sprintf("covey-e2e-tui-shell-%d", time.Now().UnixNano())
	command := "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.2; done # " + marker
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_bg", Name: "bash", Args: map[string]any{"command": command, "run_in_background": true}}}},
		{Text: "E2E shell started.", ChunkSize: 100},
	}})

	tm.submit("start the ticker")
	tm.waitText("E2E shell started.")
	header := regexp.MustCompile(`shell-1 \[shell\] i=0; while`)
	paneTick := func(s string) int {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			if header.MatchString(l) && i+2 < len(lines) {
				return lastTick(strings.Join(lines[i+1:i+3], "\n"))
			}
		}
		return 0
	}
	s := tm.waitFor("the shell's pane to show its output", waitLong, func(s string) bool { return paneTick(s) >= 3 })
	first := paneTick(s)
	// Live: later lines replace the earlier ones in the pane.
	tm.waitFor("the pane to follow the shell", waitLong, func(s string) bool { return paneTick(s) >= first+3 })
	if !regexp.MustCompile(`shell-1 \[shell\].* · \d+ B`).MatchString(tm.screen()) {
		t.Errorf("the pane's header does not count the bytes printed:\n%s", frame(tm.screen()))
	}

	// The overview lists it; o shows all its output, from its first line.
	tm.press("C-g")
	tm.waitText("Crew · 1 shell · 1 running", "shell-1")
	tm.press("o")
	tm.waitFor("the shell's whole output", waitLong, func(s string) bool {
		return strings.Count(s, "tick-") >= 8 && strings.Contains(s, marker)
	})
	tm.press("Escape")
	tm.waitText("Crew ·", "shell-1")
	tm.press("Escape")
	tm.waitText("E2E shell started.")

	// x on its focused pane kills it, and every process of it goes.
	tm.press("Tab")
	tm.waitFor("the shell's pane to take the focus", waitLong, func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if header.MatchString(l) {
				return strings.HasPrefix(l, "▌")
			}
		}
		return false
	})
	tm.press("x")
	tm.waitText("x again to kill shell-1 · esc keeps it")
	tm.press("x")
	tm.waitMatch(regexp.MustCompile(`shell-1 \[shell\].* · killed`))
	markerGone(t, marker)
	tm.press("C-g")
	tm.waitMatch(regexp.MustCompile(`shell-1 .*cancelled.*killed`))
	tm.waitText("Crew · 1 shell · 0 running")
	tm.press("Escape")
	// Back on the main screen before the draft is typed: an esc read
	// together with the draft's keys is alt+d, and the overview stays.
	tm.waitText("E2E shell started.")
	tm.quitAndCheck(helpLine)
}

// TestTUIStartByName: "@" completes agent types; "@Explore brief" starts
// that child at once, with no model turn before it, and its report comes
// back to the main agent as a message that starts a turn.
func TestTUIStartByName(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startCrew(t)
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:at]"}, Turns: []scripted.Turn{
		{Text: "AT REPORT: the retry logic is in retry.go.", Delay: 300 * time.Millisecond},
	}})
	// The main agent's first message is the child's report, which quotes
	// the brief (and so its marker): matched on both.
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: "[background agent"}, Turns: []scripted.Turn{
		{Text: "E2E main: the explorer found retry.go.", ChunkSize: 100},
		{Text: "E2E hello answered.", ChunkSize: 100},
	}})

	tm.typeText("@expl")
	tm.waitText("@Explore BRIEF")
	tm.press("Tab")
	// The menu's own row reads "› @Explore BRIEF": the completion is in
	// once the menu has gone.
	tm.waitFor("tab to complete @Explore", waitLong, func(s string) bool {
		return strings.Contains(s, "› @Explore") && !strings.Contains(s, "@Explore BRIEF")
	})
	tm.submit("[e2e:at] find the retry logic")
	tm.waitMatch(regexp.MustCompile(`\[Explore\] \[e2e:at\] find the retry logic`))
	tm.waitText("E2E main: the explorer found retry.go.")

	// The report in the main agent's request is the causal proof of order;
	// the times only check that no main request came before the child's.
	// (The journal's Done is stamped after the last byte is written, so a
	// fast client may ask the next request a moment before it.)
	var childAt, mainAt time.Time
	for _, e := range srv.Journal() {
		switch e.Conversation {
		case "child":
			childAt = e.Time
			if e.FirstUser != "[e2e:at] find the retry logic" {
				t.Errorf("the child's brief: %q", e.FirstUser)
			}
		case "main":
			mainAt = e.Time
			last := e.Messages[len(e.Messages)-1]
			if last.Role != "user" || !strings.Contains(last.Content, "AT REPORT: the retry logic is in retry.go.") ||
				!strings.Contains(last.Content, `which the user started with "@Explore [e2e:at] find the retry logic"`) {
				t.Errorf("the main agent's request does not end with the report: %+v", last)
			}
		}
	}
	if childAt.IsZero() || mainAt.IsZero() || mainAt.Before(childAt) {
		t.Errorf("the main agent was asked before the child started (child asked %v, main asked %v)", childAt, mainAt)
	}

	// A word after "@" that names no type is a message like any other.
	tm.submit("@nobody hello")
	tm.waitText("❯ @nobody hello", "E2E hello answered.")
	tm.quitAndCheck(helpLine)
}
