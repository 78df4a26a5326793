package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Defaults of the Anthropic wire.
const (
	// DefaultAnthropicURL is Anthropic's own API root.
	DefaultAnthropicURL = "https://api.anthropic.com"
	// AnthropicVersion is the anthropic-version header every request
	// carries.
	AnthropicVersion = "2023-06-01"
	// defaultAnthropicMaxTokens is max_tokens when neither the user nor the
	// catalog says how long an answer may be: the API requires one.
	defaultAnthropicMaxTokens = 8192
)

// Anthropic is a Provider for Anthropic's Messages API (POST
// {base}/v1/messages), spoken natively: extended thinking kept and sent
// back verbatim (Message.Native), prompt caching with cache_control
// breakpoints, cache reads and writes counted.
//
// It shares the Chat Completions provider's transport (retries and
// Retry-After, the idle and keep-alive clocks, error classification and
// wording) and covey's own SSE reader; only the request body, the headers
// and the stream's events are its own (anthropic_wire.go,
// anthropic_stream.go). An Anthropic is safe for concurrent use.
type Anthropic struct {
	t *OpenAI // the transport: config with defaults, retries, error wording
}

// NewAnthropic returns a provider for cfg, with defaults filled in. A base
// URL that already ends in /v1 is not doubled.
func NewAnthropic(cfg OpenAIConfig) *Anthropic {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultAnthropicURL
	}
	t := NewOpenAI(cfg)
	base := strings.TrimRight(cfg.BaseURL, "/")
	if strings.HasSuffix(base, "/v1") {
		t.url = base + "/messages"
	} else {
		t.url = base + "/v1/messages"
	}
	return &Anthropic{t: t}
}

// URL is where requests go.
func (a *Anthropic) URL() string { return a.t.url }

// marksCachePrefix tells the agent its requests carry cache breakpoints
// (see prefixCacher).
func (a *Anthropic) marksCachePrefix() {}

// Stream sends req and streams the answer to on, with the retries and
// errors of OpenAI.Stream.
func (a *Anthropic) Stream(ctx context.Context, req Request, on StreamHandler) (Completion, error) {
	if req.Model == "" {
		return Completion{}, errors.New("anthropic request: no model set")
	}
	var r Reasoning
	if a.t.cfg.Reasoning != nil {
		r = a.t.cfg.Reasoning(req.Model)
	}
	body, err := encodeAnthropic(req, r)
	if err != nil {
		return Completion{}, err
	}
	return a.t.retrying(ctx, on, anthropicWords, func() (Completion, bool, error) { return a.attempt(ctx, body, on) })
}

// attempt makes one request; see OpenAI.attempt, whose clocks it keeps.
func (a *Anthropic) attempt(ctx context.Context, body []byte, on StreamHandler) (comp Completion, delivered bool, err error) {
	cfg := a.t.cfg
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(cfg.IdleTimeout, func() { cancel(errIdle) })
	defer watchdog.Stop()
	stalled := time.AfterFunc(cfg.KeepAliveTimeout, func() { cancel(errNoProgress) })
	defer stalled.Stop()

	httpReq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, a.t.url, bytes.NewReader(body))
	if err != nil {
		return Completion{}, false, fmt.Errorf("build anthropic request for %s: %w", a.t.url, err)
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "text/event-stream")
	httpReq.Header.Set("Anthropic-Version", AnthropicVersion)
	if cfg.APIKey != "" {
		httpReq.Header.Set("X-Api-Key", cfg.APIKey)
	}
	resp, err := cfg.HTTPClient.Do(httpReq)
	if err != nil {
		return Completion{}, false, a.t.transportError(reqCtx, err)
	}
	defer resp.Body.Close()
	r := &idleReader{r: resp.Body, reset: func() { watchdog.Reset(cfg.IdleTimeout) }}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, rerr := io.ReadAll(io.LimitReader(r, maxErrorBody))
		if rerr != nil && len(raw) == 0 {
			return Completion{}, false, a.t.transportError(reqCtx, rerr)
		}
		pe := httpError(resp.StatusCode, resp.Header, raw, cfg.Now())
		pe.KeyEnv = "ANTHROPIC_API_KEY"
		return Completion{}, false, pe
	}
	if ct := resp.Header.Get("Content-Type"); !isMediaType(ct, "text/event-stream") {
		raw, _ := io.ReadAll(io.LimitReader(r, maxErrorBody))
		msg := "the server answered with " + ct + ", not an event stream (check the base URL)"
		if isMediaType(ct, "text/html") {
			msg = "the server answered with a web page, not an API stream (check the base URL): " + summariseHTML(string(raw))
		}
		return Completion{}, false, &ProviderError{Kind: ErrBadRequest, Message: msg}
	}
	acc := newAnthropicAcc(cfg.NewCallID, cfg.Limits)
	return a.readStream(reqCtx, r, acc, on, func() { stalled.Reset(cfg.KeepAliveTimeout) })
}

// readStream consumes the event stream of one answer.
func (a *Anthropic) readStream(reqCtx context.Context, r io.Reader, acc *anthropicAcc, on StreamHandler, progressed func()) (Completion, bool, error) {
	events := newSSEReader(r)
	for {
		ev, err := events.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			cause := context.Cause(reqCtx)
			if acc.complete() && (reqCtx.Err() == nil || errors.Is(cause, errIdle) || errors.Is(cause, errNoProgress)) {
				break // the answer was whole; only message_stop was lost
			}
			if errors.Is(err, errSSELineTooLong) {
				return acc.result(), acc.hasContent(), &ProviderError{Kind: ErrProvider, InStream: true, Message: err.Error()}
			}
			return acc.result(), acc.hasContent(), a.t.transportError(reqCtx, err)
		}
		before := acc.progress
		d, err := acc.add(ev.Event, []byte(ev.Data))
		if acc.progress != before {
			progressed()
		}
		emit(on, d)
		if err != nil {
			return acc.result(), acc.hasContent(), err
		}
		if acc.stopped {
			break
		}
	}
	if !acc.complete() {
		return acc.result(), acc.hasContent(), &ProviderError{
			Kind:      ErrStreamEndedEarly,
			Message:   "the stream ended early: the server closed it without message_stop or a stop reason",
			Retryable: true,
		}
	}
	return acc.result(), true, nil
}
