package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestHeadlessCutOffAnswer: an answer the provider cut off (finish_reason
// "length" or "content_filter") is printed, but the run exits 1 saying why,
// with the reason in json and stream-json.
func TestHeadlessCutOffAnswer(t *testing.T) {
	tests := map[string]struct{ finish, words string }{
		"length":         {"length", "cut off: the model hit its output limit"},
		"content filter": {"content_filter", "stopped by the provider's content filter"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, format := range []string{"text", "json", "stream-json"} {
				h := newHeadlessRun(t)
				h.srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "write an essay"}, Turns: []scripted.Turn{
					{Text: "The essay begins", FinishReason: tc.finish},
				}})
				r := h.run(t, "", "-p", "write an essay", "--output-format", format)
				if r.code != 1 {
					t.Fatalf("%s: exit %d, want 1; stderr %s", format, r.code, r.stderr)
				}
				if !strings.Contains(r.stderr, "covey: "+tc.words) {
					t.Fatalf("%s: stderr %q lacks %q", format, r.stderr, tc.words)
				}
				switch format {
				case "text":
					if strings.TrimSpace(r.stdout) != "The essay begins" {
						t.Fatalf("text: stdout %q, want the answer kept", r.stdout)
					}
				case "json":
					var out struct{ Answer, Reason, Error string }
					if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
						t.Fatalf("json: %v: %s", err, r.stdout)
					}
					if out.Answer != "The essay begins" || out.Reason != tc.finish || out.Error != tc.words {
						t.Fatalf("json: %+v", out)
					}
				case "stream-json":
					lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
					var last struct{ Type, Reason, Message string }
					if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
						t.Fatal(err)
					}
					if last.Type != "error" || last.Reason != tc.finish || last.Message != tc.words {
						t.Fatalf("stream-json last line %+v", last)
					}
					if !strings.Contains(r.stdout, `"reason":"`+tc.finish+`"`) {
						t.Fatalf("stream-json lacks the done event's reason: %s", r.stdout)
					}
				}
			}
		})
	}
}

// TestHeadlessTextHidesReasoning: thinking, inline (<think>…</think>) or as
// reasoning_content, never reaches stdout in text mode.
func TestHeadlessTextHidesReasoning(t *testing.T) {
	tests := map[string]scripted.Turn{
		"inline think tags": {Text: "<think>The user wants a greeting. Keep it short.</think>\n\nHello there."},
		"reasoning_content": {Reasoning: "The user wants a greeting. Keep it short.", Text: "Hello there."},
	}
	for name, turn := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHeadlessRun(t)
			h.srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "greet me"}, Turns: []scripted.Turn{turn}})
			r := h.run(t, "", "-p", "greet me")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := strings.TrimSpace(r.stdout); got != "Hello there." {
				t.Fatalf("stdout %q, want only the answer", got)
			}
		})
	}
}

// TestTUICutOffAndDroppedConnection: in the TUI an answer cut off by the
// provider stays on screen with a notice, and a stream cut mid-answer keeps
// its text and says so in plain words with the host and the retry key.
func TestTUICutOffAndDroppedConnection(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "write an essay"}, Turns: []scripted.Turn{
		{Text: "The essay begins here", FinishReason: "length"},
		{Text: strings.Repeat("word ", 100), DisconnectAfter: 700},
	}})
	tm := startTUI(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.submit("write an essay")
	tm.waitText("The essay begins here", "cut off: the model hit its output limit")
	tm.submit("go on")
	host := strings.TrimSuffix(strings.TrimPrefix(h.srv.URL(), "http://"), "/v1")
	s := tm.waitText("the connection to "+host+" closed mid-answer", "tokens kept; ctrl+r")
	if !strings.Contains(s, "word wor") {
		t.Errorf("the partial answer is gone:\n%s", frame(s))
	}
	if strings.Contains(s, "unexpected EOF") {
		t.Errorf("Go's raw error text on screen:\n%s", frame(s))
	}
	tm.quitAndCheck(helpLine)
}
