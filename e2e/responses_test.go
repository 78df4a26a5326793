package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// The OpenAI Responses wire, end to end: the built covey run with --api
// responses against the scripted server's /v1/responses.

// respStream builds a raw Responses stream as OpenAI sends it: each event
// named, typed and numbered.
type respStream struct {
	b   strings.Builder
	seq int
}

// add appends one event; fields are raw JSON members after type and
// sequence_number.
func (r *respStream) add(typ, fields string) *respStream {
	fmt.Fprintf(&r.b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d", typ, typ, r.seq)
	if fields != "" {
		r.b.WriteString("," + fields)
	}
	r.b.WriteString("}\n\n")
	r.seq++
	return r
}

func (r *respStream) String() string { return r.b.String() }

// The reasoning item the main agent's first answer carries: opaque
// encrypted content and a summary, which must come back byte for byte.
const (
	respItem    = `{"id":"rs_e2e1","type":"reasoning","encrypted_content":"gAAAAB-e2e-sealed+/=","summary":[{"type":"summary_text","text":"Plan: delegate the search."}]}`
	respSummary = "Plan: delegate the search."
	respAnswer  = "RESPONSES ANSWER: greeting is in greet.go."
	respTaskID  = "call_resptask1"
)

// respFirstTurn is the main agent's first answer: reasoning (summary
// streamed), an empty text delta, then the task call with its arguments
// streamed, then usage with cached and reasoning tokens.
func respFirstTurn() string {
	args, _ := json.Marshal(map[string]any{"description": "find the greeting", "subagent_type": "Explore",
		"prompt": "[e2e:resp] Find where greeting is defined."})
	quoted, _ := json.Marshal(string(args))
	head, _ := json.Marshal(string(args[:len(args)/2]))
	tail, _ := json.Marshal(string(args[len(args)/2:]))
	s := &respStream{}
	s.add("response.created", `"response":{"id":"resp_e2e1","object":"response","status":"in_progress","output":[]}`).
		add("response.in_progress", `"response":{"id":"resp_e2e1","object":"response","status":"in_progress","output":[]}`).
		add("response.output_item.added", `"output_index":0,"item":{"id":"rs_e2e1","type":"reasoning","summary":[]}`).
		add("response.reasoning_summary_part.added", `"item_id":"rs_e2e1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`).
		add("response.reasoning_summary_text.delta", `"item_id":"rs_e2e1","output_index":0,"summary_index":0,"delta":"Plan: delegate"`).
		add("response.reasoning_summary_text.delta", `"item_id":"rs_e2e1","output_index":0,"summary_index":0,"delta":" the search."`).
		add("response.reasoning_summary_text.done", `"item_id":"rs_e2e1","output_index":0,"summary_index":0,"text":"Plan: delegate the search."`).
		add("response.output_item.done", `"output_index":0,"item":`+respItem).
		add("response.output_item.added", `"output_index":1,"item":{"id":"fc_e2e1","type":"function_call","status":"in_progress","arguments":"","call_id":"`+respTaskID+`","name":"task"}`).
		add("response.function_call_arguments.delta", `"item_id":"fc_e2e1","output_index":1,"delta":`+string(head)).
		add("response.function_call_arguments.delta", `"item_id":"fc_e2e1","output_index":1,"delta":""`).
		add("response.function_call_arguments.delta", `"item_id":"fc_e2e1","output_index":1,"delta":`+string(tail)).
		add("response.function_call_arguments.done", `"item_id":"fc_e2e1","output_index":1,"arguments":`+string(quoted)).
		add("response.output_item.done", `"output_index":1,"item":{"id":"fc_e2e1","type":"function_call","status":"completed","arguments":`+string(quoted)+`,"call_id":"`+respTaskID+`","name":"task"}`).
		add("response.completed", `"response":{"id":"resp_e2e1","object":"response","status":"completed","usage":{"input_tokens":1000,"input_tokens_details":{"cached_tokens":0},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":10},"total_tokens":1030}}`)
	return s.String()
}

// scriptResponses adds the main agent's and its Explore child's
// conversations on the Responses wire.
func scriptResponses(srv *scripted.Server) {
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: "where is greeting"}, Turns: []scripted.Turn{
		{Raw: respFirstTurn()},
		{Reasoning: "The child found it.", Text: respAnswer, Usage: &scripted.Usage{Prompt: 2000, Completion: 50, Cached: 1536, Reasoning: 20}},
	}})
	srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:resp]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("grep", map[string]any{"pattern": "func greeting", "output_mode": "files_with_matches"}), call("read_file", map[string]any{"path": "greet.go"})}},
		{Text: "greet.go line 4 defines greeting."},
	}})
}

// respBody is what the tests read of a Responses request body.
type respBody struct {
	Input          []json.RawMessage `json:"input"`
	Messages       json.RawMessage   `json:"messages"`
	PromptCacheKey string            `json:"prompt_cache_key"`
	Store          *bool             `json:"store"`
	Include        []string          `json:"include"`
}

func decodeRespBody(t *testing.T, e scripted.Entry) respBody {
	t.Helper()
	var b respBody
	if err := json.Unmarshal(e.Body, &b); err != nil {
		t.Fatalf("request body: %v\n%s", err, e.Body)
	}
	return b
}

// checkResponsesJournal holds every request of a delegating run to the
// Responses wire: store false with encrypted reasoning included, one
// prompt_cache_key for the main agent's turns and another, its own, for
// the child's; the reasoning item back byte for byte before the call it
// preceded, and the call answered by its call_id.
func checkResponsesJournal(t *testing.T, srv *scripted.Server) {
	t.Helper()
	keys := map[string]map[string]bool{}
	var mainTurn1 *scripted.Entry
	for _, e := range srv.Journal() {
		b := decodeRespBody(t, e)
		if b.Input == nil || b.Messages != nil || b.Store == nil || *b.Store || len(b.Include) != 1 || b.Include[0] != "reasoning.encrypted_content" {
			t.Errorf("request of %s turn %d is not a stateless Responses request: %s", e.Conversation, e.Turn, e.Body)
		}
		if keys[e.Conversation] == nil {
			keys[e.Conversation] = map[string]bool{}
		}
		keys[e.Conversation][b.PromptCacheKey] = true
		if e.Conversation == "main" && e.Turn == 1 {
			mainTurn1 = &e
		}
	}
	if len(keys["main"]) != 1 || len(keys["child"]) != 1 {
		t.Fatalf("prompt_cache_key per conversation = %v: want one for each, stable across turns", keys)
	}
	var mainKey, childKey string
	for k := range keys["main"] {
		mainKey = k
	}
	for k := range keys["child"] {
		childKey = k
	}
	if mainKey == "" || !strings.HasPrefix(childKey, mainKey+"/") {
		t.Errorf("keys: main %q, child %q; want the session's, and the child's its own under it", mainKey, childKey)
	}
	if mainTurn1 == nil {
		t.Fatal("no second request of the main agent")
	}
	b := decodeRespBody(t, *mainTurn1)
	var got []string
	for _, it := range b.Input {
		got = append(got, string(it))
	}
	joined := strings.Join(got, "\n")
	i := strings.Index(joined, respItem)
	j := strings.Index(joined, `{"type":"function_call","call_id":"`+respTaskID+`","name":"task"`)
	k := strings.Index(joined, `{"type":"function_call_output","call_id":"`+respTaskID+`"`)
	if i < 0 || j < i || k < j {
		t.Errorf("the second request does not carry the reasoning item byte for byte, then the call, then its output:\n%s", joined)
	}
	if !bytes.Contains(mainTurn1.Body, []byte(respItem)) {
		t.Errorf("the reasoning item is not in the body verbatim")
	}
}

// TestResponsesWireHeadless runs a delegating turn on the Responses wire
// headless, in json and stream-json, with the same fields as on Chat
// (cached and reasoning tokens included).
func TestResponsesWireHeadless(t *testing.T) {
	t.Parallel()
	args := []string{"--api", "responses", "--model", "gpt-5-codex", "-p", "where is greeting defined?"}
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		h := newHeadlessRun(t)
		scriptResponses(h.srv)
		r := runCovey(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "", append(args, "--output-format", "json")...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		var out struct {
			Answer string `json:"answer"`
			Reason string `json:"reason"`
			Usage  struct {
				In        int `json:"input_tokens"`
				Out       int `json:"output_tokens"`
				Cached    int `json:"cached_tokens"`
				Reasoning int `json:"reasoning_tokens"`
			} `json:"usage"`
			Children []struct {
				Type      string `json:"type"`
				ToolCalls int    `json:"tool_calls"`
			} `json:"children"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("stdout: %v\n%s", err, r.stdout)
		}
		if out.Answer != respAnswer || out.Reason != "ok" {
			t.Errorf("answer %q reason %q", out.Answer, out.Reason)
		}
		if out.Usage.In != 3000 || out.Usage.Out != 80 || out.Usage.Cached != 1536 || out.Usage.Reasoning != 30 {
			t.Errorf("usage %+v, want 3000 in, 80 out, 1536 cached, 30 reasoning", out.Usage)
		}
		if len(out.Children) != 1 || out.Children[0].Type != "Explore" || out.Children[0].ToolCalls != 2 {
			t.Errorf("children %+v, want one Explore with 2 parallel calls", out.Children)
		}
		if strings.Contains(r.stdout, respSummary) {
			t.Errorf("the reasoning summary reached stdout: %s", r.stdout)
		}
		checkResponsesJournal(t, h.srv)
	})
	t.Run("stream-json", func(t *testing.T) {
		t.Parallel()
		h := newHeadlessRun(t)
		scriptResponses(h.srv)
		r := runCovey(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "", append(args, "--output-format", "stream-json")...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		var reasoning strings.Builder
		var done struct {
			Answer string `json:"answer"`
			Usage  struct {
				Cached    int `json:"cached_tokens"`
				Reasoning int `json:"reasoning_tokens"`
			} `json:"usage"`
		}
		sc := bufio.NewScanner(strings.NewReader(r.stdout))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev struct {
				Type    string `json:"type"`
				AgentID string `json:"agent_id"`
				Text    string `json:"text"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("line is not JSON: %v\n%s", err, sc.Text())
			}
			if ev.AgentID == "main" && ev.Type == "reasoning" {
				reasoning.WriteString(ev.Text)
			}
			if ev.AgentID == "main" && ev.Type == "done" {
				_ = json.Unmarshal(sc.Bytes(), &done)
			}
		}
		if done.Answer != respAnswer || done.Usage.Cached != 1536 || done.Usage.Reasoning != 30 {
			t.Errorf("done event %+v", done)
		}
		if reasoning.String() != respSummary+"The child found it." {
			t.Errorf("reasoning events = %q", reasoning.String())
		}
		checkResponsesJournal(t, h.srv)
	})
}

// TestResponsesWireContinue: a reasoning item of the first run comes back
// byte for byte in the request of a --continue run, from the session file.
func TestResponsesWireContinue(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	s := &respStream{}
	s.add("response.created", `"response":{"id":"resp_c1","status":"in_progress"}`).
		add("response.output_item.done", `"output_index":0,"item":`+respItem).
		add("response.output_text.delta", `"item_id":"msg_c1","output_index":1,"content_index":0,"delta":"Remembered."`).
		add("response.completed", `"response":{"id":"resp_c1","status":"completed","usage":{"input_tokens":10,"output_tokens":3}}`)
	h.srv.Add(scripted.Conversation{Name: "cont", Match: scripted.Match{FirstUser: "remember the number 7"}, Turns: []scripted.Turn{
		{Raw: s.String()},
		{Text: "It was 7."},
	}})
	env := h.box.env("OPENAI_BASE_URL=" + h.srv.URL())
	if r := runCovey(t, h.ws, env, "", "--api", "responses", "--model", "gpt-5-codex", "-p", "remember the number 7"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	r := runCovey(t, h.ws, env, "", "--api", "responses", "--model", "gpt-5-codex", "--continue", "-p", "which number?")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "It was 7." {
		t.Fatalf("second run: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	j := h.srv.Journal()
	if len(j) != 2 {
		t.Fatalf("%d requests, want 2", len(j))
	}
	first, second := decodeRespBody(t, j[0]), decodeRespBody(t, j[1])
	if len(second.Input) != 4 || string(second.Input[1]) != respItem ||
		string(second.Input[2]) != `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Remembered."}]}` {
		t.Errorf("the continued request's input:\n%s", j[1].Body)
	}
	if first.PromptCacheKey == "" || second.PromptCacheKey != first.PromptCacheKey {
		t.Errorf("prompt_cache_key %q then %q: want the session's, kept across --continue", first.PromptCacheKey, second.PromptCacheKey)
	}
	// The bytes of the first request's input come first in the second's.
	prefix := string(j[0].Body)
	prefix = prefix[:strings.Index(prefix, `],"tools"`)]
	if !strings.HasPrefix(string(j[1].Body), prefix) {
		t.Errorf("the continued request does not begin with the first request's bytes")
	}
}

// TestResponsesWireErrors: a 429 with Retry-After is retried and the
// answer arrives; an error event mid-stream ends the run with the
// provider's words and the text kept; an incomplete answer is told as a
// cut-off one.
func TestResponsesWireErrors(t *testing.T) {
	t.Parallel()
	midStream := (&respStream{}).
		add("response.created", `"response":{"id":"resp_x","status":"in_progress"}`).
		add("response.output_text.delta", `"item_id":"m","output_index":0,"content_index":0,"delta":"Half an ans"`).
		add("error", `"code":"server_error","message":"The server had an error while processing your request.","param":null`).String()
	tests := map[string]struct {
		turn      scripted.Turn
		code      int
		stdout    string
		inStderr  string
		attempts  int
		jsonError string
	}{
		"429 then an answer": {
			turn: scripted.Turn{Text: "After the wait.", Attempts: []scripted.Turn{
				{Status: 429, Headers: map[string]string{"Retry-After": "0.05"}, Body: `{"error":{"message":"Rate limit reached for gpt-5-codex","type":"requests","code":"rate_limit_exceeded"}}`},
				{Status: 503},
			}},
			code: 0, stdout: "After the wait.", attempts: 3,
		},
		"response.failed before any answer, retried": {
			turn: scripted.Turn{Text: "After the failure.", Attempts: []scripted.Turn{{Raw: (&respStream{}).
				add("response.created", `"response":{"id":"resp_f","status":"in_progress"}`).
				add("response.in_progress", `"response":{"id":"resp_f","status":"in_progress"}`).
				add("response.failed", `"response":{"id":"resp_f","status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached for gpt-5-codex"}}`).String()}}},
			code: 0, stdout: "After the failure.", inStderr: "rate limited", attempts: 2,
		},
		"error event mid-stream": {
			turn: scripted.Turn{Raw: midStream},
			code: 1, stdout: "Half an ans", inStderr: "The server had an error while processing your request.", attempts: 1,
		},
		"incomplete: max_output_tokens": {
			turn: scripted.Turn{Text: "The essay begins", FinishReason: "length"},
			code: 1, stdout: "The essay begins", inStderr: "cut off: the model hit its output limit", attempts: 1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHeadlessRun(t)
			h.srv.Add(scripted.Conversation{Name: "e", Match: scripted.Match{FirstUser: "say it"}, Turns: []scripted.Turn{tc.turn}})
			r := runCovey(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "", "--api", "responses", "--model", "gpt-5-codex", "-p", "say it")
			if r.code != tc.code || strings.TrimSpace(r.stdout) != tc.stdout || !strings.Contains(r.stderr, tc.inStderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.inStderr)
			}
			if n := len(h.srv.Journal()); n != tc.attempts {
				t.Errorf("%d requests, want %d", n, tc.attempts)
			}
		})
	}
}

// TestResponsesWireMixedCrew: a main agent on Chat Completions sends a
// child whose model config serves by Responses; each speaks its own wire
// to the same server, and the child's result reaches the main agent.
func TestResponsesWireMixedCrew(t *testing.T) {
	t.Parallel()
	h := headlessRun{srv: scriptedtest.New(t), ws: workspace(t, sampleFiles()), box: newSandbox(t)}
	writeUserConfig(t, h.box, "subagent_model: gpt-5-codex\nmodels:\n  gpt-5-codex: {api: responses}\n")
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, Model: "e2e-model"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_mix", Name: "task", Args: map[string]any{
			"description": "look", "subagent_type": "Explore", "prompt": "[e2e:mix] Find greeting."}}}},
		{Text: "Main on chat, child on responses."},
	}})
	h.srv.Add(scripted.Conversation{Name: "child", Match: scripted.Match{FirstUser: "[e2e:mix]", Model: "gpt-5-codex"}, Turns: []scripted.Turn{
		{Reasoning: "Look in greet.go.", ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "greet.go"})}},
		{Text: "greet.go defines greeting."},
	}})
	r := h.run(t, "", "-p", "where is greeting defined?", "--trust-project") // a model's wire needs trust
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Main on chat, child on responses." {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	for _, e := range h.srv.Journal() {
		b := decodeRespBody(t, e)
		chat, responses := b.Messages != nil && b.Input == nil, b.Input != nil && b.Messages == nil
		if (e.Conversation == "main" && !chat) || (e.Conversation == "child" && !responses) {
			t.Errorf("%s turn %d spoke the wrong wire: %s", e.Conversation, e.Turn, e.Body)
		}
		if e.Conversation == "child" && e.Turn == 1 && !bytes.Contains(e.Body, []byte(`"type":"reasoning","encrypted_content":"gAAAA`)) &&
			!bytes.Contains(e.Body, []byte(`{"encrypted_content":"gAAAA`)) {
			t.Errorf("the child's reasoning item did not come back: %s", e.Body)
		}
	}
}

// TestResponsesFirstRequestSize holds the Responses wire's first request
// of a one-line prompt to Chat's, measured in the same run (within 2%:
// Chat's own budget is TestFirstRequestSize's), and reports both sizes.
func TestResponsesFirstRequestSize(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{Text: "hi"}}})
	ws, box := workspace(t, sampleFiles()), newSandbox(t)
	noLanguageServers(t, box)
	if r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--api", "responses", "--model", "e2e-model", "-p", "say hi"); r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	j := srv.Journal()
	if len(j) != 1 {
		t.Fatalf("%d requests, want 1", len(j))
	}
	chat := firstRequest(t)
	t.Logf("first request of a one-line prompt: Responses %d bytes, Chat Completions %d bytes", len(j[0].Body), len(chat))
	if limit := len(chat) + len(chat)/50; len(j[0].Body) > limit {
		t.Errorf("the Responses first request is %d bytes, over Chat's %d by more than 2%%", len(j[0].Body), len(chat))
	}
}

// TestResponsesWireTUI: in the TUI, on the Responses wire, the welcome
// card names the wire, a reasoning summary shows folded (its header and
// last lines) above the answer, and the next turn carries the reasoning
// item back.
func TestResponsesWireTUI(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Reasoning: "step one\nstep two\nstep three\nstep four\nstep five: answer briefly", Text: "TUI answer on the Responses wire."},
		{Text: "Second answer."},
	}})
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--api", "responses", "--model", "gpt-5-codex")
	tm.waitText(helpLine, "OpenAI Responses")
	tm.submit("think, then answer")
	screen := tm.waitText("TUI answer on the Responses wire.", "✻ Thinking (2 more lines)", "step five: answer briefly")
	if strings.Contains(screen, "step one") {
		t.Errorf("the reasoning is not folded:\n%s", screen)
	}
	tm.submit("again")
	tm.waitText("Second answer.")
	j := srv.Journal()
	if len(j) != 2 || !bytes.Contains(j[1].Body, []byte(`"type":"reasoning"`)) || !bytes.Contains(j[1].Body, []byte(`"encrypted_content":"gAAAA`)) {
		t.Errorf("the second request lacks the reasoning item: %d requests", len(j))
	}
	tm.quitAndCheck(helpLine)
}

// TestResponsesWireOverflowCompacts: on the Responses wire, with the
// window unknown, a request the server refuses as too long is compacted
// (the summary asked on the same wire) and sent again; the session goes
// on, turn after turn, with every fact kept.
func TestResponsesWireOverflowCompacts(t *testing.T) {
	t.Parallel()
	const turns = 12
	h := newLongSessionRun(t, "")
	env := h.box.env("OPENAI_BASE_URL=" + h.srv.URL())
	sawOverflow := false
	for i := 1; i <= turns; i++ {
		args := []string{"--api", "responses", "--model", "gpt-5-codex", "-p", fmt.Sprintf("[long %d] remember FACT-%d and read big.txt", i, i)}
		if i > 1 {
			args = append(args, "--continue")
		}
		r := runCovey(t, h.ws, env, "", args...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "Noted." {
			t.Fatalf("turn %d: exit %d, stdout %q\nstderr:\n%s", i, r.code, r.stdout, r.stderr)
		}
		sawOverflow = sawOverflow || strings.Contains(r.stderr, "request over the model's window: compacted ")
	}
	r := runCovey(t, h.ws, env, "", "--api", "responses", "--model", "gpt-5-codex", "--continue", "-p", "[long question] which facts do you know?")
	facts := strings.Fields(r.stdout)
	for i := 1; i <= turns; i++ {
		if !slices.Contains(facts, fmt.Sprintf("FACT-%d", i)) {
			t.Errorf("the answer lacks FACT-%d: %s", i, r.stdout)
		}
	}
	over, summaries := 0, 0
	for _, e := range h.srv.Journal() {
		if e.Overflow {
			over++
		}
		if strings.HasSuffix(e.Conversation, "summary") {
			summaries++
			if b := decodeRespBody(t, e); b.Input == nil || !strings.HasSuffix(b.PromptCacheKey, "/summary") {
				t.Errorf("a summary request not on the Responses wire with its own key: %.300s", e.Body)
			}
		}
	}
	if over == 0 || summaries == 0 || !sawOverflow {
		t.Errorf("%d requests refused, %d summaries, a line said so: %v; want an overflow compacted", over, summaries, sawOverflow)
	}
}

// TestResponsesWireTUIMixedCrew: in the TUI, a main agent on Chat
// Completions sends two children whose model is served by Responses;
// their panes fill and finish, the final answer shows, and every request
// went out in its agent's wire.
func TestResponsesWireTUIMixedCrew(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ws, box := workspace(t, sampleFiles()), newSandbox(t)
	// The user's config (a project's would first ask for trust).
	writeUserConfig(t, box, "subagent_model: gpt-5-codex\nmodels:\n  gpt-5-codex: {api: responses}\n")
	north := child{marker: "[e2e:north]", description: "scan north", turns: []scripted.Turn{
		{Reasoning: "List first.", ToolCalls: []scripted.Call{call("list_dir", map[string]any{"path": "."}), call("glob", map[string]any{"pattern": "**/*.go"})}},
		{Text: "north report: two Go files."},
	}}
	south := child{marker: "[e2e:south]", description: "scan south", turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "greet.go"})}},
		{Text: "south report: greeting is in greet.go."},
	}}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt, Model: "e2e-model"}, Turns: []scripted.Turn{
		spawn("Sending two explorers on Responses.", north, south),
		{Text: "Mixed crew final answer."},
	}})
	for _, c := range []child{north, south} {
		conv := c.conversation()
		conv.Match.Model = "gpt-5-codex"
		srv.Add(conv)
	}
	tm := startTUI(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model", "--trust-project") // a model's wire needs trust
	tm.waitText(helpLine)
	tm.submit("explore with a mixed crew")
	tm.waitText("Mixed crew final answer.", "north report: two Go files.", "south report: greeting is in greet.go.")
	wires := map[string]string{}
	for _, e := range srv.Journal() {
		b := decodeRespBody(t, e)
		wire := "chat"
		if b.Input != nil {
			wire = "responses"
		}
		if prev, ok := wires[e.Conversation]; ok && prev != wire {
			t.Errorf("%s spoke two wires", e.Conversation)
		}
		wires[e.Conversation] = wire
	}
	want := map[string]string{"main": "chat", north.marker: "responses", south.marker: "responses"}
	if !maps.Equal(wires, want) {
		t.Errorf("wires = %v, want %v", wires, want)
	}
	tm.quitAndCheck(helpLine)
}
