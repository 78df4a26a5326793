package scripted

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// messages builds a request body from explicit wire messages.
func messagesBody(t testing.TB, model string, msgs ...map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"model": model, "stream": true, "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTurnSelectionByAssistantCount(t *testing.T) {
	s := NewTest(t)
	s.Add(Conversation{Name: "three", Turns: []Turn{{Text: "zero"}, {Text: "one"}, {Text: "two"}}})
	tests := []struct {
		name string
		msgs []string
		want string
	}{
		{"first", []string{"system", "sys", "user", "go"}, "zero"},
		{"after one answer", []string{"user", "go", "assistant", "a", "user", "more"}, "one"},
		{"after two answers", []string{"user", "go", "assistant", "a", "user", "more", "assistant", "b", "user", "again"}, "two"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, s, chatBody(t, "m", true, false, tc.msgs...))
			got := assemble(t, readAll(t, resp))
			if got.text != tc.want || got.finish != "stop" || !got.done {
				t.Errorf("got text %q finish %q done %v, want %q stop true", got.text, got.finish, got.done, tc.want)
			}
			if e := s.Journal()[i]; e.Turn != i || e.Conversation != "three" {
				t.Errorf("journal turn %d conversation %q, want %d three", e.Turn, e.Conversation, i)
			}
		})
	}
}

func TestMatchSpecificity(t *testing.T) {
	s := NewTest(t)
	for _, c := range []Conversation{
		{Name: "any", Turns: []Turn{{Text: "any"}}},
		{Name: "fix", Match: Match{FirstUser: "fix"}, Turns: []Turn{{Text: "fix"}}},
		{Name: "fix-again", Match: Match{FirstUser: "fix the"}, Turns: []Turn{{Text: "fix-again"}}},
		{Name: "fix-big", Match: Match{FirstUser: "fix", Model: "big"}, Turns: []Turn{{Text: "fix-big"}}},
		{Name: "reviewer", Match: Match{SystemContains: "reviewer"}, Turns: []Turn{{Text: "reviewer"}}},
		{Name: "all", Match: Match{FirstUser: "fix", SystemContains: "reviewer", Model: "big"}, Turns: []Turn{{Text: "all"}}},
	} {
		s.Add(c)
	}
	tests := map[string]struct {
		model, system, user string
		want                string
	}{
		"nothing specific":           {"small", "helper", "hello", "any"},
		"first user":                 {"small", "helper", "please fix the bug", "fix"},
		"tie goes to first added":    {"small", "", "fix the bug", "fix"},
		"first user and model":       {"big", "helper", "fix it", "fix-big"},
		"model alone is not a match": {"big", "helper", "hello", "any"},
		"system prompt":              {"small", "you are a reviewer", "hello", "reviewer"},
		"three fields beat two":      {"big", "you are a reviewer", "fix it", "all"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp := post(t, s, chatBody(t, tc.model, true, false, "system", tc.system, "user", tc.user))
			if got := assemble(t, readAll(t, resp)).text; got != tc.want {
				t.Errorf("answered by %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIncludeUsage(t *testing.T) {
	tests := map[string]struct {
		ask       bool
		usage     *Usage
		wantUsage *Usage
	}{
		"off":               {ask: false},
		"on, estimated":     {ask: true, wantUsage: &Usage{Prompt: -1, Completion: 3}},
		"on, scripted":      {ask: true, usage: &Usage{Prompt: 7, Completion: 5}, wantUsage: &Usage{Prompt: 7, Completion: 5}},
		"off with scripted": {ask: false, usage: &Usage{Prompt: 7, Completion: 5}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t)
			s.Add(Conversation{Turns: []Turn{{Text: "twelve chars", Usage: tc.usage}}})
			body := chatBody(t, "m", true, tc.ask, "user", "hi")
			raw := readAll(t, post(t, s, body))
			got := assemble(t, raw)
			if tc.wantUsage == nil {
				if got.usage != nil || bytes.Contains(raw, []byte(`"usage"`)) {
					t.Fatalf("usage sent without include_usage:\n%s", raw)
				}
				return
			}
			if got.usage == nil {
				t.Fatalf("no usage chunk:\n%s", raw)
			}
			wantPrompt := tc.wantUsage.Prompt
			if wantPrompt < 0 {
				wantPrompt = (len(body) + 3) / 4
			}
			if got.usage.PromptTokens != wantPrompt || got.usage.CompletionTokens != tc.wantUsage.Completion ||
				got.usage.TotalTokens != wantPrompt+tc.wantUsage.Completion {
				t.Errorf("usage %+v, want prompt %d completion %d", *got.usage, wantPrompt, tc.wantUsage.Completion)
			}
			if n := bytes.Count(raw, []byte(`"usage":null`)); n != bytes.Count(raw, []byte("data: {"))-1 {
				t.Errorf("usage:null on %d chunks, want every chunk but the last", n)
			}
		})
	}
}

func TestAttemptsThenSuccess(t *testing.T) {
	s := NewTest(t)
	s.Add(Conversation{Name: "flaky", Turns: []Turn{{
		Text: "finally",
		Attempts: []Turn{
			{Status: http.StatusTooManyRequests, Headers: map[string]string{"Retry-After": "2"}},
			{Status: http.StatusServiceUnavailable, Body: "<html>busy</html>", Headers: map[string]string{"Content-Type": "text/html"}},
		},
	}}})
	steps := []struct {
		user       string
		status     int
		retryAfter string
		bodyHas    string
		attempt    int
	}{
		{"a", 429, "2", `"code":"rate_limit_exceeded"`, 0},
		{"a", 503, "", "<html>busy</html>", 1},
		{"a", 200, "", `"content":"finally"`, 2},
		{"a", 200, "", `"content":"finally"`, 3},
		// Another first user message is another conversation instance and
		// starts its attempts afresh.
		{"b", 429, "2", `"type":"requests"`, 0},
	}
	for i, st := range steps {
		resp := post(t, s, chatBody(t, "m", true, false, "user", st.user))
		body := readAll(t, resp)
		if resp.StatusCode != st.status || resp.Header.Get("Retry-After") != st.retryAfter || !bytes.Contains(body, []byte(st.bodyHas)) {
			t.Errorf("request %d: status %d Retry-After %q body %s; want %d %q containing %s",
				i, resp.StatusCode, resp.Header.Get("Retry-After"), body, st.status, st.retryAfter, st.bodyHas)
		}
		if e := s.Journal()[i]; e.Attempt != st.attempt || e.Status != st.status {
			t.Errorf("request %d: journal attempt %d status %d, want %d %d", i, e.Attempt, e.Status, st.attempt, st.status)
		}
	}
}

func TestStatusErrors(t *testing.T) {
	tests := map[string]struct {
		turn        Turn
		wantType    string
		wantBodyHas string
		wantHeader  [2]string
	}{
		"400 default body": {
			turn:        Turn{Status: 400},
			wantType:    "application/json",
			wantBodyHas: `"type":"invalid_request_error"`,
		},
		"401 default body": {
			turn:        Turn{Status: 401},
			wantType:    "application/json",
			wantBodyHas: `"code":"invalid_api_key"`,
		},
		"500 null code": {
			turn:        Turn{Status: 500},
			wantType:    "application/json",
			wantBodyHas: `"param":null,"code":null`,
		},
		"context overflow body": {
			turn:        Turn{Status: 400, Body: `{"error":{"message":"maximum context length","code":"context_length_exceeded"}}`},
			wantType:    "application/json",
			wantBodyHas: `context_length_exceeded`,
		},
		"azure retry headers": {
			turn:        Turn{Status: 429, Headers: map[string]string{"retry-after-ms": "1500"}},
			wantType:    "application/json",
			wantBodyHas: `rate_limit_exceeded`,
			wantHeader:  [2]string{"Retry-After-Ms", "1500"},
		},
		"html gateway": {
			turn:        Turn{Status: 502, Body: "<html>Bad Gateway</html>", Headers: map[string]string{"Content-Type": "text/html"}},
			wantType:    "text/html",
			wantBodyHas: "Bad Gateway",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t)
			s.Add(Conversation{Turns: []Turn{tc.turn}})
			resp := post(t, s, chatBody(t, "m", true, false, "user", "hi"))
			body := readAll(t, resp)
			if resp.StatusCode != tc.turn.Status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.turn.Status)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.wantType {
				t.Errorf("Content-Type %q, want %q", ct, tc.wantType)
			}
			if !strings.Contains(string(body), tc.wantBodyHas) {
				t.Errorf("body %s lacks %s", body, tc.wantBodyHas)
			}
			if k := tc.wantHeader[0]; k != "" && resp.Header.Get(k) != tc.wantHeader[1] {
				t.Errorf("header %s = %q, want %q", k, resp.Header.Get(k), tc.wantHeader[1])
			}
		})
	}
}

func TestRawVerbatim(t *testing.T) {
	tests := map[string]string{
		"keep-alive comments and no index": ": OPENROUTER PROCESSING\n\n" +
			`data: {"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{}"}}]}}]}` + "\n\n",
		"llama.cpp error line then done": "error: {\"code\":500,\"message\":\"boom\"}\n\ndata: [DONE]\n\n",
		"last line without newline":      "data: {\"choices\":[]}\n\ndata: {\"choices\":[",
		"crlf and event lines":           "event: error\r\ndata: {\"error\":{\"message\":\"x\"}}\r\n\r\n",
	}
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t)
			s.Add(Conversation{Turns: []Turn{{Raw: raw}}})
			resp := post(t, s, chatBody(t, "m", true, false, "user", "hi"))
			got := readAll(t, resp)
			if string(got) != raw {
				t.Errorf("got %q, want %q", got, raw)
			}
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Errorf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		})
	}
}

func TestAuthorizationNeverRecorded(t *testing.T) {
	s := NewTest(t)
	s.Add(Conversation{Turns: []Turn{{Text: "ok"}}})
	readAll(t, post(t, s, chatBody(t, "m", true, false, "user", "hi")))
	e := s.Journal()[0]
	if !e.HasAuth {
		t.Error("HasAuth false, the request sent a key")
	}
	line, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(line, []byte("sk-secret")) || bytes.Contains(e.Body, []byte("sk-secret")) {
		t.Errorf("the key leaked into the journal: %s", line)
	}
}

func TestParsedMessages(t *testing.T) {
	s := NewTest(t)
	var seen []Request
	s.Add(Conversation{Turns: []Turn{{}, {Func: func(r Request) Turn {
		seen = append(seen, r)
		return Turn{Text: "saw " + r.LastMessage().Content}
	}}}})
	body := messagesBody(t, "m",
		map[string]any{"role": "system", "content": "be brief"},
		map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": "part one"}, {"type": "image_url", "image_url": map[string]any{"url": "x"}}, {"type": "text", "text": "part two"}}},
		map[string]any{"role": "assistant", "content": nil, "reasoning_content": "hmm", "tool_calls": []map[string]any{
			{"id": "call_1", "type": "function", "function": map[string]any{"name": "glob", "arguments": `{"pattern":"*"}`}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "a.go\nb.go"},
	)
	got := assemble(t, readAll(t, post(t, s, body)))
	if got.text != "saw a.go\nb.go" {
		t.Errorf("Func answered %q", got.text)
	}
	if len(seen) != 1 {
		t.Fatalf("Func called %d times", len(seen))
	}
	r := seen[0]
	want := []Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "part one\npart two"},
		{Role: "assistant", Reasoning: "hmm", ToolCalls: []Call{{ID: "call_1", Name: "glob", Args: `{"pattern":"*"}`}}},
		{Role: "tool", ToolCallID: "call_1", Content: "a.go\nb.go"},
	}
	gotJSON, _ := json.Marshal(r.Messages)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("messages\n got %s\nwant %s", gotJSON, wantJSON)
	}
	if r.System != "be brief" || r.FirstUser != "part one\npart two" || r.Turn != 1 || !r.Stream {
		t.Errorf("request %+v", r.Entry)
	}
}

func TestMalformedRequests(t *testing.T) {
	tests := map[string]struct {
		method, path, body string
		status             int
	}{
		"not json":        {http.MethodPost, "/chat/completions", "{", 400},
		"bad content":     {http.MethodPost, "/chat/completions", `{"messages":[{"role":"user","content":5}]}`, 400},
		"get":             {http.MethodGet, "/chat/completions", "", 405},
		"wrong path":      {http.MethodPost, "/completions", "{}", 404},
		"no conversation": {http.MethodPost, "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 500},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t)
			s.AllowUnmatched()
			req, err := http.NewRequestWithContext(t.Context(), tc.method, s.URL()+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body := readAll(t, resp)
			var doc wireError
			if resp.StatusCode != tc.status || json.Unmarshal(body, &doc) != nil || doc.Error.Message == "" {
				t.Errorf("status %d body %s, want %d with an error document", resp.StatusCode, body, tc.status)
			}
			if u := s.Unmatched(); len(u) != 1 {
				t.Errorf("%d unmatched entries, want 1", len(u))
			}
		})
	}
}
