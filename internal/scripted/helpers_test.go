package scripted

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fixedClock is the clock of golden tests.
func fixedClock() time.Time { return time.Unix(1750000000, 0) }

// chatBody builds a request body with the given model, system prompt and
// alternating messages (role, content pairs).
func chatBody(t testing.TB, model string, stream, usage bool, msgs ...string) []byte {
	t.Helper()
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	req := map[string]any{"model": model, "stream": stream}
	var ms []msg
	for i := 0; i+1 < len(msgs); i += 2 {
		ms = append(ms, msg{Role: msgs[i], Content: msgs[i+1]})
	}
	req["messages"] = ms
	if usage {
		req["stream_options"] = map[string]any{"include_usage": true}
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends body to the server's chat endpoint.
func post(t testing.TB, s *Server, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readAll reads the whole response body, failing the test on error.
func readAll(t testing.TB, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return b
}

// assembled is what a client makes of a stream.
type assembled struct {
	text, reasoning string
	calls           []Call // Args holds the argument string
	finish          string
	usage           *wireUsage
	done            bool
	ids             map[string]bool
}

// assemble parses an SSE body the way a strict client would.
func assemble(t testing.TB, body []byte) assembled {
	t.Helper()
	a := assembled{ids: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected line %q", line)
		}
		if data == "[DONE]" {
			a.done = true
			continue
		}
		var c struct {
			ID      string `json:"id"`
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					Reasoning string  `json:"reasoning_content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *wireUsage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		a.ids[c.ID] = true
		if c.Usage != nil {
			a.usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				a.text += *ch.Delta.Content
			}
			a.reasoning += ch.Delta.Reasoning
			for _, tc := range ch.Delta.ToolCalls {
				for len(a.calls) <= tc.Index {
					a.calls = append(a.calls, Call{Args: ""})
				}
				cl := &a.calls[tc.Index]
				if tc.ID != "" {
					cl.ID = tc.ID
				}
				cl.Name += tc.Function.Name
				cl.Args = cl.Args.(string) + tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				a.finish = *ch.FinishReason
			}
		}
	}
	return a
}

// NewTest is scriptedtest.New for this package's own tests (which cannot
// import scriptedtest without a cycle).
func NewTest(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := New(opts...)
	if err := s.Start(); err != nil {
		t.Fatalf("scripted server: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		for _, p := range s.Problems() {
			t.Errorf("%s", p)
		}
	})
	return s
}
