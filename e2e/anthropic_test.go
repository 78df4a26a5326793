package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// antKey is the Anthropic key of the e2e runs: it must arrive as
// x-api-key, never as a bearer token.
const antKey = "sk-ant-e2e-0123456789"

// antRun is a headless covey speaking Anthropic's Messages wire to the
// scripted server.
type antRun struct{ headlessRun }

func newAntRun(t *testing.T, opts ...scripted.Option) antRun {
	t.Helper()
	return antRun{headlessRun{srv: scriptedtest.New(t, opts...), ws: workspace(t, sampleFiles()), box: newSandbox(t)}}
}

func (h antRun) run(t *testing.T, args ...string) result {
	t.Helper()
	return runCovey(t, h.ws, h.box.env("ANTHROPIC_API_KEY="+antKey), "",
		append([]string{"--api", "anthropic", "--base-url", h.srv.URL(), "--model", "claude-e2e"}, args...)...)
}

// antBody is the part of a Messages request the tests read.
type antBody struct {
	MaxTokens int               `json:"max_tokens"`
	Tools     []json.RawMessage `json:"tools"`
	System    []json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
}

func parseAnt(t *testing.T, e scripted.Entry) antBody {
	t.Helper()
	var b antBody
	if err := json.Unmarshal(e.Body, &b); err != nil {
		t.Fatalf("request body is not a Messages request: %v\n%s", err, e.Body)
	}
	return b
}

func blockType(raw json.RawMessage) string {
	var b struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &b)
	return b.Type
}

// TestAnthropicHeadless: covey speaks Anthropic's wire end to end: a
// thinking model answers with two parallel tool calls, both results go
// back in one user message with the thinking block before the calls byte
// for byte, four cache breakpoints move forward over a byte-stable prefix,
// the cache counts reach the json output, and --continue sends the same
// thinking bytes again.
func TestAnthropicHeadless(t *testing.T) {
	t.Parallel()
	h := newAntRun(t)
	h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt, Model: "claude-e2e"}, Turns: []scripted.Turn{
		{Reasoning: "I should <grep> & read.", ToolCalls: []scripted.Call{
			call("grep", map[string]any{"pattern": "func greeting", "output_mode": "files_with_matches"}),
			call("read_file", map[string]any{"path": "greet.go"})},
			Usage: &scripted.Usage{Prompt: 6000, Completion: 40, Cached: 0, CacheWrite: 5000}},
		{Text: "ANT ANSWER: greet.go defines greeting.", Usage: &scripted.Usage{Prompt: 6400, Completion: 12, Cached: 5000, CacheWrite: 300}},
		{Text: "ANT AGAIN.", Usage: &scripted.Usage{Prompt: 6500, Completion: 3, Cached: 5300}},
	}})
	r := h.run(t, "-p", "where is greeting?", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var out struct {
		Answer string `json:"answer"`
		Usage  struct {
			In         int `json:"input_tokens"`
			Cached     int `json:"cached_tokens"`
			CacheWrite int `json:"cache_write_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if out.Answer != "ANT ANSWER: greet.go defines greeting." || out.Usage.In != 12400 || out.Usage.Cached != 5000 || out.Usage.CacheWrite != 5300 {
		t.Errorf("json output = %+v", out)
	}
	j := h.srv.Journal()
	if len(j) != 2 {
		t.Fatalf("%d requests, want 2: %+v", len(j), j)
	}
	for i, e := range j {
		if e.API != scripted.APIAnthropic || !e.HasAuth || e.Unmatched != "" {
			t.Fatalf("request %d: api %q, key sent %v, unmatched %q", i, e.API, e.HasAuth, e.Unmatched)
		}
	}
	first, second := parseAnt(t, j[0]), parseAnt(t, j[1])
	if first.MaxTokens <= 0 {
		t.Errorf("max_tokens %d, want it always set", first.MaxTokens)
	}
	// The assistant's blocks: the thinking block first, as streamed, then
	// both calls; then one user message with both results.
	if len(second.Messages) != 3 {
		t.Fatalf("second request has %d messages, want user, assistant, user", len(second.Messages))
	}
	asst := second.Messages[1].Content
	thinking := asst[0]
	if blockType(thinking) != "thinking" || !bytes.Contains(thinking, []byte(`"thinking":"I should \u003cgrep\u003e \u0026 read."`)) ||
		!bytes.Contains(thinking, []byte(`"signature":"sig-msg_`)) {
		t.Errorf("first assistant block = %s, want the thinking block with its signature", thinking)
	}
	if len(asst) != 3 || blockType(asst[1]) != "tool_use" || blockType(asst[2]) != "tool_use" {
		t.Errorf("assistant blocks = %s, want thinking then two tool_use", asst)
	}
	results := second.Messages[2]
	if results.Role != "user" || len(results.Content) != 2 || blockType(results.Content[0]) != "tool_result" || blockType(results.Content[1]) != "tool_result" {
		t.Errorf("results message = %s %s, want one user message with both tool_result blocks", results.Role, results.Content)
	}
	// Cache: three breakpoints on the first request (tools, system, the
	// prompt), four on the second (the prompt's stays, the results get
	// one); tools and system the same bytes.
	if n := bytes.Count(j[0].Body, []byte(`"cache_control"`)); n != 3 {
		t.Errorf("first request: %d breakpoints, want 3", n)
	}
	if n := bytes.Count(j[1].Body, []byte(`"cache_control"`)); n != 4 {
		t.Errorf("second request: %d breakpoints, want 4", n)
	}
	if !bytes.Equal(joinRaw(first.Tools), joinRaw(second.Tools)) || !bytes.Equal(joinRaw(first.System), joinRaw(second.System)) {
		t.Error("tools or system prompt changed between the turns: the cached prefix is lost")
	}
	if !bytes.Equal(first.Messages[0].Content[0], second.Messages[0].Content[0]) {
		t.Errorf("the prompt's block changed: %s then %s", first.Messages[0].Content[0], second.Messages[0].Content[0])
	}

	// --continue: the thinking block goes back with the same bytes.
	r = h.run(t, "-p", "and again?", "--continue")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "ANT AGAIN." {
		t.Fatalf("--continue: exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	j = h.srv.Journal()
	third := parseAnt(t, j[2])
	if len(third.Messages) < 4 || !bytes.Equal(third.Messages[1].Content[0], thinking) {
		t.Errorf("after --continue the thinking block is %s, want %s", third.Messages[1].Content[0], thinking)
	}
}

func joinRaw(rs []json.RawMessage) []byte {
	var b []byte
	for _, r := range rs {
		b = append(append(b, r...), ',')
	}
	return b
}

// TestAnthropicErrorsAndCutOffs: 529 and an overloaded error event before
// any answer are retried; a refusal is told and exits 1.
func TestAnthropicErrorsAndCutOffs(t *testing.T) {
	t.Parallel()
	t.Run("retries", func(t *testing.T) {
		t.Parallel()
		h := newAntRun(t)
		overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
		h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{
			Attempts: []scripted.Turn{
				{Status: 529, Body: overloaded},
				{Raw: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\nevent: error\ndata: " + overloaded + "\n\n"},
			},
			Text: "RECOVERED.",
		}}})
		r := h.run(t, "-p", "hello")
		if r.code != 0 || strings.TrimSpace(r.stdout) != "RECOVERED." {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		if n := len(h.srv.Journal()); n != 3 {
			t.Errorf("%d requests, want 3 (two retried)", n)
		}
		if !strings.Contains(r.stderr, "retrying in") || !strings.Contains(r.stderr, "server overloaded (529)") || !strings.Contains(r.stderr, "provider overloaded") {
			t.Errorf("stderr does not tell of the retries:\n%s", r.stderr)
		}
	})
	t.Run("error event mid-answer", func(t *testing.T) {
		t.Parallel()
		h := newAntRun(t)
		ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
		raw := ev("message_start", `{"type":"message_start","message":{"id":"msg_m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`) +
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Half an ans"}}`) +
			ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{Raw: raw}}})
		r := h.run(t, "-p", "hello")
		if r.code != 1 || strings.TrimSpace(r.stdout) != "Half an ans" || !strings.Contains(r.stderr, "Overloaded") {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		if n := len(h.srv.Journal()); n != 1 {
			t.Errorf("%d requests: an answer broken midway must not be retried", n)
		}
	})
	t.Run("max_tokens", func(t *testing.T) {
		t.Parallel()
		h := newAntRun(t)
		h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
			{Text: "The essay begins", FinishReason: "length"}}})
		r := h.run(t, "-p", "hello")
		if r.code != 1 || strings.TrimSpace(r.stdout) != "The essay begins" || !strings.Contains(r.stderr, "cut off") {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("refusal", func(t *testing.T) {
		t.Parallel()
		h := newAntRun(t)
		h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
			{Text: "I can't", FinishReason: "refusal"}}})
		r := h.run(t, "-p", "hello", "--output-format", "json")
		if r.code != 1 || !strings.Contains(r.stdout, `"reason": "refusal"`) || !strings.Contains(r.stderr+r.stdout, "refused") {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
}

// TestAnthropicOverflowCompacts: a conversation that passes the model's
// window is refused in Anthropic's words ("prompt is too long"), compacted
// on the same wire, and sent again; every turn is answered.
func TestAnthropicOverflowCompacts(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t, scripted.WithWindow("", scripted.Window{Tokens: compactWindow, Hidden: true}))
	ls := &scriptedtest.LongSession{Tool: "read_file", Args: map[string]any{"path": "big.txt"}, SummaryMarker: "conversation summariser"}
	for _, c := range ls.Conversations(scripted.Match{SystemContains: mainPrompt}, 100) {
		srv.Add(c)
	}
	files := sampleFiles()
	files["big.txt"] = bigFile()
	h := antRun{headlessRun{srv: srv, ws: workspace(t, files), box: newSandbox(t)}}
	compacted := 0
	for i := 1; i <= 6; i++ {
		args := []string{"-p", fmt.Sprintf("[long %d] remember FACT-%d and read big.txt", i, i)}
		if i > 1 {
			args = append(args, "--continue")
		}
		r := h.run(t, args...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "Noted." {
			t.Fatalf("turn %d: exit %d, stdout %q\nstderr:\n%s", i, r.code, r.stdout, r.stderr)
		}
		compacted += strings.Count(r.stderr, "compacted ")
	}
	over, summaries := 0, 0
	for _, e := range srv.Journal() {
		if e.API != scripted.APIAnthropic {
			t.Errorf("a request on another wire: %+v", e)
		}
		if e.Overflow {
			over++
		}
		if !e.Overflow && strings.Contains(e.System, "conversation summariser") {
			summaries++
		}
	}
	if over == 0 || compacted == 0 || summaries == 0 {
		t.Errorf("%d requests refused, %d compactions, %d summaries on the Anthropic wire: want each at least once", over, compacted, summaries)
	}
}

// TestAnthropicChildCachePrefix: a child on Anthropic's wire gets its
// own breakpoints over its own byte-stable prefix, as its parent does:
// every request of each agent marks the last tool, the system prompt and
// its last user messages (four at most), and each request's tools, system
// and messages begin with the previous request's bytes (the marks left
// out, as the cache hashes them).
func TestAnthropicChildCachePrefix(t *testing.T) {
	t.Parallel()
	h := newAntRun(t)
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:antchild]"}, Turns: []scripted.Turn{
		{Reasoning: "Grep first.", ToolCalls: []scripted.Call{call("grep", map[string]any{"pattern": "func greeting", "output_mode": "files_with_matches"})}},
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "greet.go"})}},
		{Text: "greet.go defines greeting."},
	}})
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Reasoning: "Delegate.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{
			"description": "find greeting", "subagent_type": "Explore", "prompt": "[e2e:antchild] Find greeting."}}}},
		{Text: "ANT CREW DONE."},
	}})
	r := h.run(t, "-p", "where is greeting?")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "ANT CREW DONE." {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	strip := func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`,"cache_control":{"type":"ephemeral"}`), nil)
	}
	for _, conv := range []string{"main", "child"} {
		reqs := requestsOf(h.srv, conv)
		if want := map[string]int{"main": 2, "child": 3}[conv]; len(reqs) != want {
			t.Fatalf("%s: %d requests, want %d", conv, len(reqs), want)
		}
		var prev antBody
		for i, e := range reqs {
			if e.API != scripted.APIAnthropic {
				t.Fatalf("%s request %d on wire %q", conv, i, e.API)
			}
			body := parseAnt(t, e)
			n := bytes.Count(e.Body, []byte(`"cache_control"`))
			lastTool, lastSys := body.Tools[len(body.Tools)-1], body.System[len(body.System)-1]
			lastMsg := body.Messages[len(body.Messages)-1]
			if n < 3 || n > 4 || !bytes.Contains(lastTool, []byte("cache_control")) || !bytes.Contains(lastSys, []byte("cache_control")) ||
				!bytes.Contains(lastMsg.Content[len(lastMsg.Content)-1], []byte("cache_control")) {
				t.Errorf("%s request %d: %d breakpoints, not on the last tool, the system prompt and the latest message", conv, i, n)
			}
			if i > 0 {
				if !bytes.Equal(strip(joinRaw(prev.Tools)), strip(joinRaw(body.Tools))) || !bytes.Equal(strip(joinRaw(prev.System)), strip(joinRaw(body.System))) {
					t.Errorf("%s request %d: tools or system changed", conv, i)
				}
				for m, pm := range prev.Messages {
					if !bytes.Equal(strip(joinRaw(pm.Content)), strip(joinRaw(body.Messages[m].Content))) {
						t.Errorf("%s request %d: message %d changed:\n%s\nwas\n%s", conv, i, m, joinRaw(body.Messages[m].Content), joinRaw(pm.Content))
					}
				}
			}
			prev = body
		}
	}
}

// TestTUIAnthropicCrewAcrossWires: in the terminal, a main agent on
// Anthropic's wire (its model says api: anthropic) starts a child whose
// model is served by Chat Completions on the same server: each speaks its
// own wire, the welcome card and /model name the main agent's.
func TestTUIAnthropicCrewAcrossWires(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	// The user's config and agent (a project's would first ask for trust).
	box := newSandbox(t)
	userDir := filepath.Join(box.home, ".config", "covey")
	for name, content := range map[string]string{
		"config.yaml":     "model: claude-e2e\nbase_url: " + srv.URL() + "\nmodels:\n  claude-e2e: {api: anthropic}\n",
		"agents/scout.md": "---\nname: scout\ndescription: Finds files.\nmodel: local-e2e\ntools: [glob]\n---\nYou find files.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(userDir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(userDir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := workspace(t, sampleFiles())
	srv.Add(scripted.Conversation{Name: "scout", Match: scripted.Match{FirstUser: "[e2e:scout]", Model: "local-e2e"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "*.go"})}},
		{Text: "greet.go is there."},
	}})
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, Model: "claude-e2e"}, Turns: []scripted.Turn{
		{Reasoning: "A scout can look.", Text: "Sending a scout.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{
			"description": "find go files", "subagent_type": "scout", "prompt": "[e2e:scout] Find the Go files."}}}},
		{Text: "E2E CREW ACROSS WIRES.", ChunkSize: 100},
	}})
	// The endpoint and wire come from the project's config: trusted.
	tm := startTUI(t, ws, box.env("ANTHROPIC_API_KEY="+antKey), "--trust-project")
	tm.waitText(helpLine, "(Anthropic Messages)")
	tm.submit("find the go files")
	s := tm.waitText("E2E CREW ACROSS WIRES.")
	if !typedPaneRe("scout", "find go files").MatchString(s) {
		t.Errorf("no pane for the scout:\n%s", frame(s))
	}
	tm.submit("/model")
	tm.waitText("model: claude-e2e (Anthropic Messages)")
	for _, e := range srv.Journal() {
		switch e.Conversation {
		case "main":
			if e.API != scripted.APIAnthropic || !e.HasAuth {
				t.Errorf("main agent's request on %q (key sent: %v), want anthropic with x-api-key", e.API, e.HasAuth)
			}
		case "scout":
			if e.API != "" {
				t.Errorf("scout's request on %q, want Chat Completions", e.API)
			}
		default:
			t.Errorf("unexpected request: %+v", e)
		}
	}
	if len(requestsOf(srv, "main")) != 2 || len(requestsOf(srv, "scout")) != 2 {
		t.Errorf("requests: %d main, %d scout; want 2 and 2", len(requestsOf(srv, "main")), len(requestsOf(srv, "scout")))
	}
	tm.quitAndCheck(helpLine)
}

// TestAnthropicResumeOnAnotherWire: a session made on Anthropic's wire and
// resumed on Chat Completions says so, and goes on.
func TestAnthropicResumeOnAnotherWire(t *testing.T) {
	t.Parallel()
	h := newAntRun(t)
	h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Reasoning: "thinking on anthropic", Text: "FIRST."}, {Text: "SECOND."}}})
	if r := h.run(t, "-p", "hello"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	r := runCovey(t, h.ws, h.box.env(), "", "--api", "chat", "--base-url", h.srv.URL(), "--model", "claude-e2e", "-p", "again", "--continue")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "SECOND." {
		t.Fatalf("resumed run: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "made on Anthropic Messages and now speaks Chat Completions") {
		t.Errorf("stderr does not say the wire changed:\n%s", r.stderr)
	}
	if j := h.srv.Journal(); len(j) != 2 || j[1].API != "" {
		t.Errorf("the resumed request: %+v", j)
	}
}

// TestAnthropicResumeOnRecordedWire: a session resumes on the wire it was
// made on, though the config now names another for its model (saying
// so), its thinking going back byte for byte; --api then moves it, also
// saying so.
func TestAnthropicResumeOnRecordedWire(t *testing.T) {
	t.Parallel()
	h := newAntRun(t)
	h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Reasoning: "thinking on anthropic", Text: "FIRST."}, {Text: "SECOND."}, {Text: "THIRD."}}})
	// The first run names its wire in the user's config (no --api).
	writeWire := func(api string) { h.writeWireConfig(t, api) }
	env := h.box.env("ANTHROPIC_API_KEY=" + antKey)
	writeWire("anthropic")
	if r := runCovey(t, h.ws, env, "", "-p", "hello"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	// The config now says chat: the session goes on on Anthropic's wire.
	writeWire("chat")
	r := runCovey(t, h.ws, env, "", "--continue", "-p", "again")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "SECOND." {
		t.Fatalf("resumed run: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "made on Anthropic Messages and goes on in it, though the config now names Chat Completions for claude-e2e") {
		t.Errorf("stderr does not say the session stays on its wire:\n%s", r.stderr)
	}
	j := h.srv.Journal()
	if len(j) != 2 || j[1].API != "anthropic" {
		t.Fatalf("%d requests, the last on wire %q; want 2, the resumed one on Anthropic's", len(j), j[len(j)-1].API)
	}
	// Its thinking went back as it came.
	first := parseAnt(t, j[1])
	if len(first.Messages) < 2 || len(first.Messages[1].Content) == 0 || blockType(first.Messages[1].Content[0]) != "thinking" ||
		!bytes.Contains(first.Messages[1].Content[0], []byte(`"thinking on anthropic"`)) {
		t.Errorf("the resumed request does not carry the thinking first: %+v", first.Messages)
	}
	// --api moves it, and says so.
	r = runCovey(t, h.ws, env, "", "--api", "chat", "--continue", "-p", "third")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "THIRD." {
		t.Fatalf("third run: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "made on Anthropic Messages and now speaks Chat Completions (--api chat)") {
		t.Errorf("stderr does not say --api changed the wire:\n%s", r.stderr)
	}
	if j := h.srv.Journal(); len(j) != 3 || j[2].API != "" {
		t.Errorf("%d requests, the last on wire %q; want 3, the last on Chat Completions", len(j), j[len(j)-1].API)
	}
}

// TestTUIAnthropicResumeOnRecordedWire: in the terminal too, a session
// resumed after the config changed its model's wire says so in the resume
// notice and goes on on the wire it was made on.
func TestTUIAnthropicResumeOnRecordedWire(t *testing.T) {
	t.Parallel()
	h := newAntRun(t)
	h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Reasoning: "thinking on anthropic", Text: "FIRST."}, {Text: "TUI SECOND."}}})
	writeWire := func(api string) { h.writeWireConfig(t, api) }
	env := h.box.env("ANTHROPIC_API_KEY=" + antKey)
	writeWire("anthropic")
	if r := runCovey(t, h.ws, env, "", "-p", "hello"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	writeWire("chat")
	tm := startTUI(t, h.ws, env, "--continue")
	tm.waitText("goes on in it, though the config now names Chat Completions")
	tm.submit("again")
	tm.waitText("TUI SECOND.")
	if j := h.srv.Journal(); len(j) != 2 || j[1].API != scripted.APIAnthropic {
		t.Errorf("%d requests, the last on wire %q; want the resumed one on Anthropic's", len(j), j[len(j)-1].API)
	}
	tm.quitAndCheck(helpLine)
}

// TestAnthropicJSONCost: the json result prices cache reads and writes at
// their own prices and says the cache counts.
func TestAnthropicJSONCost(t *testing.T) {
	t.Parallel()
	h := newAntRun(t)
	cfgDir := filepath.Join(h.box.home, ".config", "covey")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "prices:\n  claude-e2e: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}\n"
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Text: "PRICED.", Usage: &scripted.Usage{Prompt: 1_000_000, Completion: 10_000, Cached: 800_000, CacheWrite: 100_000}}}})
	r := h.run(t, "--output-format", "json", "-p", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var res struct {
		Cost  *float64 `json:"cost"`
		Usage struct {
			Cached     int `json:"cached_tokens"`
			CacheWrite int `json:"cache_write_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	// 0.1M fresh at 3, 0.8M read at 0.3, 0.1M written at 3.75, 10k out at 15
	want := 0.3 + 0.24 + 0.375 + 0.15
	if res.Cost == nil || *res.Cost < want-1e-9 || *res.Cost > want+1e-9 || res.Usage.Cached != 800_000 || res.Usage.CacheWrite != 100_000 {
		t.Errorf("cost %v, usage %+v; want %v with the cache counts\n%s", res.Cost, res.Usage, want, r.stdout)
	}
}

// TestAnthropicRawQuirks: a raw stream with every quirk of a real one
// (pings, empty deltas, a redacted thinking block, a thinking block with
// only a signature, tool input streamed as an empty object) runs its call,
// and the next request carries both thinking blocks byte for byte before
// the tool use.
func TestAnthropicRawQuirks(t *testing.T) {
	t.Parallel()
	h := newAntRun(t)
	redacted := `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a+/=="}`
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	raw := ev("message_start", `{"type":"message_start","message":{"id":"msg_raw","type":"message","role":"assistant","model":"claude-e2e","content":[],"usage":{"input_tokens":20,"cache_read_input_tokens":7,"output_tokens":1}}}`) +
		ev("ping", `{"type":"ping"}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":`+redacted+`}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"b25seQ=="}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":""}}`) +
		ev("ping", `{"type":"ping"}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":2}`) +
		ev("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_raw1","name":"glob","input":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":""}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":3}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	h.srv.Add(scripted.Conversation{Name: "ant", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Raw: raw}, {Text: "RAW DONE."}}})
	r := h.run(t, "-p", "list", "--output-format", "stream-json")
	if r.code != 0 || !strings.Contains(r.stdout, "RAW DONE.") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, `"cached_tokens":7`) {
		t.Errorf("stream-json does not carry the cache reads:\n%s", r.stdout)
	}
	j := h.srv.Journal()
	if len(j) != 2 {
		t.Fatalf("%d requests, want 2", len(j))
	}
	asst := parseAnt(t, j[1]).Messages[1].Content
	if len(asst) != 3 || string(asst[0]) != redacted || string(asst[1]) != `{"type":"thinking","thinking":"","signature":"b25seQ=="}` ||
		!bytes.Contains(asst[2], []byte(`"id":"toolu_raw1","name":"glob","input":{}`)) {
		t.Errorf("assistant blocks sent back = %s", asst)
	}
	if res := parseAnt(t, j[1]).Messages[2].Content; len(res) != 1 || !bytes.Contains(res[0], []byte(`"tool_use_id":"toolu_raw1"`)) {
		t.Errorf("tool result = %s", res)
	}
}

// writeWireConfig writes the user's config naming the scripted server, the
// model claude-e2e and api as its wire (no --api needed).
func (h *antRun) writeWireConfig(t *testing.T, api string) {
	t.Helper()
	cfgDir := filepath.Join(h.box.home, ".config", "covey")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("base_url: %s\nmodel: claude-e2e\napi: %s\napi_key_env: ANTHROPIC_API_KEY\n", h.srv.URL(), api)
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}
