package agent

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestRetryLoopEveryWire: the three wires share one retry loop: a 429's
// Retry-After is waited for, a 503 backs off, a stream cut before any
// answer is retried and one cut mid-answer is not, and the words of each
// failure name the wire's own request and stream end.
func TestRetryLoopEveryWire(t *testing.T) {
	type wire struct {
		api       string
		ok        []string // a whole short answer
		startOnly []string // the stream opened, no part of the answer
		partial   []string // part of the answer, then the end of the stream
		request   string   // the request's name in a cancellation
		end       string   // what a whole stream ends with
	}
	wires := []wire{
		{
			api:       APIChat,
			ok:        sse(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]"),
			startOnly: sse(`{"choices":[{"index":0,"delta":{"role":"assistant"}}]}`),
			partial:   sse(`{"choices":[{"index":0,"delta":{"content":"half an"}}]}`),
			request:   "chat completion", end: "[DONE] or a finish reason",
		},
		{
			api:       APIAnthropic,
			ok:        ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, antDeltaText(0, "ok"), antBlockStop(0), antEnd("end_turn", 1), antStop),
			startOnly: ant(antStart),
			partial:   ant(antStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, antDeltaText(0, "half an")),
			request:   "anthropic request", end: "message_stop or a stop reason",
		},
		{
			api: APIResponses,
			ok: []string{
				respEvent("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"ok"}`),
				respEvent("response.completed", `{"type":"response.completed","response":{"status":"completed"}}`),
			},
			startOnly: []string{respEvent("response.created", `{"type":"response.created","response":{"status":"in_progress"}}`)},
			partial:   []string{respEvent("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"half an"}`)},
			request:   "responses request", end: "response.completed",
		},
	}
	jsonCT := map[string]string{"Content-Type": "application/json"}
	for _, w := range wires {
		t.Run(w.api, func(t *testing.T) {
			t.Run("retried", func(t *testing.T) {
				srv := newScriptServer(t,
					rawResponse{status: 429, header: map[string]string{"Content-Type": "application/json", "Retry-After": "7"}, pieces: []string{`{"error":{"type":"rate_limit_error","message":"slow down"}}`}},
					rawResponse{status: 503, header: jsonCT, pieces: []string{`{"error":{"message":"down"}}`}},
					rawResponse{pieces: w.startOnly},
					rawResponse{pieces: w.ok})
				var waits []time.Duration
				p, err := NewProvider(w.api, testConfig(srv.URL, &waits))
				if err != nil {
					t.Fatal(err)
				}
				rec := &recorder{}
				comp, err := p.Stream(context.Background(), Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "hi"}}}, rec.handler())
				if err != nil || comp.Message.Content != "ok" {
					t.Fatalf("got %q, %v", comp.Message.Content, err)
				}
				wantWaits := []time.Duration{7 * time.Second, backoff(2, 0), backoff(3, 0)}
				if !reflect.DeepEqual(waits, wantWaits) {
					t.Errorf("waits %v, want %v", waits, wantWaits)
				}
				var reasons []string
				for _, r := range rec.retries {
					reasons = append(reasons, r.reason)
				}
				if want := []string{"rate limited", "server error 503", "the stream ended early"}; len(reasons) != 3 || reasons[0] != want[0] || reasons[1] != want[1] || !strings.HasPrefix(reasons[2], want[2]) {
					t.Errorf("retry reasons %q, want %q", reasons, want)
				}
			})
			t.Run("mid-answer", func(t *testing.T) {
				srv := newScriptServer(t, rawResponse{pieces: w.partial})
				p, _ := NewProvider(w.api, testConfig(srv.URL, nil))
				comp, err := p.Stream(context.Background(), Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "hi"}}}, StreamHandler{})
				want := "closed mid-answer (the stream ended early, without " + w.end + ")"
				if err == nil || !strings.Contains(err.Error(), want) || comp.Message.Content != "half an" {
					t.Errorf("got %q, %v; want the partial answer and %q", comp.Message.Content, err, want)
				}
				if strings.Contains(err.Error(), "attempts") {
					t.Errorf("a stream cut mid-answer was retried: %v", err)
				}
			})
			t.Run("unreached", func(t *testing.T) {
				script := make([]rawResponse, DefaultMaxAttempts)
				for i := range script {
					script[i] = rawResponse{pieces: w.startOnly}
				}
				srv := newScriptServer(t, script...)
				p, _ := NewProvider(w.api, testConfig(srv.URL, nil))
				_, err := p.Stream(context.Background(), Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "hi"}}}, StreamHandler{})
				want := "after 4 attempts: the stream ended early, before any answer from " + strings.TrimPrefix(srv.URL, "http://") + ": the server closed it without " + w.end
				if err == nil || err.Error() != want {
					t.Errorf("got %v\nwant %s", err, want)
				}
			})
			t.Run("cancelled", func(t *testing.T) {
				srv := newScriptServer(t, rawResponse{status: 503, header: jsonCT, pieces: []string{`{"error":{"message":"down"}}`}})
				cfg := testConfig(srv.URL, nil)
				ctx, cancel := context.WithCancel(context.Background())
				cfg.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
				p, _ := NewProvider(w.api, cfg)
				_, err := p.Stream(ctx, Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "hi"}}}, StreamHandler{})
				if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), w.request+" stopped") {
					t.Errorf("got %v, want %q stopped", err, w.request)
				}
			})
		})
	}
}
