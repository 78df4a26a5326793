package scripted

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestEndless reads the first events of each endless stream: they keep
// coming, each is the kind asked for, and an unknown kind is a scripted
// error, not a stream.
func TestEndless(t *testing.T) {
	tests := map[string]func(t *testing.T, ev string){
		"text":      wantDelta(`"content":"and on "`),
		"reasoning": wantDelta(`"reasoning_content":"and on "`),
		"arguments": wantDelta(`"tool_calls":[{"index":0`),
		"calls":     wantDelta(`"type":"function","function":{"name":"read_file"`),
		"empty":     wantDelta(`"delta":{}`),
		"keepalive": func(t *testing.T, ev string) {
			if ev != ": keep-alive" {
				t.Fatalf("event %q, want a comment", ev)
			}
		},
	}
	for kind, check := range tests {
		t.Run(kind, func(t *testing.T) {
			s := NewTest(t)
			s.Add(Conversation{Turns: []Turn{{Endless: kind}}})
			resp := post(t, s, chatBody(t, "m", true, false, "user", "go"))
			sc := bufio.NewScanner(resp.Body)
			n := 0
			for n < 50 && sc.Scan() {
				if line := sc.Text(); line != "" {
					check(t, line)
					n++
				}
			}
			if n < 50 {
				t.Fatalf("the stream ended after %d events: %v", n, sc.Err())
			}
		})
	}
	t.Run("unknown kind", func(t *testing.T) {
		s := New()
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.Add(Conversation{Turns: []Turn{{Endless: "forever"}}})
		if resp := post(t, s, chatBody(t, "m", true, false, "user", "go")); resp.StatusCode != http.StatusInternalServerError {
			t.Fatalf("status %d, want 500", resp.StatusCode)
		}
		if p := s.Problems(); len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), `endless "forever"`) {
			t.Fatalf("problems %v", p)
		}
	})
}

// wantDelta checks that an event is a JSON chunk holding want.
func wantDelta(want string) func(t *testing.T, ev string) {
	return func(t *testing.T, ev string) {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || !json.Valid([]byte(data)) || !strings.Contains(data, want) {
			t.Fatalf("event %q, want a JSON chunk holding %s", ev, want)
		}
	}
}
