package agent

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllEvents drains a reader, returning the events and the final error
// (nil for a clean end).
func readAllEvents(r io.Reader, maxLine int) ([]sseEvent, error) {
	s := newSSEReader(r)
	if maxLine > 0 {
		s.maxLine = maxLine
	}
	var out []sseEvent
	for {
		ev, err := s.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := map[string]struct {
		in   string
		want []sseEvent
	}{
		"standard":                   {"data: a\n\ndata: b\n\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		"no space after colon":       {"data:a\n\n", []sseEvent{{Data: "a"}}},
		"only one space is stripped": {"data:  a\n\n", []sseEvent{{Data: " a"}}},
		"multi-line data":            {"data: {\"a\":\ndata: 1}\n\n", []sseEvent{{Data: "{\"a\":\n1}"}}},
		"comments skipped": {
			": OPENROUTER PROCESSING\n\n: keep-alive\ndata: x\n\n",
			[]sseEvent{{Data: "x"}},
		},
		"CRLF":                      {"data: a\r\n\r\ndata: b\r\n\r\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		"lone CR":                   {"data: a\r\rdata: b\r\r", []sseEvent{{Data: "a"}, {Data: "b"}}},
		"last line without newline": {"data: a\n\ndata: [DONE]", []sseEvent{{Data: "a"}, {Data: "[DONE]"}}},
		"pending event at end":      {"data: a\n", []sseEvent{{Data: "a"}}},
		"event type":                {"event: error\ndata: {\"error\":1}\n\n", []sseEvent{{Event: "error", Data: "{\"error\":1}"}}},
		"event type resets after dispatch": {
			"event: error\ndata: x\n\ndata: y\n\n",
			[]sseEvent{{Event: "error", Data: "x"}, {Data: "y"}},
		},
		"event type without data is dropped unless error": {
			"event: ping\n\nevent: error\n\n",
			[]sseEvent{{Event: "error"}},
		},
		"llama.cpp error line": {
			"error: {\"code\":500}\n\ndata: [DONE]\n\n",
			[]sseEvent{{Event: "error", Data: "{\"code\":500}"}, {Data: "[DONE]"}},
		},
		"id and retry ignored":  {"id: 7\nretry: 100\ndata: a\n\n", []sseEvent{{Data: "a"}}},
		"unknown field ignored": {"foo: bar\ndata: a\n\n", []sseEvent{{Data: "a"}}},
		"field without colon":   {"data\n\n", []sseEvent{{Data: ""}}},
		"byte order mark":       {"\xEF\xBB\xBFdata: a\n\n", []sseEvent{{Data: "a"}}},
		"blank lines only":      {"\n\n\n", nil},
		"empty":                 {"", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, mode := range []string{"whole", "one byte"} {
				var r io.Reader = strings.NewReader(tc.in)
				if mode == "one byte" {
					r = iotest.OneByteReader(r)
				}
				got, err := readAllEvents(r, 0)
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: events = %q, want %q", mode, got, tc.want)
				}
			}
		})
	}
}

func TestSSEKeepAliveFlood(t *testing.T) {
	in := strings.Repeat(": OPENROUTER PROCESSING\n\n", 100_000) + "data: done\n\n"
	got, err := readAllEvents(strings.NewReader(in), 0)
	if err != nil || !reflect.DeepEqual(got, []sseEvent{{Data: "done"}}) {
		t.Fatalf("events = %q, err = %v; want the one event", got, err)
	}
}

func TestSSEErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := map[string]struct {
		r       io.Reader
		maxLine int
		want    error
		events  int
	}{
		"line too long":  {strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"), 64, errSSELineTooLong, 0},
		"long line fits": {strings.NewReader("data: " + strings.Repeat("x", 100_000) + "\n\n"), 0, nil, 1},
		"read error":     {io.MultiReader(strings.NewReader("data: a\n\n"), iotest.ErrReader(boom)), 0, boom, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := readAllEvents(tc.r, tc.maxLine)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if len(got) != tc.events {
				t.Errorf("events = %d, want %d", len(got), tc.events)
			}
		})
	}
}

// FuzzSSE checks that the reader never panics, that how the bytes are cut
// into reads never changes the events, and that events round-trip through
// the standard framing.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "data:a\r\n\r\n", ": c\n\ndata: x\ndata: y\n\n", "event: error\ndata: {}\n\n",
		"error: {\"code\":500}\n\ndata: [DONE]", "data: a\r\rdata: b\r", "\xEF\xBB\xBFdata: a",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, errWhole := readAllEvents(bytes.NewReader(in), 0)
		bytewise, errByte := readAllEvents(iotest.OneByteReader(bytes.NewReader(in)), 0)
		if errWhole != nil || errByte != nil {
			t.Fatalf("errors: %v / %v", errWhole, errByte)
		}
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("chunking changed the events:\n whole %q\n bytes %q", whole, bytewise)
		}
		// Re-encode and parse again: the same events must come back.
		var b strings.Builder
		for _, ev := range whole {
			if ev.Event != "" {
				b.WriteString("event: " + ev.Event + "\n")
			}
			for _, line := range strings.Split(ev.Data, "\n") {
				b.WriteString("data: " + line + "\n")
			}
			b.WriteString("\n")
		}
		again, err := readAllEvents(strings.NewReader(b.String()), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(whole) == 0 {
			whole = nil
		}
		if !reflect.DeepEqual(again, whole) {
			t.Fatalf("round trip changed the events:\n first %q\n again %q", whole, again)
		}
	})
}

func BenchmarkSSE(b *testing.B) {
	var in strings.Builder
	for range 1000 {
		in.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hello "},"finish_reason":null}],"usage":null}` + "\n\n")
	}
	data := in.String()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readAllEvents(strings.NewReader(data), 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSSEEventBounded: an event of endless data lines is bounded like one
// long line.
func TestSSEEventBounded(t *testing.T) {
	r := newSSEReader(strings.NewReader(strings.Repeat("data: 0123456789\n", 100) + "\n"))
	r.maxLine = 500
	if _, err := r.next(); !errors.Is(err, errSSELineTooLong) {
		t.Fatalf("err = %v, want errSSELineTooLong", err)
	}
}
