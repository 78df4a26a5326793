package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// helpLine is on covey's screen whenever the input has the focus; after
// exit it must be gone with the alternate screen.
const helpLine = "ctrl+c clear/quit"

// startScripted starts covey's TUI in a sample workspace against a fresh
// scripted server and returns both.
func startScripted(t *testing.T) (*term, *scripted.Server, string) {
	t.Helper()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, "--model", "e2e-model")
	tm.waitText(helpLine)
	return tm, srv, ws
}

// TestTUIScripted drives the whole subagent flow in a real terminal: three
// panes appear, their tool counts rise, one pane expands, one is cancelled
// while the others finish, the final answer shows, and ctrl+c quits with
// the terminal restored.
func TestTUIScripted(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startScripted(t)

	alphaStep2, alphaStep3 := newGate(t), newGate(t)
	alpha := child{marker: "[e2e:alpha]", description: "scan alpha", turns: []scripted.Turn{
		{Text: "Globbing the Go files.", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"})}},
		alphaStep2.hold(scripted.Turn{Text: "Searching for functions.", ToolCalls: []scripted.Call{
			call("grep", map[string]any{"pattern": "func ", "output_mode": "files_with_matches"})}}),
		alphaStep3.hold(scripted.Turn{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "main.go"})}}),
		{Text: "alpha report: main.go calls greeting from greet.go."},
	}}
	beta := child{marker: "[e2e:beta]", description: "scan beta", turns: []scripted.Turn{
		{Delay: 300 * time.Millisecond, ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.md"})}},
		{Delay: 300 * time.Millisecond, ToolCalls: []scripted.Call{call("grep", map[string]any{"pattern": "TODO|FIXME", "output_mode": "count"})}},
		{Text: "beta report: two markers, two docs."},
	}}
	gamma := child{marker: "[e2e:gamma]", description: "scan gamma", turns: []scripted.Turn{
		{Text: "Listing the top level.", ToolCalls: []scripted.Call{call("list_dir", map[string]any{"path": "."})}},
		{Text: "Reading the internal package.", ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "internal/x/x.go"})}},
		// gamma then waits on the model until it is cancelled.
		{Stall: true},
	}}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		spawn("Sending three explorers.", alpha, beta, gamma),
		{Text: "E2E final answer: the greeting lives in greet.go.", ChunkSize: 100}, // one delta, see TestTUIStreamedAnswerIsOneBlock
	}})
	for _, c := range []child{alpha, beta, gamma} {
		srv.Add(c.conversation())
	}

	tm.submit("explore the sample project")
	for _, d := range []string{"scan alpha", "scan beta", "scan gamma"} {
		tm.waitMatch(paneRe(d))
	}

	// alpha's count rises one step at a time, each step held by a gate.
	tm.waitMatch(toolsRe("scan alpha", 1))
	alphaStep2.open()
	tm.waitMatch(toolsRe("scan alpha", 2))
	tm.waitMatch(toolsRe("scan beta", 2))

	// gamma has made its two calls and now waits on the model: focus it
	// (Tab lands on the newest pane) and expand it.
	s := tm.waitMatch(toolsRe("scan gamma", 2))
	if _, body, _ := paneHeader(s, "scan gamma"); len(body) != 2 {
		t.Fatalf("collapsed gamma pane has %d body lines, want 2:\n%s", len(body), frame(s))
	}
	tm.press("Tab")
	tm.waitFor("the gamma pane to take the focus", waitLong, func(s string) bool {
		h, _, ok := paneHeader(s, "scan gamma")
		return ok && strings.HasPrefix(h, "▌")
	})
	tm.press("Enter")
	s = tm.waitFor("the gamma pane to expand", waitLong, func(s string) bool {
		_, body, _ := paneHeader(s, "scan gamma")
		return len(body) > 2
	})
	_, body, _ := paneHeader(s, "scan gamma")
	if want := "Listing the top level."; !strings.Contains(strings.Join(body, "\n"), want) {
		t.Errorf("expanded gamma pane lacks its first activity %q:\n%s", want, frame(s))
	}

	// Cancel gamma alone: it is marked cancelled while alpha, still held
	// at its third step, runs on.
	tm.press("x")
	tm.waitText("x again to cancel")
	tm.press("x")
	s = tm.waitFor("the gamma pane to be cancelled", waitLong, func(s string) bool {
		h, body, _ := paneHeader(s, "scan gamma")
		return strings.Contains(h, "⊘") && strings.Contains(strings.Join(body, "\n"), "cancelled")
	})
	if h, _, _ := paneHeader(s, "scan alpha"); strings.Contains(h, "⊘") || strings.Contains(h, "✓") {
		t.Errorf("cancelling gamma ended alpha too: %q", h)
	}
	alphaStep3.open()
	tm.waitMatch(toolsRe("scan alpha", 3))
	s = tm.waitText("E2E final answer: the greeting lives in greet.go.")
	for _, d := range []string{"scan alpha", "scan beta"} {
		if h, _, _ := paneHeader(s, d); !strings.Contains(h, "✓") {
			t.Errorf("pane %q did not finish: %q\n%s", d, h, frame(s))
		}
	}
	if h, _, _ := paneHeader(s, "scan gamma"); !strings.Contains(h, "⊘") {
		t.Errorf("gamma pane lost its cancelled mark: %q", h)
	}

	// The main agent's second request answers the task call, with the
	// finished children's reports in it.
	last := lastRequest(t, srv, "main")
	if missing := unansweredCalls(last.Messages); len(missing) > 0 {
		t.Errorf("main agent's last request leaves calls unanswered: %v", missing)
	}
	result := last.Messages[len(last.Messages)-1].Content
	for _, want := range []string{"alpha report", "beta report"} {
		if !strings.Contains(result, want) {
			t.Errorf("task result lacks %q:\n%s", want, result)
		}
	}

	tm.quitAndCheck(helpLine)
}

// lastRequest is the newest journal entry of the named conversation.
func lastRequest(t *testing.T, srv *scripted.Server, conversation string) scripted.Entry {
	t.Helper()
	var last *scripted.Entry
	for _, e := range srv.Journal() {
		if e.Conversation == conversation {
			last = &e
		}
	}
	if last == nil {
		t.Fatalf("no request of conversation %q in the journal", conversation)
	}
	return *last
}

// TestTUIStreamedAnswerIsOneBlock streams answers in small chunks, the
// way real models do, and expects each on screen as one paragraph. The
// engine's Run returns right after the last chunk while the event pump may
// still hold that chunk for the next frame; the end of the turn must not
// split the answer into two blocks at a chunk boundary. Whether the race
// shows depends on scheduling, so the test asks several times.
func TestTUIStreamedAnswerIsOneBlock(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startScripted(t)
	const asks = 12
	answer := func(n int) string {
		return fmt.Sprintf("E2E answer %02d: every word of this sentence belongs to one paragraph, number %02d.", n, n)
	}
	turns := make([]scripted.Turn, asks)
	for i := range turns {
		turns[i] = scripted.Turn{Text: answer(i + 1), ChunkSize: 4}
	}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: turns})
	for n := 1; n <= asks; n++ {
		tm.submit(fmt.Sprintf("ask %02d", n))
		last := fmt.Sprintf("number %02d.", n)
		// The turn is over once the help line stops offering to cancel it.
		s := tm.waitFor("answer "+last+" and the end of its turn", waitLong, func(s string) bool {
			return strings.Contains(s, last) && !strings.Contains(s, "esc cancel turn")
		})
		if !strings.Contains(s, answer(n)) {
			t.Fatalf("ask %d: the streamed answer is not on one line: the end of the turn split it into two blocks:\n%s", n, frame(s))
		}
	}
	tm.quitAndCheck(helpLine)
}

// TestTUIFinishedPaneShowsAnswerOnce finishes a child whose answer is one
// line: its collapsed pane has room for two lines, and the answer must not
// take both (streamed as text, then repeated as the pane's summary).
func TestTUIFinishedPaneShowsAnswerOnce(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startScripted(t)
	const report = "solo report: internal/x/x.go holds Answer."
	solo := child{marker: "[e2e:solo]", description: "scan solo", turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("grep", map[string]any{"pattern": "Answer", "output_mode": "files_with_matches"})}},
		{Text: report},
	}}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		spawn("One explorer.", solo),
		{Text: "E2E solo answer.", ChunkSize: 100},
	}})
	srv.Add(solo.conversation())
	tm.submit("one child please")
	s := tm.waitText("E2E solo answer.")
	h, body, _ := paneHeader(s, solo.description)
	if !strings.Contains(h, "✓") {
		t.Fatalf("the pane did not finish: %q\n%s", h, frame(s))
	}
	if n := strings.Count(strings.Join(body, "\n"), report); n != 1 {
		t.Errorf("the finished pane shows the child's answer %d times, want once:\n%s", n, frame(s))
	}
	tm.quitAndCheck(helpLine)
}
