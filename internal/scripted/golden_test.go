package scripted

import (
	"testing"

	xgolden "github.com/charmbracelet/x/exp/golden"
)

// golden compares got with testdata/<test name>.golden (x/exp/golden;
// -update rewrites it).
func golden(t *testing.T, got []byte) {
	t.Helper()
	xgolden.RequireEqual(t, got)
}

func TestGoldenStreams(t *testing.T) {
	tests := map[string]struct {
		turn   Turn
		usage  bool
		stream bool
	}{
		"text": {
			turn:   Turn{Text: "Hello <world> & \"friends\", naïve café."},
			stream: true,
		},
		"text_usage": {
			turn:   Turn{Text: "Hello <world> & \"friends\", naïve café."},
			usage:  true,
			stream: true,
		},
		"reasoning_text": {
			turn:   Turn{Reasoning: "Think first.", Text: "Then answer.", ChunkSize: 6},
			stream: true,
		},
		"two_calls": {
			turn: Turn{ToolCalls: []Call{
				{ID: "call_read", Name: "read_file", Args: map[string]any{"path": "main.go"}},
				{Name: "glob", Args: `{"pattern":"**/*.go"}`},
			}},
			stream: true,
		},
		"two_calls_usage": {
			turn: Turn{ToolCalls: []Call{
				{ID: "call_read", Name: "read_file", Args: map[string]any{"path": "main.go"}},
				{Name: "glob", Args: `{"pattern":"**/*.go"}`},
			}, Usage: &Usage{Prompt: 100, Completion: 20, Cached: 64, Reasoning: 5}},
			usage:  true,
			stream: true,
		},
		"text_then_call": {
			turn:   Turn{Text: "Let me look.", ToolCalls: []Call{{Name: "ls"}}},
			stream: true,
		},
		"non_stream_text": {
			turn: Turn{Text: "Hello."},
		},
		"non_stream_calls": {
			turn: Turn{Reasoning: "hm", ToolCalls: []Call{{ID: "call_1", Name: "glob", Args: map[string]any{"pattern": "*"}}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t, WithClock(fixedClock), WithIDs(SequentialIDs()))
			s.Add(Conversation{Name: name, Turns: []Turn{tc.turn}})
			resp := post(t, s, chatBody(t, "gpt-test", tc.stream, tc.usage, "user", "hi"))
			body := readAll(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			wantType := "text/event-stream"
			if !tc.stream {
				wantType = "application/json"
			}
			if got := resp.Header.Get("Content-Type"); got != wantType {
				t.Errorf("Content-Type = %q, want %q", got, wantType)
			}
			golden(t, body)
		})
	}
}
