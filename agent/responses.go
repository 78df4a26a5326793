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

// Responses is a Provider for OpenAI's Responses API (POST
// {base}/responses), the only API OpenAI's codex models are served by.
//
// It shares everything but the wire with OpenAI, the Chat Completions
// client: configuration and its defaults, covey's own SSE reader, the idle
// and keep-alive clocks, the stream caps (the same accumulator keeps the
// text, reasoning and calls), error classification and the retries. What
// is its own: the request (input items, instructions, store false with
// the reasoning's encrypted content included, a prompt_cache_key) and the
// typed events of its stream (responses_stream.go).
//
// Reasoning items come back whole in Completion.Message.Native (API
// APIResponses), encrypted_content unchanged, and go out again, byte for
// byte, before the message's text and calls in every later request.
//
// A Responses is safe for concurrent use: Stream keeps its state per call.
type Responses struct {
	o *OpenAI // the Chat client whose configuration, clocks and error words it shares
}

// NewResponses returns a Responses provider for cfg (the same
// configuration as NewOpenAI: BaseURL is the API root, e.g.
// "https://api.openai.com/v1"), with defaults filled in.
func NewResponses(cfg OpenAIConfig) *Responses {
	o := NewOpenAI(cfg)
	o.url = strings.TrimRight(o.cfg.BaseURL, "/") + "/responses"
	o.mistral = false
	return &Responses{o: o}
}

// Stream sends req and streams the answer to on, as OpenAI.Stream does:
// failures before any part of the answer are retried (429 and 5xx with
// their Retry-After), an overflow is ErrContextLength, and the Completion
// holds the partial answer when err != nil. A broken answer carries no
// reasoning items: one sent back without the item it preceded is refused.
func (r *Responses) Stream(ctx context.Context, req Request, on StreamHandler) (Completion, error) {
	if req.Model == "" {
		return Completion{}, errors.New("responses request: no model set")
	}
	body, err := encodeResponsesRequest(req, r.effort(req.Model))
	if err != nil {
		return Completion{}, err
	}
	comp, err := r.o.retrying(ctx, on, responsesWords, func() (Completion, bool, error) { return r.attempt(ctx, body, on) })
	if err != nil {
		comp.Message.Native = nil
	}
	return comp, err
}

// effort is the configured reasoning effort of model ("" when none).
func (r *Responses) effort(model string) string {
	if r.o.cfg.Reasoning == nil {
		return ""
	}
	return r.o.cfg.Reasoning(model).Effort
}

// attempt makes one request; delivered reports whether any part of the
// answer arrived (then the failure is not retried). The clocks are
// OpenAI.attempt's: IdleTimeout without a byte, KeepAliveTimeout without
// a part of the answer.
func (r *Responses) attempt(ctx context.Context, body []byte, on StreamHandler) (comp Completion, delivered bool, err error) {
	o := r.o
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(o.cfg.IdleTimeout, func() { cancel(errIdle) })
	defer watchdog.Stop()
	stalled := time.AfterFunc(o.cfg.KeepAliveTimeout, func() { cancel(errNoProgress) })
	defer stalled.Stop()

	httpReq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, o.url, bytes.NewReader(body))
	if err != nil {
		return Completion{}, false, fmt.Errorf("build responses request for %s: %w", o.url, err)
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "text/event-stream")
	if o.cfg.APIKey != "" {
		httpReq.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	resp, err := o.cfg.HTTPClient.Do(httpReq)
	if err != nil {
		return Completion{}, false, o.transportError(reqCtx, err)
	}
	defer resp.Body.Close()
	in := &idleReader{r: resp.Body, reset: func() { watchdog.Reset(o.cfg.IdleTimeout) }}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, rerr := io.ReadAll(io.LimitReader(in, maxErrorBody))
		if rerr != nil && len(raw) == 0 {
			return Completion{}, false, o.transportError(reqCtx, rerr)
		}
		return Completion{}, false, httpError(resp.StatusCode, resp.Header, raw, o.cfg.Now())
	}
	acc := newResponsesAcc(o.cfg.NewCallID, o.cfg.Limits)
	switch ct := resp.Header.Get("Content-Type"); {
	case isMediaType(ct, "text/html"):
		raw, _ := io.ReadAll(io.LimitReader(in, maxErrorBody))
		return Completion{}, false, &ProviderError{
			Kind:    ErrBadRequest,
			Message: "the server answered with a web page, not an API stream (check the base URL): " + summariseHTML(string(raw)),
		}
	case isMediaType(ct, "application/json"):
		raw, err := io.ReadAll(io.LimitReader(in, maxWholeBody))
		if err != nil {
			return Completion{}, false, o.transportError(reqCtx, err)
		}
		d, err := acc.addWhole(raw)
		emit(on, d)
		if err != nil {
			return acc.result(), acc.acc.hasContent(), err
		}
		return acc.result(), true, nil
	default:
		return r.readStream(reqCtx, in, acc, on, func() { stalled.Reset(o.cfg.KeepAliveTimeout) })
	}
}

// readStream consumes the SSE body: one typed event at a time, until
// response.completed (or response.incomplete) ends the answer, or an
// error event, response.failed, a cap or the connection ends it early.
func (r *Responses) readStream(reqCtx context.Context, body io.Reader, acc *responsesAcc, on StreamHandler, progressed func()) (Completion, bool, error) {
	events := newSSEReader(body)
	for {
		ev, err := events.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			cause := context.Cause(reqCtx)
			if acc.finished() && (reqCtx.Err() == nil || errors.Is(cause, errIdle) || errors.Is(cause, errNoProgress)) {
				break // the answer was whole; only the connection's end was lost
			}
			if errors.Is(err, errSSELineTooLong) {
				return acc.result(), acc.acc.hasContent(), &ProviderError{Kind: ErrProvider, InStream: true, Message: err.Error()}
			}
			return acc.result(), acc.acc.hasContent(), r.o.transportError(reqCtx, err)
		}
		data := bytes.TrimSpace([]byte(ev.Data))
		if ev.Event == "error" && (len(data) == 0 || data[0] != '{') {
			return acc.result(), acc.acc.hasContent(), streamError(data, "the server sent an error event")
		}
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		before := acc.acc.progress
		d, err := acc.add(ev.Event, data)
		if acc.acc.progress != before {
			progressed()
		}
		emit(on, d)
		if err != nil {
			return acc.result(), acc.acc.hasContent(), err
		}
		if acc.finished() {
			// Nothing after response.completed belongs to the answer; a
			// server that keeps the connection open is not waited for.
			return acc.result(), true, nil
		}
	}
	if !acc.finished() {
		return acc.result(), acc.acc.hasContent(), &ProviderError{
			Kind:      ErrStreamEndedEarly,
			Message:   "the stream ended early: the server closed it without response.completed",
			Retryable: true,
		}
	}
	return acc.result(), true, nil
}
