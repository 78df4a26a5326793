package scripted

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/<test name>.golden, rewriting it with
// -update.
func golden(t *testing.T, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("stream differs from %s\n--- got\n%s\n--- want\n%s", path, got, want)
	}
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
