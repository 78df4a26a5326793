package agent

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"covey/internal/excerpt"
)

// Kinds of provider failure. Every *ProviderError unwraps to exactly one of
// them, so callers branch with errors.Is (for instance to compact the
// conversation on ErrContextLength) without parsing messages.
var (
	// ErrAuth means the server refused the credentials (HTTP 401 or 403).
	ErrAuth = errors.New("the API key was rejected")
	// ErrQuota means the account has no quota or credits left (insufficient_quota, HTTP 402).
	ErrQuota = errors.New("the account is out of quota or credits")
	// ErrContextLength means the conversation no longer fits the model's context window.
	ErrContextLength = errors.New("the conversation is too long for the model's context window")
	// ErrRateLimited means the server asked us to slow down (HTTP 429 without a quota problem).
	ErrRateLimited = errors.New("rate limited")
	// ErrServer means the server failed (5xx, 408, 409, or a server error inside a stream).
	ErrServer = errors.New("server error")
	// ErrBadRequest means the server rejected the request for another reason (other 4xx).
	ErrBadRequest = errors.New("the server rejected the request")
	// ErrConnection means the request never got a complete answer from the network.
	ErrConnection = errors.New("connection failed")
	// ErrIdleTimeout means no byte at all arrived for the configured idle timeout.
	ErrIdleTimeout = errors.New("no data from the server")
	// ErrStreamEndedEarly means the stream stopped without [DONE] and without a
	// finish reason. The partial answer is returned alongside it.
	ErrStreamEndedEarly = errors.New("the stream ended early")
	// ErrStreamLimit means the answer passed one of the stream's caps (see
	// StreamLimits); the part before the cap is returned alongside it.
	ErrStreamLimit = errors.New("the answer passed a size limit")
	// ErrProvider is an error reported inside a 200 stream that fits no other kind.
	ErrProvider = errors.New("provider error")
)

// ProviderError is a failed chat completion, classified. Stream returns it
// (possibly wrapped) for every failure that is not a cancellation.
type ProviderError struct {
	// Kind is one of the Err* sentinels of this package; errors.Is matches it.
	Kind error
	// Status is the HTTP status, or the numeric code of an error sent inside a
	// stream; 0 when there was none.
	Status int
	// Code is the provider's error code or type, e.g. "insufficient_quota".
	Code string
	// Message is the provider's own message, summarised (HTML pages are cut
	// down to their title, long bodies are truncated).
	Message string
	// InStream is true for errors that arrived inside a 200 response.
	InStream bool
	// Retryable reports whether the same request may succeed if sent again.
	Retryable bool
	// RetryAfter is the wait the server asked for (Retry-After or
	// retry-after-ms, capped at 60s); 0 when it asked for none.
	RetryAfter time.Duration
	// Err is the underlying transport error, if any.
	Err error
	// KeyEnv names the variable whose key a rejection is about
	// (ANTHROPIC_API_KEY on Anthropic's wire); "" names OPENAI_API_KEY.
	KeyEnv string
	// ContextLimit is the context window in tokens that an ErrContextLength
	// error names ("maximum context length is 8192 tokens", llama.cpp's
	// n_ctx); 0 when it names none.
	ContextLimit int
}

// Error describes the failure in words a user can act on.
func (e *ProviderError) Error() string {
	msg := e.Message
	if e.InStream {
		if msg == "" {
			msg = e.Kind.Error()
		}
		return "provider error: " + msg
	}
	status := ""
	if e.Status != 0 {
		status = " (HTTP " + strconv.Itoa(e.Status) + ")"
	}
	var s string
	//nolint:errorlint // Kind is one of this package's sentinels, never wrapped
	switch e.Kind {
	case ErrAuth:
		s = "the API key was rejected: check " + keyEnvName(e.KeyEnv) + status
	case ErrServer:
		s = "server error"
		if e.Status != 0 {
			s += " " + strconv.Itoa(e.Status)
		}
	case ErrConnection, ErrIdleTimeout, ErrStreamEndedEarly, ErrStreamLimit:
		s = msg
		msg = ""
	default:
		s = e.Kind.Error() + status
	}
	if msg != "" {
		s += ": " + msg
	}
	if e.Status == http.StatusNotFound {
		s += " (check the base URL and the model name)"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes the kind and the transport error to errors.Is and errors.As.
func (e *ProviderError) Unwrap() []error {
	errs := []error{e.Kind}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// errInfo is what an error body says, whatever its shape.
type errInfo struct {
	Message string
	Code    string // the code as text (string or number), or ""
	Type    string
	Status  int // a numeric code carried in the body, or 0
	// NCtx is llama.cpp's n_ctx, sent beside an overflow error.
	NCtx int
}

// maxErrorMessage bounds the provider text quoted in an error.
const maxErrorMessage = 500

// httpError classifies a non-2xx response.
func httpError(status int, h http.Header, body []byte, now time.Time) *ProviderError {
	info := describeErrorBody(body, h.Get("Content-Type"))
	if info.Message == "" {
		info.Message = http.StatusText(status)
	}
	e := classifyError(status, info, false)
	e.RetryAfter = retryAfter(h, now)
	if !errors.Is(e.Kind, ErrAuth) && !errors.Is(e.Kind, ErrQuota) && !errors.Is(e.Kind, ErrContextLength) {
		// OpenAI's own override: the server knows best whether a retry can help.
		switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
		case "true":
			e.Retryable = true
		case "false":
			e.Retryable = false
		}
	}
	return e
}

// streamError turns an error payload found inside a 200 stream into a
// classified error. fallback is used when the payload carries no message.
func streamError(payload []byte, fallback string) *ProviderError {
	info := describeErrorBody(payload, "")
	if info.Message == "" {
		info.Message = fallback
	}
	return classifyError(info.Status, info, true)
}

// classifyError picks the kind and whether a retry may help.
func classifyError(status int, info errInfo, inStream bool) *ProviderError {
	e := &ProviderError{Status: status, Message: info.Message, InStream: inStream, Code: info.Code}
	if e.Code == "" {
		e.Code = info.Type
	}
	code := strings.ToLower(info.Code)
	typ := strings.ToLower(info.Type)
	msg := strings.ToLower(info.Message)
	switch {
	case code == "insufficient_quota" || typ == "insufficient_quota" || status == http.StatusPaymentRequired:
		// Checked before 429: OpenAI answers 429 for an empty account, and
		// waiting will not refill it.
		e.Kind = ErrQuota
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		code == "invalid_api_key" || typ == "authentication_error":
		e.Kind = ErrAuth
	case status != http.StatusTooManyRequests && isContextOverflow(code, typ, msg):
		e.Kind = ErrContextLength
		e.ContextLimit = info.NCtx
		if e.ContextLimit == 0 {
			e.ContextLimit = contextLimit(info.Message)
		}
	case status == http.StatusTooManyRequests || code == "rate_limit_exceeded" || typ == "rate_limit_error":
		e.Kind, e.Retryable = ErrRateLimited, true
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		e.Kind, e.Retryable = ErrServer, true
	case status >= 400:
		e.Kind = ErrBadRequest
	case inStream && isServerSideCode(code, typ):
		e.Kind, e.Retryable = ErrServer, true
	default:
		e.Kind = ErrProvider
	}
	return e
}

// isContextOverflow tells a context-window error apart from other 400s. The
// servers disagree on codes (DeepSeek uses invalid_request_error, vLLM sends
// no code at all), so the message text decides when the code does not.
func isContextOverflow(code, typ, msg string) bool {
	switch {
	case code == "context_length_exceeded", typ == "exceed_context_size_error",
		code == "exceed_context_size_error", typ == "context_length_exceeded":
		return true
	}
	for _, p := range []string{
		"maximum context length", "context length", "context_length", "context window",
		"context size", "prompt is too long", "input is too long", "too many input tokens",
		"exceeds the maximum number of tokens",
	} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// contextLimits find the window an overflow message names, in the words
// of OpenAI, vLLM, DeepSeek and Groq; LM Studio; Anthropic-style
// gateways; Gemini; Mistral; and llama.cpp's text. They are compiled on
// first use (an overflow): at package init they cost every covey start,
// --version included, some 0.23 M instructions.
var contextLimits = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`maximum context length (?:is|of) ([\d,]+)`),
		regexp.MustCompile(`context length of only ([\d,]+)`),
		regexp.MustCompile(`tokens? > ([\d,]+) maximum`),
		regexp.MustCompile(`maximum number of tokens allowed \(([\d,]+)\)`),
		regexp.MustCompile(`for model with ([\d,]+) maximum context length`),
		regexp.MustCompile(`context (?:window|size|length) (?:is|of) ([\d,]+) tokens`),
		regexp.MustCompile(`n_ctx(?:_slot)?\W{0,3}([\d,]+)`),
	}
})

// contextLimit returns the window an overflow message names, or 0.
func contextLimit(msg string) int {
	lower := strings.ToLower(msg)
	for _, re := range contextLimits() {
		m := re.FindStringSubmatch(lower)
		if m == nil {
			continue
		}
		if n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// isServerSideCode reports whether an in-stream error's code or type names a
// failure on the server's side (worth a retry when nothing was delivered).
func isServerSideCode(code, typ string) bool {
	for _, s := range []string{code, typ} {
		for _, p := range []string{"server", "internal", "overloaded", "unavailable", "timeout", "disconnect"} {
			if strings.Contains(s, p) {
				return true
			}
		}
	}
	return false
}

// describeErrorBody extracts a message from any error body real servers send:
// OpenAI's {"error":{...}}, a bare {"error":"text"}, Mistral/vLLM
// {"object":"error","message":...}, Gemini's JSON array, FastAPI's
// {"detail":...}, HTML error pages and plain text.
func describeErrorBody(body []byte, contentType string) errInfo {
	trimmed := strings.TrimSpace(string(body))
	if trimmed == "" {
		return errInfo{}
	}
	if trimmed[0] == '{' || trimmed[0] == '[' || trimmed[0] == '"' {
		if info, ok := parseErrorJSON(json.RawMessage(trimmed), 0); ok {
			return info
		}
	}
	if strings.Contains(strings.ToLower(contentType), "html") || looksLikeHTML(trimmed) {
		return errInfo{Message: summariseHTML(trimmed)}
	}
	return errInfo{Message: excerpt.Clip(collapseSpace(trimmed), maxErrorMessage)}
}

// parseErrorJSON reads the error shapes; depth bounds recursion through
// arrays and OpenRouter's metadata.raw.
func parseErrorJSON(raw json.RawMessage, depth int) (errInfo, bool) {
	if depth > 3 {
		return errInfo{}, false
	}
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 {
		return errInfo{}, false
	}
	if raw[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return errInfo{}, false
		}
		for _, it := range items {
			if info, ok := parseErrorJSON(it, depth+1); ok {
				return info, true
			}
		}
		return errInfo{}, false
	}
	if raw[0] == '"' {
		return errInfo{Message: excerpt.Clip(rawText(raw), maxErrorMessage)}, true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return errInfo{}, false
	}
	if inner, ok := m["error"]; ok && !isNull(inner) {
		info := parseInnerError(inner, depth)
		if info.Message == "" {
			info.Message = excerpt.Clip(rawText(m["message"]), maxErrorMessage)
		}
		return info, true
	}
	if msg, ok := m["message"]; ok || rawText(m["object"]) == "error" {
		info := errInfo{
			Message: excerpt.Clip(rawText(msg), maxErrorMessage),
			Type:    rawText(m["type"]),
			Code:    rawScalar(m["code"]),
		}
		info.Status = statusOf(m["code"])
		return info, true
	}
	if d, ok := m["detail"]; ok {
		return errInfo{Message: excerpt.Clip(rawText(d), maxErrorMessage)}, true
	}
	return errInfo{}, false
}

// parseInnerError reads the value of an "error" field: a string, or an
// object in go-openai's APIError shape (message possibly an array, code a
// string or a number), with Gemini's "status" and OpenRouter's metadata.raw.
func parseInnerError(inner json.RawMessage, depth int) errInfo {
	if inner[0] != '{' {
		return errInfo{Message: excerpt.Clip(rawText(inner), maxErrorMessage)}
	}
	var info errInfo
	var resp openai.ErrorResponse
	wrapped := append(append([]byte(`{"error":`), inner...), '}')
	if json.Unmarshal(wrapped, &resp) == nil && resp.Error != nil {
		info.Message = resp.Error.Message
		info.Type = resp.Error.Type
		switch c := resp.Error.Code.(type) {
		case int:
			info.Code, info.Status = strconv.Itoa(c), httpStatusLike(c)
		case string:
			info.Code = c
		}
		if info.Code == "" && resp.Error.InnerError != nil {
			info.Code = resp.Error.InnerError.Code
		}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(inner, &m) != nil {
		return info
	}
	if info.Message == "" {
		info.Message = rawText(m["message"])
	}
	if info.Code == "" {
		info.Code = rawScalar(m["code"])
		info.Status = statusOf(m["code"])
	}
	if info.Type == "" {
		info.Type = rawText(m["type"])
	}
	if info.Type == "" {
		info.Type = rawText(m["status"]) // Gemini: "INVALID_ARGUMENT"
	}
	if n, ok := rawInt(m["n_ctx"]); ok && n > 0 {
		info.NCtx = n
	}
	// OpenRouter wraps the upstream provider's body in metadata.raw; its
	// message is usually the useful one.
	var meta struct {
		Raw json.RawMessage `json:"raw"`
	}
	if md, ok := m["metadata"]; ok && json.Unmarshal(md, &meta) == nil && len(meta.Raw) > 0 {
		up := meta.Raw
		if up[0] == '"' {
			up = json.RawMessage(rawText(up))
		}
		if upInfo, ok := parseErrorJSON(up, depth+1); ok && upInfo.Message != "" && upInfo.Message != info.Message {
			info.Message += ": " + upInfo.Message
		}
	}
	info.Message = excerpt.Clip(info.Message, maxErrorMessage)
	return info
}

// statusOf reads a numeric code that looks like an HTTP status.
func statusOf(raw json.RawMessage) int {
	if n, ok := rawInt(raw); ok {
		return httpStatusLike(n)
	}
	if s := rawText(raw); len(s) == 3 {
		if n, err := strconv.Atoi(s); err == nil {
			return httpStatusLike(n) // Azure sends "429" as a string
		}
	}
	return 0
}

func httpStatusLike(n int) int {
	if n >= 400 && n <= 599 {
		return n
	}
	return 0
}

// rawText renders a JSON value as message text: strings as is, arrays
// joined, objects by their msg/message/detail, anything else compactly.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || isNull(raw) {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) == nil {
			parts := make([]string, 0, len(items))
			for _, it := range items {
				if t := rawText(it); t != "" {
					parts = append(parts, t)
				}
			}
			return strings.Join(parts, ", ")
		}
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			for _, k := range []string{"msg", "message", "detail"} {
				if t := rawText(m[k]); t != "" {
					return t
				}
			}
		}
	}
	return excerpt.Clip(collapseSpace(string(raw)), maxErrorMessage)
}

// rawScalar renders a string or number as text, anything else as "".
func rawScalar(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		return rawText(raw)
	}
	if n, ok := rawInt(raw); ok {
		return strconv.Itoa(n)
	}
	return ""
}

func looksLikeHTML(s string) bool {
	head := strings.ToLower(excerpt.Clip(s, 512))
	return strings.HasPrefix(head, "<!doctype") || strings.Contains(head, "<html") ||
		strings.Contains(head, "<head") || strings.Contains(head, "<body")
}

// summariseHTML reduces an error page (a proxy's 502 or 504) to its title or
// its first words, so the user sees "502 Bad Gateway" and not the markup.
func summariseHTML(s string) string {
	lower := strings.ToLower(s)
	if i := strings.Index(lower, "<title"); i >= 0 {
		if j := strings.Index(lower[i:], ">"); j >= 0 {
			start := i + j + 1
			if k := strings.Index(lower[start:], "</title"); k >= 0 {
				if t := collapseSpace(s[start : start+k]); t != "" {
					return excerpt.Clip(t, 200)
				}
			}
		}
	}
	return excerpt.Clip(collapseSpace(stripTags(s)), 200)
}

// stripTags drops markup, script and style bodies included.
func stripTags(s string) string {
	var b strings.Builder
	lower := strings.ToLower(s)
	for i := 0; i < len(s); {
		if s[i] != '<' {
			b.WriteByte(s[i])
			i++
			continue
		}
		for _, skip := range []string{"script", "style"} {
			if strings.HasPrefix(lower[i+1:], skip) {
				end := strings.Index(lower[i:], "</"+skip)
				if end < 0 {
					return b.String() // never closed: the rest is code, not text
				}
				i += end + 1
			}
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			break
		}
		i += end + 1
		b.WriteByte(' ')
	}
	return b.String()
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// keyEnvName is the key variable an auth error names: keyEnv, or
// OPENAI_API_KEY.
func keyEnvName(keyEnv string) string {
	if keyEnv == "" {
		return "OPENAI_API_KEY"
	}
	return keyEnv
}
