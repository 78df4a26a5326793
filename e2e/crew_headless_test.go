package e2e

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/scripted"
)

// streamEvent is the part of a stream-json line the crew tests read.
type streamEvent struct {
	Type       string `json:"type"`
	AgentID    string `json:"agent_id"`
	Name       string `json:"name"`
	ParentID   string `json:"parent_id"`
	State      string `json:"state"`
	Background bool   `json:"background"`
	Detail     string `json:"detail"`
	Answer     string `json:"answer"`
	Text       string `json:"text"`
	ChildID    string `json:"child_id"`
	Status     string `json:"status"`
	Reason     string `json:"reason"`
	Result     struct {
		Content string `json:"content"`
	} `json:"result"`
	raw string
}

func parseStream(t *testing.T, stdout string) []streamEvent {
	t.Helper()
	var out []streamEvent
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev streamEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, sc.Text())
		}
		ev.raw = sc.Text()
		out = append(out, ev)
	}
	return out
}

// index returns the position of the first event from i on that ok accepts,
// or -1.
func index(evs []streamEvent, from int, ok func(streamEvent) bool) int {
	for i := max(from, 0); i < len(evs); i++ {
		if ok(evs[i]) {
			return i
		}
	}
	return -1
}

func mainDone(answer string) func(streamEvent) bool {
	return func(e streamEvent) bool { return e.Type == "done" && e.AgentID == "main" && e.Answer == answer }
}

// TestHeadlessBackgroundChild: the main agent starts a background child and
// answers at once; the run waits, delivers the child's outcome as a new turn
// and exits after that turn's answer. stream-json carries every state.
func TestHeadlessBackgroundChild(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_bg", Name: "task", Args: map[string]any{
			"description": "find greeting", "subagent_type": "Explore", "name": "scout",
			"prompt": "[e2e:bg] Find where greeting is defined.", "run_in_background": true,
		}}}},
		{Text: "Scout is searching."},
		{Text: "BG ANSWER: greet.go defines greeting."},
	}})
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:bg]"}, Turns: []scripted.Turn{
		{Text: "greet.go line 4 defines greeting.", Delay: 400 * time.Millisecond},
	}})

	r := h.run(t, "", "-p", "where is greeting defined?", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	evs := parseStream(t, r.stdout)
	started := index(evs, 0, func(e streamEvent) bool { return e.Type == "child_started" && e.Name == "scout" && e.Background })
	taskDone := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "tool_finished" && e.AgentID == "main" && strings.Contains(e.Result.Content, `started in the background: name "scout"`)
	})
	firstDone := index(evs, 0, mainDone("Scout is searching."))
	running := index(evs, 0, func(e streamEvent) bool { return e.Type == "child_state" && e.Name == "scout" && e.State == "running" })
	final := index(evs, 0, func(e streamEvent) bool { return e.Type == "child_state" && e.Name == "scout" && e.State == "done" })
	finished := index(evs, 0, func(e streamEvent) bool { return e.Type == "child_finished" && e.Name == "scout" })
	delivered := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "background_result" && e.AgentID == "main" && e.Name == "scout" && e.Status == "done" && e.Text == "greet.go line 4 defines greeting."
	})
	lastDone := index(evs, 0, mainDone("BG ANSWER: greet.go defines greeting."))
	for name, i := range map[string]int{"child_started": started, "task result": taskDone, "first answer": firstDone, "child_state running": running,
		"child_state done": final, "child_finished": finished, "background_result": delivered, "last answer": lastDone} {
		if i < 0 {
			t.Errorf("no %s in the stream:\n%s", name, r.stdout)
		}
	}
	if t.Failed() {
		return
	}
	// The parent answered before the child finished; the delivery came
	// after the child's end and before the last answer, which ends the run.
	if !(taskDone < firstDone && firstDone < finished && finished < delivered && delivered < lastDone) {
		t.Errorf("order: task result %d, first answer %d, child finished %d, delivered %d, last answer %d", taskDone, firstDone, finished, delivered, lastDone)
	}
	if lastDone != len(evs)-1 {
		t.Errorf("events after the last answer: %v", evs[lastDone+1:])
	}
	// The model saw the outcome as a user message.
	var seen bool
	for _, e := range h.srv.Journal() {
		if e.Conversation == "main" && e.Turn == 2 {
			last := e.Messages[len(e.Messages)-1]
			seen = last.Role == "user" && strings.Contains(last.Content, `[background agent "scout"`) && strings.Contains(last.Content, "greet.go line 4")
		}
	}
	if !seen {
		t.Error("the main agent's third request does not end with the child's outcome as a user message")
	}

	// Text mode prints the last answer alone.
	h2 := newHeadlessRun(t)
	for _, c := range []scripted.Conversation{
		{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{{ID: "call_bg", Name: "task", Args: map[string]any{
				"description": "find greeting", "subagent_type": "Explore", "name": "scout",
				"prompt": "[e2e:bg] Find it.", "run_in_background": true,
			}}}},
			{Text: "Scout is searching."},
			{Text: "BG ANSWER"},
		}},
		{Name: "child", Match: scripted.Match{FirstUser: "[e2e:bg]"}, Turns: []scripted.Turn{{Text: "found", Delay: 200 * time.Millisecond}}},
	} {
		h2.srv.Add(c)
	}
	r2 := h2.run(t, "", "-p", "where is greeting defined?")
	if r2.code != 0 || strings.TrimSpace(r2.stdout) != "BG ANSWER" {
		t.Errorf("text mode: exit %d, stdout %q\nstderr:\n%s", r2.code, r2.stdout, r2.stderr)
	}
	if !strings.Contains(r2.stderr, "scout (explore-1) finished in the background") {
		t.Errorf("stderr does not say the background child finished:\n%s", r2.stderr)
	}
}

// TestHeadlessSendMessage: the main agent steers a running background child
// (the message reaches the child's next request) and then resumes it after
// it finished (its whole history plus the message), each outcome delivered
// back as a turn.
func TestHeadlessSendMessage(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{
			"description": "dig", "subagent_type": "Explore", "name": "digger",
			"prompt": "[e2e:steer] Look at main.go.", "run_in_background": true,
		}}}},
		{ToolCalls: []scripted.Call{{ID: "call_steer", Name: "send_message", Args: map[string]any{"to": "digger", "message": "Also look at greet.go."}}}},
		{Text: "Steered digger."},
		// The first report arrives: resume the finished child.
		{ToolCalls: []scripted.Call{{ID: "call_resume", Name: "send_message", Args: map[string]any{"to": "explore-1", "message": "Which line returns hello?"}}}},
		{Text: "Asked digger again."},
		{Text: "SEND ANSWER: line 5."},
	}})
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:steer]"}, Turns: []scripted.Turn{
		{Delay: 500 * time.Millisecond, ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "main.go"})}},
		{Text: "unused: the wire form puts an assistant message between tool and user"},
		{Text: "main.go calls greeting; greet.go defines it."},
		{Text: "greet.go line 5 returns hello."},
	}})

	r := h.run(t, "", "-p", "explain the greeting", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	evs := parseStream(t, r.stdout)
	steered := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "child_message" && e.Name == "digger" && e.Text == "Also look at greet.go."
	})
	first := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "background_result" && e.Text == "main.go calls greeting; greet.go defines it."
	})
	resumed := index(evs, first, func(e streamEvent) bool {
		return e.Type == "child_state" && e.Name == "digger" && e.State == "running" && e.Detail == "resumed by a message" && e.Background
	})
	resumeMsg := index(evs, first, func(e streamEvent) bool {
		return e.Type == "child_message" && e.Name == "digger" && e.Text == "Which line returns hello?"
	})
	second := index(evs, resumed, func(e streamEvent) bool {
		return e.Type == "background_result" && e.Text == "greet.go line 5 returns hello."
	})
	last := index(evs, 0, mainDone("SEND ANSWER: line 5."))
	for name, i := range map[string]int{"steering child_message": steered, "first background_result": first, "resumed child_state": resumed,
		"resume child_message": resumeMsg, "second background_result": second, "last answer": last} {
		if i < 0 {
			t.Errorf("no %s in the stream:\n%s", name, r.stdout)
		}
	}
	if t.Failed() {
		return
	}
	if !(steered < first && first < resumed && resumed < second && second < last) || last != len(evs)-1 {
		t.Errorf("order: steered %d, first %d, resumed %d, second %d, last %d of %d", steered, first, resumed, second, last, len(evs))
	}
	// On the server: the steering message is in the child's request after
	// its tool result; the resumed request holds the whole earlier history.
	var steerSeen, resumeSeen bool
	for _, e := range h.srv.Journal() {
		if e.Conversation != "child" {
			continue
		}
		var roles []string
		for _, m := range e.Messages {
			roles = append(roles, m.Role+":"+m.Content)
		}
		all := strings.Join(roles, "|")
		if e.Turn == 2 && strings.HasSuffix(all, "|user:Also look at greet.go.") && strings.Contains(all, "|tool:") {
			steerSeen = true
		}
		if e.Turn == 3 && strings.Contains(all, "|user:Also look at greet.go.|") &&
			strings.Contains(all, "|assistant:main.go calls greeting; greet.go defines it.|user:Which line returns hello?") {
			resumeSeen = true
		}
	}
	if !steerSeen || !resumeSeen {
		t.Errorf("journal: steering message seen %v, resumed history seen %v", steerSeen, resumeSeen)
	}
}

// TestHeadlessResumeChildAfterContinue: a child that finished in one run is
// resumed by send_message in the next (--continue), with its whole history
// from the session file, and its new report is delivered as a turn.
func TestHeadlessResumeChildAfterContinue(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{
			"description": "look", "subagent_type": "Explore", "name": "scout", "prompt": "[e2e:cont] Look at greet.go.",
		}}}},
		{Text: "FIRST DONE"},
		// The second run (--continue).
		{ToolCalls: []scripted.Call{{ID: "call_send", Name: "send_message", Args: map[string]any{"to": "scout", "message": "Look deeper."}}}},
		{Text: "Asked scout."},
		{Text: "CONTINUE ANSWER"},
	}})
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:cont]"}, Turns: []scripted.Turn{
		{Text: "first look report"},
		{Text: "deeper report"},
	}})
	if r := h.run(t, "", "-p", "look around"); r.code != 0 || strings.TrimSpace(r.stdout) != "FIRST DONE" {
		t.Fatalf("first run: exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r := h.run(t, "", "-p", "ask scout again", "--continue", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("continued run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	evs := parseStream(t, r.stdout)
	resumed := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "child_state" && e.Name == "scout" && e.Detail == "resumed by a message"
	})
	delivered := index(evs, resumed, func(e streamEvent) bool {
		return e.Type == "background_result" && e.Name == "scout" && e.Text == "deeper report"
	})
	last := index(evs, delivered, mainDone("CONTINUE ANSWER"))
	if resumed < 0 || delivered < 0 || last != len(evs)-1 {
		t.Fatalf("resumed %d, delivered %d, last answer %d of %d:\n%s", resumed, delivered, last, len(evs), r.stdout)
	}
	var got []string
	for _, e := range h.srv.Journal() {
		if e.Conversation == "child" && e.Turn == 1 {
			for _, m := range e.Messages[1:] {
				got = append(got, m.Role+":"+m.Content)
			}
		}
	}
	if want := "user:[e2e:cont] Look at greet.go.|assistant:first look report|user:Look deeper."; strings.Join(got, "|") != want {
		t.Errorf("the resumed child's request holds %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestHeadlessChildFiles: a child's bash call that changes files in the git
// workspace shows as child_files in stream-json and in the child's files in
// json, beside the files its write calls changed.
func TestHeadlessChildFiles(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{
			"description": "change things", "subagent_type": "general-purpose", "name": "worker", "prompt": "[e2e:files] Change things.",
		}}}},
		{Text: "FILES DONE"},
	}})
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:files]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_bash", Name: "bash", Args: map[string]any{"command": "printf 'x\\ny\\n' > made.txt && echo '// more' >> greet.go"}}}},
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "notes.md", "content": "notes\n"})}},
		{Text: "changed three files"},
	}})
	r := h.run(t, "", "-p", "change things", "--permission-mode", "bypassPermissions", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var out struct {
		Children []struct {
			Name  string   `json:"name"`
			Files []string `json:"files"`
		} `json:"children"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if len(out.Children) != 1 || out.Children[0].Name != "worker" || strings.Join(out.Children[0].Files, ",") != "greet.go,made.txt,notes.md" {
		t.Fatalf("children = %+v, want worker with greet.go, made.txt, notes.md", out.Children)
	}

	h2 := newHeadlessRun(t)
	for _, c := range []scripted.Conversation{
		{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{
				"description": "change things", "subagent_type": "general-purpose", "name": "worker", "prompt": "[e2e:files] Change things.",
			}}}},
			{Text: "FILES DONE"},
		}},
		{Name: "child", Match: scripted.Match{FirstUser: "[e2e:files]"}, Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{{ID: "call_bash", Name: "bash", Args: map[string]any{"command": "printf 'x\\ny\\n' > made.txt"}}}},
			{Text: "made it"},
		}},
	} {
		h2.srv.Add(c)
	}
	r2 := h2.run(t, "", "-p", "change things", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	if r2.code != 0 {
		t.Fatalf("stream-json: exit %d\nstderr:\n%s", r2.code, r2.stderr)
	}
	if !strings.Contains(r2.stdout, `"type":"child_files"`) || !strings.Contains(r2.stdout, `"call_id":"call_bash","files":[{"path":"made.txt","status":"added","added":2,"diff":"diff --git a/made.txt b/made.txt`) {
		t.Errorf("no child_files event for made.txt in:\n%s", r2.stdout)
	}
}

// TestHeadlessInterruptedChildResumes: covey is killed (SIGKILL) while a
// background child works; after --continue the child is back, marked
// interrupted, and send_message resumes it with the history it had.
func TestHeadlessInterruptedChildResumes(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{
			"description": "dig", "subagent_type": "Explore", "name": "digger", "prompt": "[e2e:int] Dig.", "run_in_background": true,
		}}}},
		{Text: "Digger is digging."},
		// The second run (--continue).
		{ToolCalls: []scripted.Call{{ID: "call_send", Name: "send_message", Args: map[string]any{"to": "digger", "message": "Finish up."}}}},
		{Text: "Asked digger."},
		{Text: "INTERRUPTED ANSWER"},
	}})
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:int]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "*.go"})}},
		{Stall: true}, // covey is killed while this request waits
		{Text: "resumed report"},
		{Text: "resumed report"}, // if the wire form adds "(continuing)"
	}})

	cmd := exec.Command(coveyBin(t), "--model", "e2e-model", "-p", "dig around")
	cmd.Dir, cmd.Env = h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(childTurns(h.srv, 1)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error says so
	if len(childTurns(h.srv, 1)) == 0 {
		t.Fatal("the child's second request never came")
	}

	r := h.run(t, "", "-p", "ask digger", "--continue", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("continued run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	evs := parseStream(t, r.stdout)
	resumed := index(evs, 0, func(e streamEvent) bool {
		return e.Type == "child_state" && e.Name == "digger" && e.Detail == "resumed by a message"
	})
	delivered := index(evs, resumed, func(e streamEvent) bool {
		return e.Type == "background_result" && e.Name == "digger" && e.Status == "done" && e.Text == "resumed report"
	})
	if resumed < 0 || delivered < 0 || index(evs, delivered, mainDone("INTERRUPTED ANSWER")) != len(evs)-1 {
		t.Fatalf("resumed %d, delivered %d:\n%s", resumed, delivered, r.stdout)
	}
	// The resumed request holds the child's whole history: its prompt, its
	// glob call with the result, and the message.
	reqs := childTurns(h.srv, 2)
	reqs = append(reqs, childTurns(h.srv, 3)...)
	if len(reqs) == 0 {
		t.Fatal("no resumed child request")
	}
	var got []string
	for _, m := range reqs[len(reqs)-1].Messages[1:] {
		got = append(got, m.Role)
	}
	last := reqs[len(reqs)-1].Messages
	if s := strings.Join(got, ","); !strings.HasPrefix(s, "user,assistant,tool,") || last[len(last)-1].Content != "Finish up." {
		t.Errorf("resumed request roles %s, last %q", s, last[len(last)-1].Content)
	}
}

// childTurns returns the journal's requests of the "child" conversation at
// turn n.
func childTurns(srv *scripted.Server, n int) []scripted.Entry {
	var out []scripted.Entry
	for _, e := range srv.Journal() {
		if e.Conversation == "child" && e.Turn == n {
			out = append(out, e)
		}
	}
	return out
}
