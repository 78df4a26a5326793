package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools/tool"
)

func responsesAgent(srv *scripted.Server, rec *recorder, cacheKey string, ts ...tool.Tool) *agent.Agent {
	return agent.New(agent.Config{
		Provider: agent.NewResponses(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "gpt-5-codex",
		System:   "You are a test agent.",
		Tools:    tool.NewRegistry(ts...),
		Emit:     rec.emit,
		CacheKey: cacheKey,
	})
}

// respRequest is the part of a Responses request body the tests read.
type respRequest struct {
	Instructions   string            `json:"instructions"`
	Input          []json.RawMessage `json:"input"`
	PromptCacheKey string            `json:"prompt_cache_key"`
	Store          *bool             `json:"store"`
	Include        []string          `json:"include"`
}

func decodeResp(t *testing.T, body []byte) respRequest {
	t.Helper()
	var r respRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	return r
}

// TestResponsesLoopReasoningRoundTrip: a reasoning item (an encrypted
// content and an empty summary, as a raw stream sends it) goes back byte
// for byte before the parallel calls it preceded, each call is answered by
// a function_call_output with its call_id, and every request of the
// conversation carries the same prompt_cache_key, store false and the
// include of encrypted reasoning.
func TestResponsesLoopReasoningRoundTrip(t *testing.T) {
	item := `{"id":"rs_raw","type":"reasoning","encrypted_content":"gAAAAB+raw/=<&>","summary":[]}`
	raw := strings.Join([]string{
		`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_a","status":"in_progress"}}`,
		`event: response.output_item.added` + "\n" + `data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_raw","type":"reasoning","summary":[]}}`,
		`event: response.output_item.done` + "\n" + `data: {"type":"response.output_item.done","sequence_number":2,"output_index":0,"item":` + item + `}`,
		`event: response.output_item.added` + "\n" + `data: {"type":"response.output_item.added","sequence_number":3,"output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_one","name":"echo","arguments":""}}`,
		`event: response.function_call_arguments.done` + "\n" + `data: {"type":"response.function_call_arguments.done","sequence_number":4,"item_id":"fc_1","output_index":1,"arguments":"{\"n\":1}"}`,
		`event: response.output_item.added` + "\n" + `data: {"type":"response.output_item.added","sequence_number":5,"output_index":2,"item":{"id":"fc_2","type":"function_call","call_id":"call_two","name":"echo","arguments":""}}`,
		`event: response.function_call_arguments.delta` + "\n" + `data: {"type":"response.function_call_arguments.delta","sequence_number":6,"item_id":"fc_2","output_index":2,"delta":"{\"n\":2}"}`,
		`event: response.completed` + "\n" + `data: {"type":"response.completed","sequence_number":7,"response":{"id":"resp_a","status":"completed","usage":{"input_tokens":10,"output_tokens":5}}}`,
	}, "\n\n") + "\n\n"
	srv := scriptedtest.New(t, scripted.WithIDs(scripted.SequentialIDs()))
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "reason"}, Turns: []scripted.Turn{
		{Raw: raw},
		{Reasoning: "Both echoed; now answer.", Text: "Both done."},
		{Text: "Again."},
	}})
	rec := &recorder{}
	a := responsesAgent(srv, rec, "session-42", echoTool("echo", true))
	res, err := a.Run(context.Background(), "reason about it")
	if err != nil || res.Answer != "Both done." {
		t.Fatalf("answer %q, err %v", res.Answer, err)
	}
	if _, err := a.Run(context.Background(), "once more"); err != nil {
		t.Fatal(err)
	}
	j := srv.Journal()
	if len(j) != 3 {
		t.Fatalf("%d requests, want 3", len(j))
	}
	second := decodeResp(t, j[1].Body)
	want := []string{
		`{"type":"message","role":"user","content":"reason about it"}`,
		item,
		`{"type":"function_call","call_id":"call_one","name":"echo","arguments":"{\"n\":1}"}`,
		`{"type":"function_call","call_id":"call_two","name":"echo","arguments":"{\"n\":2}"}`,
		`{"type":"function_call_output","call_id":"call_one","output":"echo got {\"n\":1}"}`,
		`{"type":"function_call_output","call_id":"call_two","output":"echo got {\"n\":2}"}`,
	}
	if len(second.Input) != len(want) {
		t.Fatalf("second request input:\n%s", j[1].Body)
	}
	for i, w := range want {
		if string(second.Input[i]) != w {
			t.Errorf("input %d:\n got %s\nwant %s", i, second.Input[i], w)
		}
	}
	if !bytes.Contains(j[1].Body, []byte(item)) {
		t.Errorf("the reasoning item is not in the body byte for byte:\n%s", j[1].Body)
	}
	// The generated turn's reasoning (its summary shown) goes back too.
	third := decodeResp(t, j[2].Body)
	generated := `{"encrypted_content":"` + scripted.Encrypted("resp_1", "Both echoed; now answer.") +
		`","id":"rs_1","summary":[{"text":"Both echoed; now answer.","type":"summary_text"}],"type":"reasoning"}`
	if !bytes.Contains(j[2].Body, []byte(generated)) {
		t.Errorf("third request lacks the second answer's reasoning item:\n%s", j[2].Body)
	}
	for i, e := range j {
		r := decodeResp(t, e.Body)
		if r.PromptCacheKey != "session-42" || r.Store == nil || *r.Store || len(r.Include) != 1 || r.Include[0] != "reasoning.encrypted_content" || r.Instructions != "You are a test agent." {
			t.Errorf("request %d: key %q store %v include %v instructions %q", i, r.PromptCacheKey, r.Store, r.Include, r.Instructions)
		}
	}
	// Each request extends the one before: the cached prefix holds.
	for i := 1; i < len(j); i++ {
		prev := string(j[i-1].Body)
		prev = prev[:strings.Index(prev, `],"tools"`)]
		if !strings.HasPrefix(string(j[i].Body), prev) {
			t.Errorf("request %d does not begin with request %d's input", i, i-1)
		}
	}
	if len(third.Input) != len(want)+3 {
		t.Errorf("third input has %d items, want %d", len(third.Input), len(want)+3)
	}
	var reasoning strings.Builder
	for _, e := range rec.events {
		if r, ok := e.(agent.ReasoningDelta); ok {
			reasoning.WriteString(r.Text)
		}
	}
	if reasoning.String() != "Both echoed; now answer." {
		t.Errorf("reasoning shown = %q", reasoning.String())
	}
}

// TestResponsesLongSessionCompacts: on the Responses wire too, a request
// refused as too long is compacted (by a summary request on the same
// wire) and retried, turn after turn.
func TestResponsesLongSessionCompacts(t *testing.T) {
	const window, turns = 4000, 12
	srv := scriptedtest.New(t)
	ls := &scriptedtest.LongSession{Window: window, NameWindow: true, Tool: "big", SummaryMarker: "conversation summariser"}
	for _, c := range ls.Conversations(scripted.Match{SystemContains: testSystem}, 2000) {
		srv.Add(c)
	}
	rec := &recorder{}
	a := agent.New(agent.Config{
		Provider:    agent.NewResponses(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:       "gpt-5-codex",
		System:      testSystem,
		Tools:       tool.NewRegistry(bigTool(6000)),
		Emit:        rec.emit,
		AutoCompact: agent.DefaultAutoCompact,
		CacheKey:    "s",
	})
	for i := 1; i <= turns; i++ {
		res, err := a.Run(context.Background(), fmt.Sprintf("[long %d] remember FACT-%d and read the big file", i, i))
		if err != nil || res.Answer != "Noted." {
			t.Fatalf("turn %d: answer %q, err %v", i, res.Answer, err)
		}
	}
	_, refused, summaries, _ := ls.Stats()
	if refused == 0 || summaries == 0 || len(compactions(rec)) == 0 {
		t.Fatalf("refused %d, summaries %d, compactions %d: want an overflow compacted", refused, summaries, len(compactions(rec)))
	}
	if a.ContextWindow() != window {
		t.Errorf("window learned = %d, want %d", a.ContextWindow(), window)
	}
	for _, e := range srv.Journal() {
		if !strings.HasSuffix(e.Conversation, "summary") {
			continue
		}
		if r := decodeResp(t, e.Body); r.PromptCacheKey != "s/summary" {
			t.Errorf("summary request key %q, want s/summary", r.PromptCacheKey)
		}
	}
}

// TestResponsesCancelLeavesValidHistory: a turn cancelled mid-answer on
// the Responses wire keeps the text that streamed, without the reasoning
// item (the API refuses one without its following item), and the next
// request is well formed.
func TestResponsesCancelLeavesValidHistory(t *testing.T) {
	item := `{"id":"rs_c","type":"reasoning","encrypted_content":"E","summary":[]}`
	raw := "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":" + item + "}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"output_index\":1,\"delta\":\"partial\"}\n\n"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "cancel me"}, Turns: []scripted.Turn{
		{Raw: raw, Stall: true},
		{Text: "fresh"},
	}})
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{}
	a := agent.New(agent.Config{
		Provider: agent.NewResponses(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "gpt-5-codex", System: testSystem,
		Emit: func(e agent.Event) {
			rec.emit(e)
			if _, ok := e.(agent.TextDelta); ok {
				cancel()
			}
		},
	})
	if _, err := a.Run(ctx, "cancel me"); err == nil {
		t.Fatal("the cancelled run reported no error")
	}
	res, err := a.Run(context.Background(), "next")
	if err != nil || res.Answer != "fresh" {
		t.Fatalf("next run: %q, %v", res.Answer, err)
	}
	j := srv.Journal()
	b := decodeResp(t, j[len(j)-1].Body)
	var got []string
	for _, it := range b.Input {
		got = append(got, string(it))
	}
	want := []string{
		`{"type":"message","role":"user","content":"cancel me"}`,
		// The cut answer is carried, marked interrupted (agent.InterruptedNote).
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"partial\n\n[covey: the user interrupted this answer here]"}]}`,
		`{"type":"message","role":"user","content":"next"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("input after a cancel:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
