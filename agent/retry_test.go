package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"
)

// recorder collects what a StreamHandler receives.
type recorder struct {
	text, reasoning []string
	retries         []retryCall
}

type retryCall struct {
	attempt int
	wait    time.Duration
	reason  string
}

func (r *recorder) handler() StreamHandler {
	return StreamHandler{
		Text:      func(d string) { r.text = append(r.text, d) },
		Reasoning: func(d string) { r.reasoning = append(r.reasoning, d) },
		Retry: func(a int, w time.Duration, reason string) {
			r.retries = append(r.retries, retryCall{a, w, reason})
		},
	}
}

// testConfig is a config with a fake clock and deterministic ids and jitter.
func testConfig(url string, waits *[]time.Duration) OpenAIConfig {
	n := 0
	return OpenAIConfig{
		BaseURL: url,
		APIKey:  "test-key",
		Sleep: func(ctx context.Context, d time.Duration) error {
			if waits != nil {
				*waits = append(*waits, d)
			}
			return ctx.Err()
		},
		Rand:      func() float64 { return 0 },
		Now:       func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		NewCallID: func() string { n++; return fmt.Sprintf("call_gen%d", n) },
	}
}

// okStream is a short successful answer.
var okStream = rawResponse{pieces: sse(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]")}

func errResponse(status int, body string, header map[string]string) rawResponse {
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	return rawResponse{status: status, header: h, pieces: []string{body}}
}

func TestStreamRetries(t *testing.T) {
	const (
		rateLimit = `{"error":{"message":"Rate limit reached for gpt-4.1","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
		overload  = `{"error":{"message":"The server is overloaded","type":"server_error"}}`
		quota     = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	)
	html502 := "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
	midStream := rawResponse{pieces: sse(`{"choices":[{"index":0,"delta":{"role":"assistant"}}]}`, `{"error":{"message":"pop from empty list","type":"InternalServerError","code":500}}`, "[DONE]")}
	tests := map[string]struct {
		script   []rawResponse
		waits    []time.Duration
		reasons  []string
		errKind  error  // nil: the last response succeeds
		errText  string // substring of the error
		requests int
	}{
		"429 with Retry-After seconds": {
			script:  []rawResponse{errResponse(429, rateLimit, map[string]string{"Retry-After": "7"}), okStream},
			waits:   []time.Duration{7 * time.Second},
			reasons: []string{"rate limited"}, requests: 2,
		},
		"503 with Retry-After date": {
			script:  []rawResponse{errResponse(503, overload, map[string]string{"Retry-After": "Fri, 02 Jan 2026 03:04:35 GMT"}), okStream},
			waits:   []time.Duration{30 * time.Second},
			reasons: []string{"server error 503"}, requests: 2,
		},
		"retry-after-ms wins over Retry-After": {
			script:  []rawResponse{errResponse(429, rateLimit, map[string]string{"Retry-After": "2", "retry-after-ms": "1500"}), okStream},
			waits:   []time.Duration{1500 * time.Millisecond},
			reasons: []string{"rate limited"}, requests: 2,
		},
		"Retry-After capped at 60s": {
			script:  []rawResponse{errResponse(429, rateLimit, map[string]string{"Retry-After": "3600"}), okStream},
			waits:   []time.Duration{60 * time.Second},
			reasons: []string{"rate limited"}, requests: 2,
		},
		"backoff doubles, 4 attempts in all": {
			script:   []rawResponse{errResponse(500, overload, nil), errResponse(500, overload, nil), errResponse(500, overload, nil), errResponse(500, overload, nil)},
			waits:    []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
			reasons:  []string{"server error 500", "server error 500", "server error 500"},
			errKind:  ErrServer,
			errText:  "after 4 attempts: server error 500: The server is overloaded",
			requests: 4,
		},
		"408 and 409 are retried": {
			script:  []rawResponse{errResponse(408, `{"error":{"message":"timeout"}}`, nil), errResponse(409, `{"error":{"message":"conflict"}}`, nil), okStream},
			waits:   []time.Duration{500 * time.Millisecond, time.Second},
			reasons: []string{"request timeout", "conflict (409)"}, requests: 3,
		},
		"HTML 502 is retried and summarised": {
			script: []rawResponse{
				{status: 502, header: map[string]string{"Content-Type": "text/html"}, pieces: []string{html502}},
				{status: 502, header: map[string]string{"Content-Type": "text/html"}, pieces: []string{html502}},
				{status: 502, header: map[string]string{"Content-Type": "text/html"}, pieces: []string{html502}},
				{status: 502, pieces: []string{html502}}, // mislabelled as a stream
			},
			waits:    []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
			reasons:  []string{"server error 502", "server error 502", "server error 502"},
			errKind:  ErrServer,
			errText:  "after 4 attempts: server error 502: 502 Bad Gateway",
			requests: 4,
		},
		"insufficient_quota on 429 is not retried": {
			script:  []rawResponse{errResponse(429, quota, map[string]string{"Retry-After": "1"})},
			errKind: ErrQuota, errText: "You exceeded your current quota", requests: 1,
		},
		"402 is not retried": {
			script:  []rawResponse{errResponse(402, `{"error":{"code":402,"message":"Insufficient credits"}}`, nil)},
			errKind: ErrQuota, errText: "Insufficient credits", requests: 1,
		},
		"401 names the key": {
			script:  []rawResponse{errResponse(401, `{"error":{"message":"Incorrect API key provided: sk-xx.","type":"invalid_request_error","code":"invalid_api_key"}}`, nil)},
			errKind: ErrAuth, errText: "the API key was rejected: check OPENAI_API_KEY (HTTP 401): Incorrect API key", requests: 1,
		},
		"context length is not retried": {
			script:  []rawResponse{errResponse(400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, nil)},
			errKind: ErrContextLength, errText: "maximum context length is 8192", requests: 1,
		},
		"other 400 keeps the provider's message": {
			script:  []rawResponse{errResponse(400, `{"object":"error","message":"Tool call id was call_x but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_request_error","code":"3280"}`, nil)},
			errKind: ErrBadRequest, errText: "the server rejected the request (HTTP 400): Tool call id was call_x", requests: 1,
		},
		"x-should-retry false": {
			script:  []rawResponse{errResponse(500, overload, map[string]string{"x-should-retry": "false"})},
			errKind: ErrServer, requests: 1,
		},
		"stream ended before any content is retried": {
			script:  []rawResponse{{pieces: sse(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`)}, okStream},
			waits:   []time.Duration{500 * time.Millisecond},
			reasons: []string{"the stream ended early"}, requests: 2,
		},
		"in-stream server error before any content is retried": {
			script:  []rawResponse{midStream, okStream},
			waits:   []time.Duration{500 * time.Millisecond},
			reasons: []string{"provider error"}, requests: 2,
		},
		"stream dying after content is not retried": {
			script:  []rawResponse{{pieces: sse(`{"choices":[{"index":0,"delta":{"content":"half"}}]}`)}},
			errKind: ErrStreamEndedEarly, requests: 1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := newScriptServer(t, tc.script...)
			var waits []time.Duration
			var rec recorder
			comp, err := NewOpenAI(testConfig(srv.URL, &waits)).Stream(context.Background(), Request{Model: "m"}, rec.handler())
			if tc.errKind == nil {
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				if comp.Message.Content != "ok" {
					t.Errorf("content = %q, want ok", comp.Message.Content)
				}
			} else if !errors.Is(err, tc.errKind) || !strings.Contains(err.Error(), tc.errText) {
				t.Fatalf("err = %v, want kind %v containing %q", err, tc.errKind, tc.errText)
			}
			if !reflect.DeepEqual(waits, tc.waits) {
				t.Errorf("waits = %v, want %v", waits, tc.waits)
			}
			var reasons []string
			for i, r := range rec.retries {
				reasons = append(reasons, r.reason)
				if r.attempt != i+1 || r.wait != tc.waits[i] {
					t.Errorf("retry %d = %+v, want attempt %d wait %v", i, r, i+1, tc.waits[i])
				}
			}
			if !reflect.DeepEqual(reasons, tc.reasons) {
				t.Errorf("reasons = %q, want %q", reasons, tc.reasons)
			}
			if n := srv.requestCount(); n != tc.requests {
				t.Errorf("requests = %d, want %d", n, tc.requests)
			}
		})
	}
}

func TestStreamConnectionErrors(t *testing.T) {
	// A listener closed at once: dialling it is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()

	// A server that drops every connection before answering.
	dropped := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(dropped.Close)

	tests := map[string]struct {
		url    string
		reason string
	}{
		"refused": {refused, "connection refused"},
		"closed":  {dropped.URL, "the server closed the connection"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var waits []time.Duration
			var rec recorder
			_, err := NewOpenAI(testConfig(tc.url, &waits)).Stream(context.Background(), Request{Model: "m"}, rec.handler())
			if !errors.Is(err, ErrConnection) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err = %v, want a connection error naming %q", err, tc.reason)
			}
			// Plain words naming the host, not Go's transport error text.
			host := strings.TrimPrefix(tc.url, "http://")
			if want := "could not reach " + host + " (" + tc.reason + ")"; !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v, want it to say %q", err, want)
			}
			for _, raw := range []string{"Post ", "dial tcp", "read stream", "EOF"} {
				if strings.Contains(err.Error(), raw) {
					t.Errorf("err = %v, shows Go's transport error (%q)", err, raw)
				}
			}
			want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}
			if !reflect.DeepEqual(waits, want) {
				t.Errorf("waits = %v, want %v", waits, want)
			}
			for _, r := range rec.retries {
				if r.reason != tc.reason {
					t.Errorf("retry reason = %q, want %q", r.reason, tc.reason)
				}
			}
		})
	}
}

func TestStreamIdleTimeout(t *testing.T) {
	tests := map[string]struct {
		script   []rawResponse
		attempts int
		content  string
		requests int
	}{
		"silent after headers": {
			script:   []rawResponse{{hang: true}, {hang: true}},
			attempts: 2, requests: 2,
		},
		"silent after content keeps it and does not retry": {
			script:   []rawResponse{{pieces: append([]string{": keep-alive\n\n"}, sse(`{"choices":[{"delta":{"content":"so far"}}]}`)...), hang: true}},
			attempts: 4, requests: 1, content: "so far",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := newScriptServer(t, tc.script...)
			cfg := testConfig(srv.URL, nil)
			cfg.IdleTimeout = 50 * time.Millisecond
			cfg.MaxAttempts = tc.attempts
			comp, err := NewOpenAI(cfg).Stream(context.Background(), Request{Model: "m"}, StreamHandler{})
			if !errors.Is(err, ErrIdleTimeout) || !strings.Contains(err.Error(), "no data from the server for 50ms") {
				t.Fatalf("err = %v, want the idle timeout", err)
			}
			if comp.Message.Content != tc.content {
				t.Errorf("content = %q, want %q", comp.Message.Content, tc.content)
			}
			if n := srv.requestCount(); n != tc.requests {
				t.Errorf("requests = %d, want %d", n, tc.requests)
			}
		})
	}
}

func TestIdleReaderResetsOnBytes(t *testing.T) {
	tests := map[string]struct {
		r      io.Reader
		resets int
	}{
		"every non-empty read": {iotest.OneByteReader(strings.NewReader(": keep-alive\n\n")), 14},
		"empty body":           {strings.NewReader(""), 0},
		"error after data":     {iotest.TimeoutReader(strings.NewReader("abc")), 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			n := 0
			ir := &idleReader{r: tc.r, reset: func() { n++ }}
			buf := make([]byte, 64)
			for i := 0; i < 100; i++ {
				if _, err := ir.Read(buf); err != nil {
					break
				}
			}
			if n != tc.resets {
				t.Errorf("resets = %d, want %d", n, tc.resets)
			}
		})
	}
}

func TestStreamCancellation(t *testing.T) {
	t.Run("while streaming", func(t *testing.T) {
		srv := newScriptServer(t, rawResponse{pieces: sse(`{"choices":[{"delta":{"content":"first"}}]}`), hang: true})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		comp, err := NewOpenAI(testConfig(srv.URL, nil)).Stream(ctx, Request{Model: "m"}, StreamHandler{Text: func(string) { cancel() }})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if comp.Message.Content != "first" {
			t.Errorf("partial content = %q, want first", comp.Message.Content)
		}
	})
	t.Run("before headers", func(t *testing.T) {
		arrived := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body) // the server notices a gone client only once the body is read
			close(arrived)
			<-r.Context().Done()
		}))
		t.Cleanup(srv.Close)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		_, err := NewOpenAI(testConfig(srv.URL, nil)).Stream(ctx, Request{Model: "m"}, StreamHandler{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("while waiting to retry", func(t *testing.T) {
		srv := newScriptServer(t, errResponse(503, `{"error":{"message":"busy"}}`, nil))
		ctx, cancel := context.WithCancel(context.Background())
		cfg := testConfig(srv.URL, nil)
		cfg.Sleep = func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }
		_, err := NewOpenAI(cfg).Stream(ctx, Request{Model: "m"}, StreamHandler{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{1, 0, 500 * time.Millisecond},
		{2, 0, time.Second},
		{4, 0, 4 * time.Second},
		{5, 0, 8 * time.Second},
		{40, 0, 8 * time.Second},
		{1, 0.5, 437500 * time.Microsecond},
		{5, 0.999, 8*time.Second - time.Duration(float64(8*time.Second)*0.25*0.999)},
	}
	for _, tc := range tests {
		if got := backoff(tc.attempt, tc.jitter); got != tc.want {
			t.Errorf("backoff(%d, %v) = %v, want %v", tc.attempt, tc.jitter, got, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := map[string]struct {
		header map[string]string
		want   time.Duration
	}{
		"none":           {nil, 0},
		"seconds":        {map[string]string{"Retry-After": "12"}, 12 * time.Second},
		"fraction":       {map[string]string{"Retry-After": "0.25"}, 250 * time.Millisecond},
		"date":           {map[string]string{"Retry-After": "Fri, 02 Jan 2026 03:05:05 GMT"}, time.Minute},
		"date past":      {map[string]string{"Retry-After": "Fri, 02 Jan 2026 03:00:00 GMT"}, 0},
		"ms":             {map[string]string{"retry-after-ms": "20"}, 20 * time.Millisecond},
		"ms capped":      {map[string]string{"retry-after-ms": "600000"}, time.Minute},
		"huge":           {map[string]string{"Retry-After": "1e300"}, time.Minute},
		"garbage":        {map[string]string{"Retry-After": "soon"}, 0},
		"negative":       {map[string]string{"Retry-After": "-5"}, 0},
		"bad ms, good s": {map[string]string{"retry-after-ms": "x", "Retry-After": "3"}, 3 * time.Second},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tc.want {
				t.Errorf("retryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestConnectionReason(t *testing.T) {
	tests := map[string]struct {
		err       error
		reason    string
		retryable bool
	}{
		"refused":       {&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, "connection refused", true},
		"reset":         {&net.OpError{Op: "read", Err: syscall.ECONNRESET}, "connection reset", true},
		"broken pipe":   {&net.OpError{Op: "write", Err: syscall.EPIPE}, "connection closed", true},
		"eof":           {fmt.Errorf("post: %w", io.EOF), "the server closed the connection", true},
		"unknown host":  {&net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}, "unknown host", false},
		"dns timeout":   {&net.DNSError{Err: "timeout", Name: "x", IsTimeout: true}, "name lookup failed", true},
		"timeout":       {&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}, "network timeout", true},
		"other net":     {&net.OpError{Op: "read", Err: errors.New("weird")}, "network error", true},
		"tls and so on": {errors.New("tls: bad certificate"), "request failed", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			reason, retryable := connectionReason(tc.err)
			if reason != tc.reason || retryable != tc.retryable {
				t.Errorf("connectionReason = %q, %v; want %q, %v", reason, retryable, tc.reason, tc.retryable)
			}
		})
	}
}

func TestSleepContext(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := map[string]struct {
		ctx  context.Context
		d    time.Duration
		want error
	}{
		"zero wait":          {context.Background(), 0, nil},
		"tiny wait":          {context.Background(), time.Nanosecond, nil},
		"cancelled, long":    {cancelled, time.Hour, context.Canceled},
		"cancelled, no wait": {cancelled, 0, context.Canceled},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if err := sleepContext(tc.ctx, tc.d); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("sleepContext = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestFormatWait(t *testing.T) {
	tests := map[time.Duration]string{120 * time.Second: "120s", 50 * time.Millisecond: "50ms", 1500 * time.Millisecond: "1.5s"}
	for d, want := range tests {
		if got := formatWait(d); got != want {
			t.Errorf("formatWait(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestStreamUnnamedFailureKeepsItsCause checks that a failure covey has no
// plain name for still says what Go found, rather than a bare "request failed".
func TestStreamUnnamedFailureKeepsItsCause(t *testing.T) {
	var waits []time.Duration
	var rec recorder
	_, err := NewOpenAI(testConfig("foo", &waits)).Stream(context.Background(), Request{Model: "m"}, rec.handler())
	if err == nil || !strings.Contains(err.Error(), "unsupported protocol scheme") {
		t.Fatalf("err = %v, want the transport's reason", err)
	}
}

// TestStreamEndedBeforeAnswerNamesHost checks the words when every attempt's
// stream ends before any answer: the host, and that nothing arrived.
func TestStreamEndedBeforeAnswerNamesHost(t *testing.T) {
	early := rawResponse{pieces: sse(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`)}
	srv := newScriptServer(t, early, early, early, early)
	var rec recorder
	_, err := NewOpenAI(testConfig(srv.URL, nil)).Stream(context.Background(), Request{Model: "m"}, rec.handler())
	want := "the stream ended early, before any answer from " + strings.TrimPrefix(srv.URL, "http://")
	if !errors.Is(err, ErrStreamEndedEarly) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to say %q", err, want)
	}
}
