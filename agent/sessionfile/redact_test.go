package sessionfile

import (
	"encoding/json"
	"strings"
	"testing"

	"covey/tools/toolname"

	"covey/agent"
	"covey/tools/tool"
)

func TestSecretsAreRedacted(t *testing.T) {
	// Arguments are a JSON document inside a JSON string: a secret with
	// quotes or backslashes is escaped twice on disk.
	argsWith := func(secret string) string {
		b, _ := json.Marshal(map[string]string{"token": secret})
		return string(b)
	}
	tests := map[string]struct {
		secret string
		record func(r *Recorder, secret string)
	}{
		"plain key in a user message": {
			secret: "sk-live-0123456789abcdef",
			record: func(r *Recorder, s string) {
				r.Message(agent.Message{Role: agent.RoleUser, Content: "my key is " + s + ", use it"})
			},
		},
		"quotes and backslashes in a message": {
			secret: `pa"ss\word`,
			record: func(r *Recorder, s string) {
				r.Message(agent.Message{Role: agent.RoleAssistant, Content: "found " + s})
			},
		},
		"HTML characters in an event": {
			secret: "a<b>&c-secret",
			record: func(r *Recorder, s string) {
				r.Event(agent.ErrorEvent{Source: mainSrc, Message: "401 for key " + s})
			},
		},
		"escaped twice in tool-call arguments": {
			secret: `q"u\o<te`,
			record: func(r *Recorder, s string) {
				r.Message(agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "1", Name: toolname.Bash, Arguments: argsWith(s)}}})
			},
		},
		"raw JSON arguments of ToolStarted": {
			secret: `tok"en\1`,
			record: func(r *Recorder, s string) {
				r.Event(agent.ToolStarted{Source: mainSrc, CallID: "1", Name: toolname.Bash, Args: json.RawMessage(argsWith(s))})
			},
		},
		"tool result and display": {
			secret: "ghp_abcdefghijklmnop",
			record: func(r *Recorder, s string) {
				r.Event(agent.ToolFinished{Source: childSrc, CallID: "1", Result: tool.Result{Content: "env: KEY=" + s,
					Display: &tool.FileChange{Path: ".env", Diff: "+KEY=" + s}}})
			},
		},
		"reasoning of a child": {
			secret: "sk-child-secret",
			record: func(r *Recorder, s string) {
				r.Event(agent.ReasoningDelta{Source: childSrc, Text: "the key " + s + " works"})
			},
		},
		"secret streamed in pieces across flushes": {
			secret: "sk-split-across-deltas",
			record: func(r *Recorder, s string) {
				var timer manualTimer
				timer.install(r)
				for _, piece := range []string{"use sk-", "split-acr", "oss-del", "tas now"} {
					r.Event(agent.TextDelta{Source: mainSrc, Text: piece})
					timer.fire()
				}
				r.Event(agent.TurnFinished{Source: mainSrc})
			},
		},
		"secret split while another agent finishes a tool": {
			secret: "sk-split-by-urgent",
			record: func(r *Recorder, s string) {
				r.Event(agent.TextDelta{Source: mainSrc, Text: "key sk-split"})
				r.Event(agent.ToolFinished{Source: childSrc, CallID: "x"})
				r.Event(agent.TextDelta{Source: mainSrc, Text: "-by-urgent end"})
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := testStore(t)
			s.Secrets = []string{"", tc.secret}
			r, err := s.Create("/ws", "m")
			if err != nil {
				t.Fatal(err)
			}
			tc.record(r, tc.secret)
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			raw := readFile(t, r.Path())
			for _, form := range newRedactor([]string{tc.secret}).forms {
				if strings.Contains(raw, string(form)) {
					t.Fatalf("file holds the secret as %q:\n%s", form, raw)
				}
			}
			if !strings.Contains(raw, redacted) {
				t.Fatalf("no %s in the file:\n%s", redacted, raw)
			}
			l, err := s.Load(r.ID())
			if err != nil {
				t.Fatalf("the redacted file does not load: %v", err)
			}
			// What was split across lines must not rejoin on replay.
			var text strings.Builder
			for _, it := range decodeReplay(t, l.Replay) {
				if d, ok := it.(agent.TextDelta); ok {
					text.WriteString(d.Text)
				}
			}
			if strings.Contains(text.String(), tc.secret) {
				t.Fatalf("streamed text rejoins to the secret: %q", text.String())
			}
			for _, w := range l.Warnings {
				if strings.Contains(w, "skipped") {
					t.Fatalf("redaction broke a line: %s", w)
				}
			}
		})
	}
}

func TestHoldback(t *testing.T) {
	red := newRedactor([]string{"sk-abc", "xyz"})
	tests := map[string]struct {
		text string
		want int
	}{
		"no prefix at the end":  {"hello", 0},
		"one byte":              {"this is", 1},
		"longer prefix":         {"key: sk-a", 4},
		"prefix of the other":   {"abcxy", 2},
		"whole secret not held": {"sk-abc", 0},
		"short text":            {"s", 1},
		"empty":                 {"", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := red.holdback(tc.text); got != tc.want {
				t.Fatalf("holdback(%q) = %d, want %d", tc.text, got, tc.want)
			}
		})
	}
}
