package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// compactWindow is the window of the scripted model in the compaction
// tests: a few of its tool results fill it.
const compactWindow = 16000

// bigFile is a file bigger than a third of the window; its read_file result
// is cut to the eighth of the window one result may take.
func bigFile() string {
	var b strings.Builder
	for i := 0; b.Len() < 20000; i++ {
		fmt.Fprintf(&b, "line %d of a large generated file that fills the context window\n", i)
	}
	return b.String()
}

// longSessionRun is a headless covey against a scripted model with a
// window playing a long fact-gathering session.
type longSessionRun struct {
	headlessRun
	ls *scriptedtest.LongSession
}

func newLongSessionRun(t *testing.T, config string) longSessionRun {
	t.Helper()
	srv := scriptedtest.New(t, scripted.WithWindow("", scripted.Window{Tokens: compactWindow, Hidden: true}))
	ls := &scriptedtest.LongSession{Tool: "read_file", Args: map[string]any{"path": "big.txt"}, SummaryMarker: "conversation summariser"}
	for _, c := range ls.Conversations(scripted.Match{SystemContains: mainPrompt}, 500) {
		srv.Add(c)
	}
	files := sampleFiles()
	files["big.txt"] = bigFile()
	if config != "" {
		files[".covey/config.yaml"] = config
	}
	return longSessionRun{headlessRun: headlessRun{srv: srv, ws: workspace(t, files), box: newSandbox(t)}, ls: ls}
}

// TestCompactHeadlessLongSession: a session of many turns (one covey -p
// each, resumed with --continue) whose tool results together pass the
// window many times survives; a last question is answered from the facts
// of every turn. With the window known from config no request over it is
// sent; unknown, each overflow is compacted and the turn sent again, with
// a line saying so rather than an error.
func TestCompactHeadlessLongSession(t *testing.T) {
	t.Parallel()
	const turns = 24 // a capped result each: a compaction every few turns
	for name, config := range map[string]string{
		"window from config": fmt.Sprintf("context_window: %d\n", compactWindow),
		"window unknown":     "",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newLongSessionRun(t, config)
			compacted, sawOverflowLine := 0, false
			for i := 1; i <= turns; i++ {
				args := []string{"-p", fmt.Sprintf("[long %d] remember FACT-%d and read big.txt", i, i)}
				if i > 1 {
					args = append(args, "--continue")
				}
				// Even turns print json, which counts the compactions;
				// odd ones text, which says so on stderr.
				jsonOut := i%2 == 0
				if jsonOut {
					args = append(args, "--output-format", "json")
				}
				r := h.run(t, "", args...)
				answer := strings.TrimSpace(r.stdout)
				if jsonOut {
					var out struct {
						Answer      string `json:"answer"`
						Compactions *int   `json:"compactions"`
					}
					if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Compactions == nil {
						t.Fatalf("turn %d: json output without compactions (%v):\n%s", i, err, r.stdout)
					}
					answer = out.Answer
					compacted += *out.Compactions
				} else {
					compacted += strings.Count(r.stderr, "compacted ")
					sawOverflowLine = sawOverflowLine || strings.Contains(r.stderr, "request over the model's window: compacted ")
				}
				if r.code != 0 || answer != "Noted." {
					t.Fatalf("turn %d: exit %d, stdout %q\nstderr:\n%s", i, r.code, r.stdout, r.stderr)
				}
				if strings.Contains(r.stderr, "covey: ") && !strings.Contains(r.stderr, "session ") {
					t.Errorf("turn %d: an error on stderr:\n%s", i, r.stderr)
				}
			}
			r := h.run(t, "", "-p", "[long question] which facts do you know?", "--continue", "--output-format", "json")
			if r.code != 0 {
				t.Fatalf("question: exit %d\n%s", r.code, r.stderr)
			}
			for i := 1; i <= turns; i++ {
				if !strings.Contains(r.stdout, fmt.Sprintf("FACT-%d ", i)) && !strings.Contains(r.stdout, fmt.Sprintf("FACT-%d\"", i)) {
					t.Errorf("the answer lacks FACT-%d:\n%s", i, r.stdout)
				}
			}
			over, peak := 0, 0
			for _, e := range h.srv.Journal() {
				peak = max(peak, e.PromptTokens)
				if e.Overflow {
					over++
				}
			}
			t.Logf("%d compactions, %d requests refused, largest request %d tokens", compacted, over, peak)
			if compacted < 3 {
				t.Errorf("%d compactions over %d turns: the session did not pass the window many times", compacted, turns)
			}
			if config != "" {
				if over > 0 || peak > compactWindow {
					t.Errorf("window known: %d requests over the window reached the server (largest %d tokens of %d)", over, peak, compactWindow)
				}
			} else if over == 0 || !sawOverflowLine {
				t.Errorf("window unknown: %d requests overflowed; a line said so: %v", over, sawOverflowLine)
			}
		})
	}
}

// TestCompactBackgroundChildAfterCompaction: a background child started
// before a compaction keeps its place: the summary carries covey's record
// of it, its outcome arriving after the compaction reaches the parent, and
// send_message to it by name still resumes it.
func TestCompactBackgroundChildAfterCompaction(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t, scripted.WithWindow("", scripted.Window{Tokens: compactWindow, Hidden: true}))
	var mu sync.Mutex
	reads, sent := 0, false
	main := func(r scripted.Request) scripted.Turn {
		mu.Lock()
		defer mu.Unlock()
		last := r.LastMessage()
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "[background agent") && strings.Contains(last.Content, "SCOUT AGAIN"):
			return scripted.Turn{Text: "FINAL: " + last.Content[:strings.Index(last.Content, "SCOUT AGAIN")+len("SCOUT AGAIN")]}
		case last.Role == "user" && strings.Contains(last.Content, "[background agent"):
			if !strings.Contains(r.LastUser(), "SCOUT REPORT") {
				return scripted.Turn{Text: "no report?"}
			}
			sent = true
			return scripted.Turn{ToolCalls: []scripted.Call{call("send_message", map[string]any{"to": "scout", "message": "[e2e:again] once more"})}}
		case last.Role == "tool" && sent:
			return scripted.Turn{Text: "Asked scout again."}
		case last.Role == "user":
			return scripted.Turn{ToolCalls: []scripted.Call{call("task", map[string]any{
				"description": "find greeting", "subagent_type": "Explore", "name": "scout",
				"prompt": "[e2e:bgc] Find where greeting is defined.", "run_in_background": true,
			})}}
		case reads < 6:
			reads++
			return scripted.Turn{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "big.txt"})}}
		}
		return scripted.Turn{Text: "Scout is searching; I read big.txt."}
	}
	serve := make([]scripted.Turn, 200)
	for i := range serve {
		serve[i] = scripted.Turn{Func: main}
	}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: serve})
	// The scout reports only once the main agent has compacted: its
	// outcome is delivered into the compacted conversation.
	ls := &scriptedtest.LongSession{SummaryMarker: "conversation summariser"}
	summariser := ls.Conversations(scripted.Match{SystemContains: "conversation summariser"}, 50)[1]
	summarised := make(chan struct{})
	var once sync.Once
	summarise := summariser.Turns[0].Func
	for i := range summariser.Turns {
		summariser.Turns[i].Func = func(r scripted.Request) scripted.Turn {
			defer once.Do(func() { close(summarised) })
			return summarise(r)
		}
	}
	srv.Add(summariser)
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:bgc]"}, Turns: []scripted.Turn{
		{Func: func(scripted.Request) scripted.Turn {
			select {
			case <-summarised:
			case <-time.After(waitLong):
			}
			// A moment for the compaction to take effect before the outcome.
			return scripted.Turn{Text: "SCOUT REPORT: greet.go defines greeting.", Delay: 300 * time.Millisecond}
		}},
		{Text: "SCOUT AGAIN: still greet.go."},
	}})
	files := sampleFiles()
	files["big.txt"] = bigFile()
	files[".covey/config.yaml"] = fmt.Sprintf("context_window: %d\n", compactWindow)
	h := headlessRun{srv: srv, ws: workspace(t, files), box: newSandbox(t)}

	r := h.run(t, "", "-p", "start scout in the background, then read big.txt", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	evs := parseStream(t, r.stdout)
	compaction := index(evs, 0, func(e streamEvent) bool { return e.Type == "compaction" && e.AgentID == "main" })
	delivered := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "background_result" && e.Name == "scout" && strings.Contains(e.Text, "SCOUT REPORT")
	})
	again := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "background_result" && e.Name == "scout" && strings.Contains(e.Text, "SCOUT AGAIN")
	})
	final := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "done" && e.AgentID == "main" && strings.HasPrefix(e.Answer, "FINAL:")
	})
	if compaction < 0 || delivered < 0 || again < 0 || final < 0 {
		t.Fatalf("compaction %d, delivered %d, again %d, final %d:\n%s", compaction, delivered, again, final, r.stdout)
	}
	if !(compaction < delivered && delivered < again && again < final) {
		t.Errorf("order: compaction %d, delivered %d, resumed report %d, final %d", compaction, delivered, again, final)
	}
	// The summary carried covey's own record of the running child.
	var summaryOK bool
	for _, e := range srv.Journal() {
		for _, m := range e.Messages {
			if strings.HasPrefix(m.Content, agent.CompactedMarker) && strings.Contains(m.Content, "- scout (id explore-1, type Explore): running, in the background") {
				summaryOK = true
			}
		}
	}
	if !summaryOK {
		t.Error("no request carried a summary with covey's record of the running scout")
	}
}

// TestCompactTUI: /compact FOCUS in a real terminal: the whole transcript
// stays on screen, a divider marks the compaction and expands to show the
// summary, the focus reached the summariser, and the next question is
// answered from the summary.
func TestCompactTUI(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ls := &scriptedtest.LongSession{Tool: "read_file", Args: map[string]any{"path": "greet.go"}, SummaryMarker: "conversation summariser"}
	for _, c := range ls.Conversations(scripted.Match{SystemContains: mainPrompt}, 100) {
		srv.Add(c)
	}
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	tm := startTUI(t, ws, env, "--model", "e2e-model")
	tm.waitText(helpLine)

	for i := 1; i <= 3; i++ {
		tm.submit(fmt.Sprintf("[long %d] remember FACT-%d", i, i))
		tm.waitFor(fmt.Sprintf("answer %d", i), waitLong, func(s string) bool { return strings.Count(s, "Noted.") == i })
	}
	tm.submit("/compact the facts")
	s := tm.waitText("context compacted:", "enter: summary")
	if !strings.Contains(s, "[long 1] remember FACT-1") {
		t.Errorf("the transcript before the compaction left the screen:\n%s", frame(s))
	}
	var focus bool
	for _, e := range srv.Journal() {
		focus = focus || (e.Conversation == "long-summary" && strings.Contains(scripted.Request{Entry: e}.LastUser(), "focus on: the facts"))
	}
	if !focus {
		t.Error("the summary request does not carry the focus")
	}
	// Tab focuses the newest block that has a long form: the divider.
	tm.press("Tab")
	tm.press("Enter")
	// The last two turns stay verbatim; the summary holds the first.
	s = tm.waitText("Summary of the session. Facts: FACT-1.")
	if strings.Contains(s, "Go on with the work") {
		t.Errorf("a compaction between turns tells the model to go on with an answered request:\n%s", frame(s))
	}
	tm.press("Escape")
	// An Escape still unread would make the "[" typed next an escape
	// sequence: wait until the input has the focus again.
	tm.waitText("enter send")
	tm.submit("[long question] which facts?")
	tm.waitText("FACTS: FACT-1 FACT-2 FACT-3")
	tm.quitAndCheck(helpLine)

	// Resumed, the transcript comes back whole with its divider, and the
	// model goes on from the summary.
	tm2 := startTUI(t, ws, env, "--model", "e2e-model", "--continue")
	tm2.waitText("context compacted:", "FACTS: FACT-1 FACT-2 FACT-3")
	tm2.press("Home")
	tm2.waitText("[long 1] remember FACT-1")
	tm2.press("End")
	tm2.submit("[long question] and now?")
	tm2.waitFor("the second answer", waitLong, func(s string) bool { return strings.Count(s, "FACTS: FACT-1 FACT-2 FACT-3") == 2 })
	var resumed bool
	for _, e := range srv.Journal() {
		r := scripted.Request{Entry: e}
		resumed = resumed || (strings.Contains(r.LastUser(), "and now?") && strings.HasPrefix(e.Messages[1].Content, agent.CompactedMarker))
	}
	if !resumed {
		t.Error("the resumed session's request does not start from the summary")
	}
}

// TestCompactChildOwnWindow: a child compacts against its own model's
// window, the same way as the main agent: its overflow is compacted and
// sent again, and it finishes its task; the main agent, on a model with a
// window wide enough, never compacts.
func TestCompactChildOwnWindow(t *testing.T) {
	t.Parallel()
	const childWindow = 9000
	srv := scriptedtest.New(t, scripted.WithWindow("small-model", scripted.Window{Tokens: childWindow, Hidden: true}))
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("task", map[string]any{
			"description": "read a lot", "subagent_type": "general-purpose", "name": "reader",
			"prompt": "[long 1] remember FACT-1 and read big.txt",
		})}},
		{Func: func(r scripted.Request) scripted.Turn { return scripted.Turn{Text: "MAIN: " + r.LastMessage().Content} }},
	}})
	var mu sync.Mutex
	reads := 0
	child := func(r scripted.Request) scripted.Turn {
		mu.Lock()
		defer mu.Unlock()
		if reads < 5 {
			reads++
			return scripted.Turn{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "big.txt"})}}
		}
		return scripted.Turn{Text: "READER DONE: " + strings.Join(scriptedtest.Facts(fmt.Sprint(r.Messages)), " ")}
	}
	serve := make([]scripted.Turn, 50)
	for i := range serve {
		serve[i] = scripted.Turn{Func: child}
	}
	// The summariser first: a tie of matches goes to the first added.
	ls := &scriptedtest.LongSession{SummaryMarker: "conversation summariser"}
	srv.Add(ls.Conversations(scripted.Match{Model: "small-model"}, 50)[1])
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{Model: "small-model", SystemContains: "You are"}, Turns: serve})
	files := sampleFiles()
	files["big.txt"] = bigFile()[:12000]
	files[".covey/config.yaml"] = "subagent_model: small-model\n"
	h := headlessRun{srv: srv, ws: workspace(t, files), box: newSandbox(t)}

	r := h.run(t, "", "-p", "delegate the reading", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	evs := parseStream(t, r.stdout)
	childCompaction := index(evs, 0, func(e streamEvent) bool { return e.Type == "compaction" && e.Name == "reader" })
	mainCompaction := index(evs, 0, func(e streamEvent) bool { return e.Type == "compaction" && e.AgentID == "main" })
	done := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "done" && e.AgentID == "main" && strings.Contains(e.Answer, "READER DONE: FACT-1")
	})
	if childCompaction < 0 || mainCompaction >= 0 || done < 0 {
		t.Fatalf("child compaction %d, main compaction %d, answer %d:\n%s", childCompaction, mainCompaction, done, r.stdout)
	}
	if !strings.Contains(evs[childCompaction].raw, `"trigger":"overflow"`) {
		t.Errorf("the child's compaction: %s", evs[childCompaction].raw)
	}
	for _, e := range srv.Journal() {
		if e.Model == "small-model" && e.Overflow && strings.Contains(e.System, "conversation summariser") {
			t.Errorf("a summary request of the child passed its window: %d tokens", e.PromptTokens)
		}
	}
}

// TestCompactTUIUndo: /undo works across a compaction: it restores from
// covey's undo log, not from the conversation the summary replaced.
func TestCompactTUIUndo(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ls := &scriptedtest.LongSession{Tool: "write_file", Args: map[string]any{"path": "notes.txt", "content": "FACT-1 noted\n"}, SummaryMarker: "conversation summariser"}
	for _, c := range ls.Conversations(scripted.Match{SystemContains: mainPrompt}, 100) {
		srv.Add(c)
	}
	ws := workspace(t, sampleFiles())
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model", "--permission-mode", "acceptEdits")
	tm.waitText(helpLine)
	tm.submit("[long 1] write FACT-1 to notes.txt")
	tm.waitText("Noted.")
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatalf("notes.txt was not written: %v", err)
	}
	tm.submit("/compact")
	tm.waitText("context compacted:")
	tm.submit("/undo")
	tm.waitText("Undid the turn of “[long 1] write FACT-1 to notes.txt”: removed notes.txt")
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("notes.txt is still there after /undo: %v", err)
	}
}

// TestCompactPreCompactHook: an automatic compaction runs the user's
// PreCompact hooks first (trigger auto, as Claude Code says it), and what
// they add reaches the summary request.
func TestCompactPreCompactHook(t *testing.T) {
	t.Parallel()
	h := newLongSessionRun(t, fmt.Sprintf("context_window: %d\n", compactWindow))
	seen := filepath.Join(t.TempDir(), "precompact.json")
	script := hookScript(t, t.TempDir(), "precompact.sh", "cat > "+shellQuote(seen)+"\n"+
		`echo '{"hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "Keep the words BLUE HERON."}}'`+"\n")
	hookHome(t, h.box, map[string][]map[string]any{"PreCompact": {group("", script)}})
	for i := 1; i <= 8; i++ { // enough capped reads to pass auto_compact
		args := []string{"-p", fmt.Sprintf("[long %d] remember FACT-%d and read big.txt", i, i)}
		if i > 1 {
			args = append(args, "--continue")
		}
		if r := h.run(t, "", args...); r.code != 0 {
			t.Fatalf("turn %d: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	in, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the PreCompact hook did not run: %v", err)
	}
	var got struct {
		Event   string `json:"hook_event_name"`
		Trigger string `json:"trigger"`
	}
	if err := json.Unmarshal(in, &got); err != nil || got.Event != "PreCompact" || got.Trigger != "auto" {
		t.Errorf("the hook read %s (%v)", in, err)
	}
	var carried bool
	for _, e := range h.srv.Journal() {
		carried = carried || (strings.Contains(e.System, "conversation summariser") && strings.Contains(scripted.Request{Entry: e}.LastUser(), "Keep the words BLUE HERON."))
	}
	if !carried {
		t.Error("no summary request carries what the hook added")
	}
}
