package scripted

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkRenderEvents measures building the SSE events of a 4 KB answer
// in 8-rune deltas, the server's own cost per streamed turn.
func BenchmarkRenderEvents(b *testing.B) {
	s := New(WithClock(fixedClock), WithIDs(SequentialIDs()))
	e := Entry{Model: "m", Body: make([]byte, 2000), StreamOptions: true}
	turn := Turn{Text: strings.Repeat("lorem ipsum ", 340)}
	b.ReportAllocs()
	for b.Loop() {
		r, err := s.newReply(turn, e)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.events(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip measures one whole streamed request over loopback,
// the floor under every agent-loop test turn.
func BenchmarkRoundTrip(b *testing.B) {
	s := NewTest(b)
	s.Add(Conversation{Turns: []Turn{{Text: strings.Repeat("lorem ipsum ", 40)}}})
	body := chatBody(b, "m", true, true, "user", "hi")
	url := s.URL() + "/chat/completions"
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}
