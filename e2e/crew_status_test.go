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

// TestHeadlessCrewStatus: headless, the main agent starts three background
// children; once the quick one's report arrives it calls crew_status,
// whose result (in its next request) gives each child the state the
// stream last showed for it: done, and running in the background twice.
func TestHeadlessCrewStatus(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	release := newGate(t)
	names := []string{"quick", "slow1", "slow2"}
	var tasks []map[string]any
	for _, n := range names {
		tasks = append(tasks, map[string]any{"description": n + " scan", "name": n, "subagent_type": "Explore",
			"prompt": "[e2e:" + n + "] Look around.", "run_in_background": true})
	}
	h.srv.Add(scripted.Conversation{Name: "quick", Match: scripted.Match{FirstUser: "[e2e:quick]"}, Turns: []scripted.Turn{{Text: "quick report: done."}}})
	for _, n := range names[1:] {
		h.srv.Add(scripted.Conversation{Name: n, Match: scripted.Match{FirstUser: "[e2e:" + n + "]"}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"})}},
			release.hold(scripted.Turn{Text: n + " report: done."}),
		}})
	}
	mainTurn := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		last := r.LastMessage()
		switch {
		case last.Role == "tool" && last.ToolCallID == "call_status":
			release.open()
			return scripted.Turn{Text: "Checked."}
		case last.Role == "tool":
			return scripted.Turn{Text: "Started."}
		case last.Role == "user" && strings.Contains(last.Content, "quick report"):
			return scripted.Turn{ToolCalls: []scripted.Call{{ID: "call_status", Name: "crew_status", Args: map[string]any{}}}}
		case last.Role == "user" && strings.Contains(last.Content, "report: done"):
			return scripted.Turn{Text: "STATUS ANSWER"}
		}
		return scripted.Turn{ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": tasks}}}}
	}}
	turns := make([]scripted.Turn, 8)
	for i := range turns {
		turns[i] = mainTurn
	}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: turns})

	r := h.run(t, "", "--output-format", "stream-json", "-p", "start three scouts")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	evs := parseStream(t, r.stdout)
	checked := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "tool_finished" && e.AgentID == "main" && strings.Contains(e.raw, `"name":"crew_status"`)
	})
	if checked < 0 {
		t.Fatalf("no crew_status call in the stream:\n%s", r.stdout)
	}
	// What the stream last said of each child before the call ended.
	shown := map[string]string{}
	for _, e := range evs[:checked] {
		if e.Type == "child_state" {
			s := e.State
			if e.Background && (s == "running" || s == "queued") {
				s += ", in the background"
			}
			shown[e.Name] = s
		}
	}
	res := toolResult(t, h.srv, "call_status")
	want := map[string]string{"quick": "done", "slow1": "running, in the background", "slow2": "running, in the background"}
	for _, n := range names {
		m := regexp.MustCompile(`(?m)^- ` + n + ` \(id explore-\d+, type Explore[^)]*\): (.*)$`).FindStringSubmatch(res)
		if m == nil {
			t.Errorf("crew_status has no entry for %s:\n%s", n, res)
			continue
		}
		if m[1] != want[n] || m[1] != shown[n] {
			t.Errorf("crew_status says %s is %q; the stream showed %q; want %q", n, m[1], shown[n], want[n])
		}
	}
}
