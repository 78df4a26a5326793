package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Retry timing, after openai-python: honour what the server asks for up to a
// minute, otherwise back off from half a second, doubling up to 8 seconds.
const (
	maxRetryAfter  = 60 * time.Second
	initialBackoff = 500 * time.Millisecond
	maxBackoff     = 8 * time.Second
)

// backoff is the wait before retrying after the given failed attempt
// (1-based). jitter in [0,1) shortens it by up to a quarter, so clients that
// failed together do not retry together.
func backoff(attempt int, jitter float64) time.Duration {
	d := initialBackoff
	for i := 1; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	if jitter > 0 && jitter < 1 {
		d -= time.Duration(float64(d) * 0.25 * jitter)
	}
	return d
}

// retryAfter reads the wait a server asked for: retry-after-ms (Azure,
// OpenAI) first because it is more precise, then Retry-After in seconds or
// as an HTTP date. Each is capped at a minute; 0 means none was given.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return capWait(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return capWait(time.Duration(secs * float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return capWait(d)
		}
	}
	return 0
}

func capWait(d time.Duration) time.Duration {
	if d > maxRetryAfter || d < 0 {
		return maxRetryAfter // also catches float overflow into negative durations
	}
	return d
}

// sleepContext waits for d or until ctx is done; the default
// OpenAIConfig.Sleep.
func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// errIdle is the cancellation cause set by the idle watchdog.
var errIdle = errors.New("idle timeout")

// errNoProgress is the cause set by the watchdog that only parts of the
// answer push back (not keep-alives).
var errNoProgress = errors.New("no progress")

// transportError classifies a failure of the HTTP exchange itself (dialling,
// sending, or reading the body). The caller has already ruled out the
// caller's own cancellation.
func transportError(reqCtx context.Context, idle time.Duration, err error) *ProviderError {
	if errors.Is(context.Cause(reqCtx), errIdle) {
		return &ProviderError{
			Kind:      ErrIdleTimeout,
			Message:   "no data from the server for " + formatWait(idle),
			Retryable: true,
		}
	}
	reason, retryable := connectionReason(err)
	return &ProviderError{Kind: ErrConnection, Message: reason, Retryable: retryable, Err: err}
}

// connectionReason names a network failure and says whether it is worth
// retrying: refused, reset and dropped connections are (the server may be
// restarting); unknown hosts and TLS failures are not.
func connectionReason(err error) (string, bool) {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", true
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset", true
	case errors.Is(err, syscall.EPIPE):
		return "connection closed", true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection", true
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "unknown host", false
		}
		return "name lookup failed", dnsErr.Timeout() || dnsErr.IsTemporary
	case errors.As(err, &netErr) && netErr.Timeout():
		return "network timeout", true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return "network error", true
	}
	return reasonUnknown, false
}

// reasonUnknown is connectionReason's word for a failure it cannot name.
const reasonUnknown = "request failed"

// idleReader pushes the idle watchdog back on every byte that arrives:
// comments and keep-alives count, since they prove the server is alive.
type idleReader struct {
	r     io.Reader
	reset func()
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.reset()
	}
	return n, err
}

// statusOverloaded is Anthropic's HTTP status for an overloaded API.
const statusOverloaded = 529

// retryReason is the short human reason given to StreamHandler.Retry.
func (e *ProviderError) retryReason() string {
	//nolint:errorlint // Kind is one of this package's sentinels, never wrapped
	switch e.Kind {
	case ErrRateLimited:
		return "rate limited"
	case ErrServer:
		overloaded := strings.Contains(strings.ToLower(e.Code), "overloaded")
		switch {
		case e.InStream && overloaded:
			return "provider overloaded"
		case e.InStream:
			return "provider error"
		case e.Status == http.StatusRequestTimeout:
			return "request timeout"
		case e.Status == http.StatusConflict:
			return "conflict (409)"
		case overloaded || e.Status == statusOverloaded:
			return "server overloaded (" + strconv.Itoa(e.Status) + ")"
		}
		return "server error " + strconv.Itoa(e.Status)
	case ErrConnection, ErrIdleTimeout:
		return e.Message
	}
	return e.Kind.Error()
}

// formatWait renders a duration the way people say it: "120s", "1.5s".
func formatWait(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int64(d/time.Second))
	}
	return d.String()
}
