package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of OpenAIConfig.
const (
	// DefaultBaseURL is OpenAI's own API root.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultMaxAttempts counts the first attempt and three retries.
	DefaultMaxAttempts = 4
	// DefaultIdleTimeout is how long a stream may stay silent.
	DefaultIdleTimeout = 120 * time.Second
	// DefaultKeepAliveTimeout is how long a server that sends only
	// keep-alives is waited for.
	DefaultKeepAliveTimeout = 10 * time.Minute
)

// Bounds on what is read from a response that is not a stream.
const (
	maxErrorBody = 1 << 20
	maxWholeBody = 64 << 20
)

// OpenAIConfig configures an OpenAI-compatible provider. Only BaseURL and
// APIKey matter in production; the rest exists for tests and tuning.
type OpenAIConfig struct {
	// BaseURL is the API root, e.g. "http://localhost:11434/v1"; requests go
	// to BaseURL + "/chat/completions". Empty means OpenAI's.
	BaseURL string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// HTTPClient sends the requests; nil means a client without a total
	// timeout (streams are long; IdleTimeout guards against hangs).
	HTTPClient *http.Client
	// MaxAttempts counts the first attempt and the retries; 0 means 4.
	MaxAttempts int
	// IdleTimeout is how long the stream may stay silent (not one byte)
	// before the request is abandoned; 0 means 120s.
	IdleTimeout time.Duration
	// KeepAliveTimeout is how long the stream may go without progress (a
	// part of the answer: text, reasoning, a tool call, the finish, usage)
	// while bytes still arrive: keep-alive comments and empty deltas are
	// not progress, so a server sending only those is given up after it.
	// It leaves room for a proxy waiting on a model that thinks silently;
	// 0 means 10 minutes, and it is never shorter than IdleTimeout.
	KeepAliveTimeout time.Duration
	// Limits bound one streamed answer; zero fields take their defaults.
	Limits StreamLimits
	// Sleep waits between attempts; nil means a real, cancellable wait.
	// Tests inject a fake that records the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns jitter in [0,1) for the retry backoff; nil means random.
	Rand func() float64
	// Now tells the time, to read Retry-After dates; nil means time.Now.
	Now func() time.Time
	// NewCallID makes up an id for a tool call the server sent without one;
	// nil means "call_" and 24 random alphanumerics.
	NewCallID func() string
	// Reasoning tells how much a model should think (config's effort and
	// thinking_budget per model); nil leaves it to the server. The
	// Anthropic and Responses wires send it; Chat Completions does not.
	Reasoning func(model string) Reasoning
	// ProviderName is an optional hint ("mistral") for server-specific wire
	// rules that the base URL does not reveal.
	ProviderName string
}

// OpenAI is a Provider for any OpenAI-compatible Chat Completions server
// (OpenAI, Azure, OpenRouter, DeepSeek, Groq, Mistral, Gemini's endpoint,
// vLLM, llama.cpp, Ollama, LM Studio...).
//
// It encodes requests with its own wire structs and go-openai's tool types,
// and decodes error bodies with go-openai's APIError, but reads the stream
// with its own SSE reader and accumulator: go-openai's stream decoder drops
// unknown fields (reasoning, extra_content, x_groq), counts keep-alive
// comments as empty messages until ErrTooManyEmptyStreamMessages, swallows
// "error:" lines and errors glued to an event line, drops a last line
// without a newline, and reports a truncated stream as a clean io.EOF.
//
// An OpenAI is safe for concurrent use: Stream keeps its state per call.
type OpenAI struct {
	cfg     OpenAIConfig
	url     string
	mistral bool
}

// NewOpenAI returns a provider for cfg, with defaults filled in.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.KeepAliveTimeout <= 0 {
		cfg.KeepAliveTimeout = DefaultKeepAliveTimeout
	}
	cfg.KeepAliveTimeout = max(cfg.KeepAliveTimeout, cfg.IdleTimeout)
	if cfg.Sleep == nil {
		cfg.Sleep = sleepContext
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewCallID == nil {
		cfg.NewCallID = randomCallID
	}
	return &OpenAI{
		cfg:     cfg,
		url:     strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions",
		mistral: isMistral(cfg.ProviderName, cfg.BaseURL),
	}
}

// randomCallID makes up a tool-call id in OpenAI's style.
func randomCallID() string {
	b := make([]byte, 24)
	for i := range b {
		b[i] = alnum[rand.IntN(len(alnum))]
	}
	return "call_" + string(b)
}

// Stream sends req and streams the answer to on, retrying failures that
// happen before any part of the answer arrived (see ProviderError).
//
// The Completion is meaningful even when err != nil: after a stream that
// broke midway (ErrStreamEndedEarly, a provider error, a dropped
// connection, cancellation) it holds the partial answer, with an empty
// FinishReason unless the server sent one.
//
// Failures of the exchange are *ProviderError values, possibly wrapped
// ("after 4 attempts: ..."); branch on them with errors.Is and the Err*
// kinds. When ctx ends, the error wraps ctx.Err(). Before each retry,
// on.Retry gets the 1-based number of the attempt that failed, the wait,
// and a short reason ("rate limited", "server error 503", "connection
// refused").
func (o *OpenAI) Stream(ctx context.Context, req Request, on StreamHandler) (Completion, error) {
	if req.Model == "" {
		return Completion{}, errors.New("chat completion: no model set")
	}
	body, err := encodeRequest(req, o.mistral)
	if err != nil {
		return Completion{}, err
	}
	return o.retrying(ctx, on, chatWords, func() (Completion, bool, error) { return o.attempt(ctx, body, on) })
}

// wireWords are what a wire's failures call its request and the end of
// its stream, so the one retry loop words each wire's errors in its own
// terms.
type wireWords struct {
	request string // "chat completion": "... stopped: context canceled"
	end     string // what a whole stream ends with: "[DONE] or a finish reason"
}

// The words of each wire.
var (
	chatWords      = wireWords{request: "chat completion", end: "[DONE] or a finish reason"}
	anthropicWords = wireWords{request: "anthropic request", end: "message_stop or a stop reason"}
	responsesWords = wireWords{request: "responses request", end: "response.completed"}
)

// retrying makes attempts until one succeeds or fails for good, waiting
// between them as the server or the backoff says: the retry policy of
// every wire (the Anthropic and Responses providers share it through
// their transport, an OpenAI). An attempt reports whether any part of the
// answer was delivered (then it is never retried, and a broken connection
// is told as mid-answer); a failure before any part is told as the host
// unreached. words name the wire's request and stream end in errors.
func (o *OpenAI) retrying(ctx context.Context, on StreamHandler, words wireWords, try func() (Completion, bool, error)) (Completion, error) {
	for attempt := 1; ; attempt++ {
		comp, delivered, err := try()
		if err == nil {
			return comp, nil
		}
		if ctx.Err() != nil {
			return comp, fmt.Errorf("%s stopped: %w", words.request, ctx.Err())
		}
		if delivered {
			err = o.midAnswer(err, comp, words)
		}
		var pe *ProviderError
		if delivered || !errors.As(err, &pe) || !pe.Retryable || attempt >= o.cfg.MaxAttempts {
			if !delivered {
				err = o.unreached(err, words)
			}
			if attempt > 1 {
				err = fmt.Errorf("after %d attempts: %w", attempt, err)
			}
			return comp, err
		}
		wait := pe.RetryAfter
		if wait <= 0 {
			wait = backoff(attempt, o.cfg.Rand())
		}
		if on.Retry != nil {
			on.Retry(attempt, wait, pe.retryReason())
		}
		if err := o.cfg.Sleep(ctx, wait); err != nil {
			return Completion{}, fmt.Errorf("%s stopped while waiting to retry: %w", words.request, err)
		}
	}
}

// attempt makes one request. delivered reports whether any part of the
// answer arrived (then the failure must not be retried).
func (o *OpenAI) attempt(ctx context.Context, body []byte, on StreamHandler) (comp Completion, delivered bool, err error) {
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The watchdog cancels the request after IdleTimeout without a byte;
	// idleReader pushes it back on every read. Bytes are not progress,
	// though: keep-alives would push it back forever, so a second
	// watchdog, pushed back only by a part of the answer, gives up after
	// KeepAliveTimeout.
	watchdog := time.AfterFunc(o.cfg.IdleTimeout, func() { cancel(errIdle) })
	defer watchdog.Stop()
	stalled := time.AfterFunc(o.cfg.KeepAliveTimeout, func() { cancel(errNoProgress) })
	defer stalled.Stop()

	httpReq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, o.url, bytes.NewReader(body))
	if err != nil {
		return Completion{}, false, fmt.Errorf("build chat request for %s: %w", o.url, err)
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
	r := &idleReader{r: resp.Body, reset: func() { watchdog.Reset(o.cfg.IdleTimeout) }}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, rerr := io.ReadAll(io.LimitReader(r, maxErrorBody))
		if rerr != nil && len(raw) == 0 {
			return Completion{}, false, o.transportError(reqCtx, rerr)
		}
		return Completion{}, false, httpError(resp.StatusCode, resp.Header, raw, o.cfg.Now())
	}

	acc := newAccumulator(o.cfg.NewCallID, o.cfg.Limits)
	switch ct := resp.Header.Get("Content-Type"); {
	case isMediaType(ct, "text/html"):
		// A web page where the API should be: a login portal or a base URL
		// that misses "/v1". Retrying will not change it.
		raw, _ := io.ReadAll(io.LimitReader(r, maxErrorBody))
		return Completion{}, false, &ProviderError{
			Kind:    ErrBadRequest,
			Message: "the server answered with a web page, not an API stream (check the base URL): " + summariseHTML(string(raw)),
		}
	case isMediaType(ct, "application/json"):
		return o.readWhole(reqCtx, r, acc, on)
	default:
		return o.readStream(reqCtx, r, acc, on, func() { stalled.Reset(o.cfg.KeepAliveTimeout) })
	}
}

// readStream consumes an SSE body.
// progressed is called after every chunk that carried part of the answer.
func (o *OpenAI) readStream(reqCtx context.Context, r io.Reader, acc *accumulator, on StreamHandler, progressed func()) (Completion, bool, error) {
	result := func() Completion {
		emit(on, acc.flush()) // shown before it is kept
		return acc.result()
	}
	events := newSSEReader(r)
	for {
		ev, err := events.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if acc.complete() && (reqCtx.Err() == nil || errors.Is(context.Cause(reqCtx), errIdle) || errors.Is(context.Cause(reqCtx), errNoProgress)) {
				// The answer was finished; only the trailer ([DONE], usage)
				// was lost to a dropped connection or to silence.
				break
			}
			if errors.Is(err, errSSELineTooLong) {
				return result(), acc.hasContent(), &ProviderError{Kind: ErrProvider, InStream: true, Message: err.Error()}
			}
			return result(), acc.hasContent(), o.transportError(reqCtx, err)
		}
		if ev.Event == "error" {
			return result(), acc.hasContent(), streamError([]byte(ev.Data), "the server sent an error event")
		}
		data := bytes.TrimSpace([]byte(ev.Data))
		if string(data) == "[DONE]" {
			acc.markDone()
			break
		}
		if len(data) == 0 {
			continue
		}
		before := acc.progress
		d, err := acc.add(data)
		if acc.progress != before {
			progressed()
		}
		emit(on, d)
		if err != nil {
			return result(), acc.hasContent(), err
		}
	}
	if !acc.complete() {
		return result(), acc.hasContent(), &ProviderError{
			Kind:      ErrStreamEndedEarly,
			Message:   "the stream ended early: the server closed it without [DONE] or a finish reason",
			Retryable: true,
		}
	}
	return result(), true, nil
}

// transportError classifies a failure of the exchange, naming the
// watchdog that ended it if one did.
func (o *OpenAI) transportError(reqCtx context.Context, err error) *ProviderError {
	if errors.Is(context.Cause(reqCtx), errNoProgress) {
		return &ProviderError{
			Kind:    ErrIdleTimeout,
			Message: "no progress from the server for " + formatWait(o.cfg.KeepAliveTimeout) + ": it sent only keep-alives or empty chunks",
		}
	}
	return transportError(reqCtx, o.cfg.IdleTimeout, err)
}

// readWhole consumes a JSON body from a server that ignored stream:true.
func (o *OpenAI) readWhole(reqCtx context.Context, r io.Reader, acc *accumulator, on StreamHandler) (Completion, bool, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxWholeBody))
	if err != nil {
		return Completion{}, false, o.transportError(reqCtx, err)
	}
	d, err := acc.addWhole(raw)
	emit(on, d)
	emit(on, acc.flush())
	if err != nil {
		return acc.result(), acc.hasContent(), err
	}
	return acc.result(), true, nil
}

func emit(on StreamHandler, d chunkDelta) {
	if d.reasoning != "" && on.Reasoning != nil {
		on.Reasoning(d.reasoning)
	}
	if d.text != "" && on.Text != nil {
		on.Text(d.text)
	}
}

// isMediaType reports whether a Content-Type header names the media type.
func isMediaType(contentType, want string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == want
}

// midAnswer rewords a connection that broke after part of the answer had
// arrived, in words a user reads at a glance: which host, that the answer
// stopped midway, and how much of it is kept ("the connection to
// api.example.com closed mid-answer (connection reset); 1.2k tokens kept").
// Other errors pass unchanged.
func (o *OpenAI) midAnswer(err error, comp Completion, words wireWords) error {
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.InStream {
		return err
	}
	what := "closed mid-answer"
	switch {
	case errors.Is(pe.Kind, ErrIdleTimeout):
		what = "went silent mid-answer"
	case !errors.Is(pe.Kind, ErrConnection) && !errors.Is(pe.Kind, ErrStreamEndedEarly):
		return err
	}
	host := o.host()
	kept := comp.Usage.OutputTokens
	if kept == 0 {
		kept = estimateTokens(comp.Message)
	}
	reason := pe.Message
	if errors.Is(pe.Kind, ErrStreamEndedEarly) {
		reason = "the stream ended early, without " + words.end
	}
	msg := fmt.Sprintf("the connection to %s %s (%s); %s tokens kept", host, what, reason, FormatTokens(kept))
	// The transport error is left out: the reason above already says it.
	return &ProviderError{Kind: pe.Kind, Status: pe.Status, Code: pe.Code, Message: msg, Retryable: pe.Retryable}
}

// unreached rewords a connection that failed before any of the answer
// arrived, naming the host in plain words instead of Go's transport error
// ("could not reach api.example.com (connection refused)"). Other errors
// pass unchanged.
func (o *OpenAI) unreached(err error, words wireWords) error {
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.InStream {
		return err
	}
	var what string
	switch {
	case errors.Is(pe.Kind, ErrIdleTimeout):
		what = "no answer from %s (%s)"
	case errors.Is(pe.Kind, ErrConnection) && pe.Message != reasonUnknown:
		what = "could not reach %s (%s)"
	case errors.Is(pe.Kind, ErrStreamEndedEarly):
		return &ProviderError{Kind: pe.Kind, Retryable: pe.Retryable,
			Message: "the stream ended early, before any answer from " + o.host() + ": the server closed it without " + words.end}
	default:
		// A failure without a plain name keeps Go's text: it is all there is.
		return err
	}
	// The transport error is left out: the reason already says it.
	return &ProviderError{Kind: pe.Kind, Status: pe.Status, Code: pe.Code, Message: fmt.Sprintf(what, o.host(), pe.Message), Retryable: pe.Retryable}
}

// host is the endpoint's host for messages, or its whole URL when it has none.
func (o *OpenAI) host() string {
	if u, err := url.Parse(o.url); err == nil && u.Host != "" {
		return u.Host
	}
	return o.url
}

// estimateTokens guesses the tokens of a partial answer (about four bytes
// each) when the server sent no usage before the stream broke.
func estimateTokens(m Message) int {
	n := len(m.Content) + len(m.Reasoning)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return (n + 3) / 4
}
