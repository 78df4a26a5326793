package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// benchTokens is the answer of the wire benchmarks: 1,000 deltas of about
// one token each, as a model streams them.
const benchTokens = 1000

// wireBodies renders the same answer on both wires.
func wireBodies() map[string]string {
	var chat, ant strings.Builder
	ant.WriteString("event: message_start\ndata: " + antStart + "\n\n")
	ant.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range benchTokens {
		word := fmt.Sprintf(" w%03d", i)
		fmt.Fprintf(&chat, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", word)
		fmt.Fprintf(&ant, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n", word)
	}
	chat.WriteString("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1000}}\n\ndata: [DONE]\n\n")
	ant.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	ant.WriteString("event: message_delta\ndata: " + antEnd("end_turn", benchTokens) + "\n\nevent: message_stop\ndata: " + antStop + "\n\n")
	return map[string]string{APIChat: chat.String(), APIAnthropic: ant.String()}
}

func benchProvider(b *testing.B, api, body string) Provider {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}))
	b.Cleanup(srv.Close)
	p, err := NewProvider(api, OpenAIConfig{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkWireStream is the CPU of 1,000 streamed tokens on each wire,
// request to assembled answer over loopback (goal: anthropic within 1.1x
// of chat):
//
//	go test ./agent -run '^$' -bench 'BenchmarkWire' -benchtime 200x
func BenchmarkWireStream(b *testing.B) {
	bodies := wireBodies()
	for _, api := range []string{APIChat, APIAnthropic} {
		b.Run(api, func(b *testing.B) {
			p := benchProvider(b, api, bodies[api])
			req := Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "go"}}}
			n := 0
			on := StreamHandler{Text: func(string) { n++ }}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				comp, err := p.Stream(context.Background(), req, on)
				if err != nil || len(comp.Message.Content) != 5*benchTokens {
					b.Fatalf("stream: %v (%d bytes)", err, len(comp.Message.Content))
				}
			}
		})
	}
}

// BenchmarkWireFirstToken is the time from the request to the first text
// delta on each wire (goal: anthropic within 1.1x of chat).
func BenchmarkWireFirstToken(b *testing.B) {
	bodies := wireBodies()
	for _, api := range []string{APIChat, APIAnthropic} {
		b.Run(api, func(b *testing.B) {
			p := benchProvider(b, api, bodies[api])
			req := Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "go"}}}
			var total time.Duration
			b.ResetTimer()
			for range b.N {
				start, first := time.Now(), time.Duration(0)
				on := StreamHandler{Text: func(string) {
					if first == 0 {
						first = time.Since(start)
					}
				}}
				if _, err := p.Stream(context.Background(), req, on); err != nil {
					b.Fatal(err)
				}
				total += first
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns-to-first-token")
		})
	}
}
