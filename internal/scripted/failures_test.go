package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDisconnectAfterCutsTheConnection(t *testing.T) {
	turn := Turn{Text: "a long enough answer to be cut somewhere in the middle"}
	// The uncut stream of the same turn, with the same ids, is what the
	// cut one must be a prefix of.
	full := func() []byte {
		s := NewTest(t, WithClock(fixedClock), WithIDs(SequentialIDs()))
		s.Add(Conversation{Turns: []Turn{turn}})
		return readAll(t, post(t, s, chatBody(t, "m", true, false, "user", "hi")))
	}()
	tests := map[string]int{
		"inside the first event": 10,
		"between events":         bytes.Index(full, []byte("\n\n")) + 2,
		"inside a later event":   len(full) / 2,
		"beyond the stream":      len(full) + 100,
	}
	for name, cut := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t, WithClock(fixedClock), WithIDs(SequentialIDs()))
			cutTurn := turn
			cutTurn.DisconnectAfter = cut
			s.Add(Conversation{Turns: []Turn{cutTurn}})
			resp := post(t, s, chatBody(t, "m", true, false, "user", "hi"))
			got, err := io.ReadAll(resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("read error %v, want unexpected EOF", err)
			}
			want := full[:min(cut, len(full))]
			if !bytes.Equal(got, want) {
				t.Errorf("received %d bytes %q, want the first %d bytes of the stream", len(got), got, len(want))
			}
		})
	}
}

func TestStallSendsHeadersThenNothing(t *testing.T) {
	tests := map[string]string{
		"silent":           "",
		"after some bytes": ": keep-alive\n\n",
	}
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t)
			s.Add(Conversation{Turns: []Turn{{Stall: true, Raw: raw}}})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/chat/completions",
				bytes.NewReader(chatBody(t, "m", true, false, "user", "hi")))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("headers did not arrive: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Errorf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			buf := make([]byte, len(raw))
			if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != raw {
				t.Fatalf("read %q, %v; want %q", buf, err, raw)
			}
			// Nothing more may come: the read can only end when the client
			// gives up.
			result := make(chan error, 1)
			go func() {
				n, err := resp.Body.Read(make([]byte, 1))
				if n > 0 {
					err = fmt.Errorf("stalled stream sent %d more bytes", n)
				}
				result <- err
			}()
			cancel()
			if err := <-result; !errors.Is(err, context.Canceled) {
				t.Errorf("read ended with %v, want context.Canceled", err)
			}
		})
	}
}

func TestStallEndsOnClose(t *testing.T) {
	s := New()
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	s.Add(Conversation{Turns: []Turn{{Stall: true}}})
	resp := post(t, s, chatBody(t, "m", true, false, "user", "hi"))
	s.Close() // must not wait for the stalled client
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("stream ended cleanly, want a cut connection")
	}
	if e := s.Journal()[0]; e.Done.IsZero() {
		t.Error("the stalled handler had not finished when Close returned")
	}
	s.Close() // a second Close is harmless
}

func TestDelay(t *testing.T) {
	t.Run("before headers", func(t *testing.T) {
		const delay = 30 * time.Millisecond
		s := NewTest(t)
		s.Add(Conversation{Turns: []Turn{{Text: "late", Delay: delay}}})
		var first time.Time
		resp := post(t, s, chatBody(t, "m", true, false, "user", "hi"))
		first = time.Now()
		if got := assemble(t, readAll(t, resp)).text; got != "late" {
			t.Errorf("text %q", got)
		}
		// A lower bound the timer guarantees, not a speed goal: the headers
		// cannot have come before the delay elapsed.
		if e := s.Journal()[0]; first.Sub(e.Time) < delay {
			t.Errorf("headers after %v, want at least %v", first.Sub(e.Time), delay)
		}
	})
	t.Run("abandoned by the client", func(t *testing.T) {
		s := NewTest(t)
		arrived := make(chan struct{})
		s.Add(Conversation{Turns: []Turn{{Func: func(Request) Turn {
			close(arrived)
			return Turn{Text: "never", Delay: time.Hour}
		}}}})
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/chat/completions",
				bytes.NewReader(chatBody(t, "m", true, false, "user", "hi")))
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				err = fmt.Errorf("answered with %d despite an hour's delay", resp.StatusCode)
			}
			errc <- err
		}()
		<-arrived
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("client got %v, want context.Canceled", err)
		}
	})
}

func TestParallelConversationsOverlap(t *testing.T) {
	s := NewTest(t)
	// Each answer waits until all three requests have arrived: a server
	// that served one conversation at a time would never get there.
	var arrivals sync.WaitGroup
	arrivals.Add(3)
	all := make(chan struct{})
	go func() { arrivals.Wait(); close(all) }()
	for _, name := range []string{"alpha", "beta", "gamma"} {
		s.Add(Conversation{Name: name, Match: Match{FirstUser: name}, Turns: []Turn{{Func: func(r Request) Turn {
			arrivals.Done()
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				return Turn{Status: 500, Body: "the other requests never arrived"}
			}
			return Turn{Text: "child " + name + " reporting in several chunks", ChunkSize: 4, ChunkDelay: time.Millisecond}
		}}}})
	}
	var wg sync.WaitGroup
	texts := make([]string, 3)
	for i, name := range []string{"alpha", "beta", "gamma"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/chat/completions",
				bytes.NewReader(chatBody(t, "m", true, false, "user", "you are "+name)))
			if err != nil {
				t.Error(err)
				return
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 {
				t.Errorf("%s: status %d, %v: %s", name, resp.StatusCode, err, b)
				return
			}
			texts[i] = assemble(t, b).text
		}()
	}
	wg.Wait()
	for i, name := range []string{"alpha", "beta", "gamma"} {
		if want := "child " + name + " reporting in several chunks"; texts[i] != want {
			t.Errorf("%s got %q", name, texts[i])
		}
	}
	j := s.Journal()
	if len(j) != 3 {
		t.Fatalf("%d journal entries", len(j))
	}
	if last, first := j[2].Time, j[0].Done; !last.Before(first) {
		t.Errorf("3rd request arrived at %v, after the 1st finished at %v: not concurrent", last, first)
	}
}

// recordingTB captures what NewTest reports, to test the check itself.
type recordingTB struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recordingTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestUnmatched(t *testing.T) {
	tests := map[string]struct {
		allow      bool
		user       string
		assistants int
		wantReason string
	}{
		"no conversation":           {user: "stranger", wantReason: "no conversation matches"},
		"beyond the scripted turns": {user: "known", assistants: 2, wantReason: `conversation "known" has 1 turn, request is turn 2`},
		"allowed":                   {allow: true, user: "stranger", wantReason: "no conversation matches"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			s := NewTest(rec)
			defer rec.runCleanups()
			if tc.allow {
				s.AllowUnmatched()
			}
			s.Add(Conversation{Name: "known", Match: Match{FirstUser: "known"}, Turns: []Turn{{Text: "ok"}}})
			msgs := []string{"user", tc.user}
			for range tc.assistants {
				msgs = append(msgs, "assistant", "a", "user", "more")
			}
			resp := post(t, s, chatBody(t, "m", true, false, msgs...))
			var doc wireError
			if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != 500 {
				t.Fatalf("status %d, decode %v; want 500 with an error document", resp.StatusCode, err)
			}
			// The message says what arrived and what was scripted.
			for _, want := range []string{fmt.Sprintf("first user message %q", tc.user), fmt.Sprintf("turn %d", tc.assistants), `"known" (first_user "known"`} {
				if !strings.Contains(doc.Error.Message, want) {
					t.Errorf("error message %s lacks %s", doc.Error.Message, want)
				}
			}
			u := s.Unmatched()
			if len(u) != 1 || u[0].Unmatched != tc.wantReason {
				t.Fatalf("unmatched %+v, want one with reason %q", u, tc.wantReason)
			}
			rec.runCleanups()
			rec.cleanups = nil
			if tc.allow != (len(rec.errs) == 0) {
				t.Errorf("cleanup reported %q (allowed: %v)", rec.errs, tc.allow)
			}
		})
	}
}

func TestBrokenTurnsAreReported(t *testing.T) {
	tests := map[string]Turn{
		"Func panics":        {Func: func(Request) Turn { panic("boom") }},
		"unmarshalable args": {ToolCalls: []Call{{Name: "x", Args: make(chan int)}}},
	}
	for name, turn := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t)
			s.AllowUnmatched()
			s.Add(Conversation{Turns: []Turn{turn}})
			resp := post(t, s, chatBody(t, "m", true, false, "user", "hi"))
			var doc wireError
			if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != 500 {
				t.Fatalf("status %d, %v; want 500 with an error document", resp.StatusCode, err)
			}
			if u := s.Unmatched(); len(u) != 1 || !strings.Contains(doc.Error.Message, u[0].Unmatched) {
				t.Errorf("unmatched %+v, message %q", u, doc.Error.Message)
			}
		})
	}
}

// TestAbandonedRequestIsNotUnmatched: a client that goes away while it is
// still sending its request (a call cancelled mid-upload) is journalled as
// abandoned, not as an unexpected request that fails the test.
func TestAbandonedRequestIsNotUnmatched(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := NewTest(rec)
	defer rec.runCleanups()
	s.Add(Conversation{Turns: []Turn{{Text: "ok"}}})
	addr := strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), "/v1")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"model\":", addr)
	conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Journal()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	j := s.Journal()
	if len(j) != 1 || !j[0].Abandoned || j[0].Unmatched != "" {
		t.Fatalf("journal %+v, want one abandoned entry", j)
	}
	rec.runCleanups()
	rec.cleanups = nil
	if len(rec.errs) != 0 {
		t.Errorf("cleanup reported %q for an abandoned request", rec.errs)
	}
}

// TestHoldPausesTheText: a held turn streams its text up to HoldAt, sends
// nothing more while Hold is open, and the rest once it is closed; closed
// from the start, the stream is the unheld one.
func TestHoldPausesTheText(t *testing.T) {
	turn := Turn{Text: "before|after", ChunkSize: 3, HoldAt: 6}
	stream := func(t *testing.T, hold chan struct{}) []byte {
		s := NewTest(t, WithClock(fixedClock), WithIDs(SequentialIDs()))
		held := turn
		held.Hold = hold
		s.Add(Conversation{Turns: []Turn{held}})
		return readAll(t, post(t, s, chatBody(t, "m", true, false, "user", "hi")))
	}
	open := make(chan struct{})
	close(open)
	s := NewTest(t, WithClock(fixedClock), WithIDs(SequentialIDs()))
	s.Add(Conversation{Turns: []Turn{turn}})
	if got, want := stream(t, open), readAll(t, post(t, s, chatBody(t, "m", true, false, "user", "hi"))); !bytes.Equal(got, want) {
		t.Errorf("an open hold changed the stream:\n%s\nwant\n%s", got, want)
	}

	hold := make(chan struct{})
	s = NewTest(t)
	held := turn
	held.Hold = hold
	s.Add(Conversation{Turns: []Turn{held}})
	resp := post(t, s, chatBody(t, "m", true, false, "user", "hi"))
	defer resp.Body.Close()
	// The text before the hold comes; then the body waits for it.
	var got bytes.Buffer
	for !strings.Contains(got.String(), `"content":"ore"`) {
		buf := make([]byte, 512)
		n, err := resp.Body.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			t.Fatalf("read %q: %v", got.String(), err)
		}
	}
	if strings.Contains(got.String(), `"content":"|af"`) {
		t.Fatalf("text after the hold came before it was closed:\n%s", got.String())
	}
	close(hold)
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if a := assemble(t, append(got.Bytes(), rest...)); a.text != turn.Text {
		t.Errorf("the held stream's text is %q, want %q", a.text, turn.Text)
	}
}
