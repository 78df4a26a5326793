package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestTUICrewStatusMatchesPanes: the main agent starts three background
// children; the user pauses one with p on its pane (pausing is the user's:
// a headless run has no key for it), then asks the main agent, which calls
// crew_status. The result, as the model's next request carries it, gives
// each child the state its pane header shows: running, running, paused.
func TestTUICrewStatusMatchesPanes(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startCrew(t)
	tm.resize(200, 50)
	release := newGate(t)
	names := []string{"alpha", "beta", "gamma"}
	var tasks []map[string]any
	for _, n := range names {
		tasks = append(tasks, map[string]any{"description": n + " scan", "name": n, "subagent_type": "Explore",
			"prompt": "[e2e:" + n + "] Look around.", "run_in_background": true})
		srv.Add(scripted.Conversation{Name: n, Match: scripted.Match{FirstUser: "[e2e:" + n + "]"}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"})}},
			release.hold(scripted.Turn{Text: n + " report: done.", ChunkSize: 100}),
		}})
	}
	const (
		started  = "E2E status: three started."
		answered = "E2E status: read the crew."
		asked    = "how is the crew doing?"
	)
	mainTurn := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		last := r.LastMessage()
		switch {
		case last.Role == "user" && strings.Contains(last.Content, asked):
			return scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_status", Name: "crew_status", Args: map[string]any{}}}}
		case last.Role == "tool" && last.ToolCallID == "call_status":
			return scripted.Turn{Text: answered, ChunkSize: 100}
		case last.Role == "tool":
			return scripted.Turn{Text: started, ChunkSize: 100}
		case last.Role == "user" && strings.Contains(last.Content, "report: done"):
			return scripted.Turn{Text: "E2E status: a report came back.", ChunkSize: 100}
		}
		return scripted.Turn{Text: "Three scouts.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": tasks}}}}
	}}
	turns := make([]scripted.Turn, 10)
	for i := range turns {
		turns[i] = mainTurn
	}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: turns})

	tm.submit("start three scouts")
	tm.waitText(started)
	for _, n := range names {
		tm.waitMatch(toolsRe(n+" scan", 1)) // each holds its second request
	}
	focusPane(tm, "gamma scan")
	tm.press("p")
	tm.waitOK("gamma's pane to say paused", func(s string) error {
		if h, _, _ := paneHeader(s, "gamma scan"); !strings.Contains(h, "paused") {
			return fmt.Errorf("header %q", h)
		}
		return nil
	})
	tm.press("Escape")
	tm.waitText("enter send")
	tm.submit(asked)
	s := tm.waitText(answered)

	res := toolResult(t, srv, "call_status")
	want := map[string]string{"alpha": "running", "beta": "running", "gamma": "paused"}
	for _, n := range names {
		h, _, ok := paneHeader(s, n+" scan")
		if !ok {
			t.Fatalf("no pane for %s:\n%s", n, frame(s))
		}
		pane := paneState(h)
		m := regexp.MustCompile(`(?m)^- ` + n + ` \(id explore-\d+, type Explore[^)]*\): (.*)$`).FindStringSubmatch(res)
		if m == nil {
			t.Errorf("crew_status has no entry for %s:\n%s", n, res)
			continue
		}
		if pane != want[n]+" · background" {
			t.Errorf("%s's pane shows %q, want %s in the background: %q", n, pane, want[n], h)
		}
		if got := strings.Replace(m[1], ", in the ", " · ", 1); got != pane {
			t.Errorf("crew_status says %s is %q, its pane shows %q", n, m[1], pane)
		}
	}
	if !strings.Contains(res, "now:") && !strings.Contains(res, "last call: glob") {
		t.Errorf("crew_status gives no step or last call:\n%s", res)
	}
	release.open()
	tm.quitAndCheck(helpLine)
}

// paneState is the state a pane header shows: "running" (a spinner),
// "paused" (‖ and the word), else its first word; with " · background"
// for a child in the background.
func paneState(header string) string {
	f := strings.Fields(strings.TrimPrefix(header, "▌"))
	if len(f) == 0 {
		return ""
	}
	state := f[0]
	switch r := []rune(f[0])[0]; {
	case r >= 0x2800 && r <= 0x28ff:
		state = "running"
	case f[0] == "‖" && strings.Contains(header, "paused ·"):
		state = "paused"
	}
	if strings.Contains(header, "background ·") {
		state += " · background"
	}
	return state
}
