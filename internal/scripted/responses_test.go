package scripted

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// postResponses sends body to the server's Responses endpoint.
func postResponses(t testing.TB, s *Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/responses", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestResponsesRequestParsed: input items become the journal's messages,
// a run of assistant items one assistant message, so turns count as on
// Chat and conversations match the same way.
func TestResponsesRequestParsed(t *testing.T) {
	s := NewTest(t, WithIDs(SequentialIDs()))
	s.Add(Conversation{Match: Match{FirstUser: "list", SystemContains: "covey"}, Turns: []Turn{{}, {Text: "two files"}}})
	body := `{"model":"gpt-5-codex","instructions":"You are covey.","input":[` +
		`{"type":"message","role":"user","content":"list files"},` +
		`{"id":"rs_1","type":"reasoning","encrypted_content":"E","summary":[{"type":"summary_text","text":"think"}]},` +
		`{"type":"function_call","call_id":"c1","name":"ls","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"c1","output":"a b"}],` +
		`"tools":[{"type":"function","name":"ls"}],"stream":true,"store":false}`
	resp := postResponses(t, s, body)
	out := readAll(t, resp)
	j := s.Journal()
	if len(j) != 1 {
		t.Fatalf("%d entries", len(j))
	}
	e := j[0]
	want := []Message{
		{Role: "user", Content: "list files"},
		{Role: "assistant", Reasoning: "think", ToolCalls: []Call{{ID: "c1", Name: "ls", Args: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Content: "a b"},
	}
	if e.Turn != 1 || e.FirstUser != "list files" || e.System != "You are covey." || !reflect.DeepEqual(e.Messages, want) ||
		!reflect.DeepEqual(e.Tools, []string{"ls"}) || !e.Stream || e.Unmatched != "" {
		t.Fatalf("entry = %+v", e)
	}
	var types []string
	seq := 0
	for _, line := range strings.Split(string(out), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string `json:"type"`
			Seq  int    `json:"sequence_number"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		if ev.Seq != seq {
			t.Errorf("event %s has sequence_number %d, want %d", ev.Type, ev.Seq, seq)
		}
		seq++
		types = append(types, ev.Type)
	}
	wantTypes := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_text.done", "response.content_part.done",
		"response.output_item.done", "response.completed"}
	if !reflect.DeepEqual(types, wantTypes) {
		t.Errorf("events = %v\nwant %v", types, wantTypes)
	}
	if !bytes.Contains(out, []byte("event: response.completed\ndata: ")) || !bytes.Contains(out, []byte(`"input_tokens_details":{"cached_tokens":0}`)) {
		t.Errorf("stream:\n%s", out)
	}
}

// TestResponsesTurnKinds: reasoning, calls and an answer cut for length
// come out as their typed events; a status turn is an error body.
func TestResponsesTurnKinds(t *testing.T) {
	s := NewTest(t, WithIDs(SequentialIDs()))
	s.Add(Conversation{Match: Match{FirstUser: "think"}, Turns: []Turn{{
		Reasoning: "hmm", ToolCalls: []Call{{ID: "call_x", Name: "ls", Args: map[string]any{"d": "."}}}, FinishReason: "",
		Usage: &Usage{Prompt: 100, Completion: 20, Cached: 64, Reasoning: 8},
	}}})
	s.Add(Conversation{Match: Match{FirstUser: "cut"}, Turns: []Turn{{Text: "partial", FinishReason: "length"}}})
	s.Add(Conversation{Match: Match{FirstUser: "busy"}, Turns: []Turn{{Status: 429, Headers: map[string]string{"Retry-After": "2"}}}})
	out := string(readAll(t, postResponses(t, s, `{"model":"m","input":"think","stream":true}`)))
	for _, want := range []string{
		`"item":{"encrypted_content":"` + Encrypted("resp_1", "hmm") + `","id":"rs_1","summary":[{"text":"hmm","type":"summary_text"}],"type":"reasoning"}`,
		`event: response.reasoning_summary_text.delta`,
		`"item":{"arguments":"","call_id":"call_x","id":"fc_1_0","name":"ls","status":"in_progress","type":"function_call"}`,
		`"arguments":"{\"d\":\".\"}"`,
		`"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":64},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":8},"total_tokens":120}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stream lacks %s:\n%s", want, out)
		}
	}
	out = string(readAll(t, postResponses(t, s, `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"cut"}]}],"stream":true}`)))
	if !strings.Contains(out, `event: response.incomplete`) || !strings.Contains(out, `"incomplete_details":{"reason":"max_output_tokens"}`) {
		t.Errorf("a length turn:\n%s", out)
	}
	resp := postResponses(t, s, `{"model":"m","input":"busy"}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}
