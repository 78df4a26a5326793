package agent

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHTTPErrorClassification(t *testing.T) {
	tests := map[string]struct {
		status    int
		body      string
		ctype     string
		kind      error
		retryable bool
		text      string // the whole Error(), or a part of it when partial
		partial   bool
	}{
		"openai context length": {
			400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, "",
			ErrContextLength, false,
			"the conversation is too long for the model's context window (HTTP 400): This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.", false,
		},
		"deepseek context length by message": {
			400, `{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70000 tokens.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`, "",
			ErrContextLength, false, "maximum context length is 65536", true,
		},
		"llama.cpp exceed_context_size_error": {
			400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`, "",
			ErrContextLength, false, "exceeds the available context size", true,
		},
		"vllm object error context": {
			400, `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages.","type":"BadRequestError","param":null,"code":400}`, "",
			ErrContextLength, false, "maximum context length is 32768", true,
		},
		"mistral object error": {
			400, `{"object":"error","message":"Unexpected role 'user' after role 'tool'","type":"invalid_request_message_order","param":null,"code":"3230"}`, "",
			ErrBadRequest, false, "the server rejected the request (HTTP 400): Unexpected role 'user' after role 'tool'", false,
		},
		"mistral 422 detail object": {
			422, `{"object":"error","message":{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required","input":{}}]},"type":"invalid_request_error","param":null,"code":null}`, "",
			ErrBadRequest, false, "the server rejected the request (HTTP 422): Field required", false,
		},
		"gemini array": {
			400, `[{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts.","status":"INVALID_ARGUMENT"}}]`, "",
			ErrBadRequest, false, "the server rejected the request (HTTP 400): Function call is missing a thought_signature in functionCall parts.", false,
		},
		"gemini 429 array": {
			429, `[{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}]`, "",
			ErrRateLimited, true, "rate limited (HTTP 429): Resource has been exhausted (e.g. check quota).", false,
		},
		"openai insufficient_quota": {
			429, `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, "",
			ErrQuota, false, "the account is out of quota or credits (HTTP 429): You exceeded your current quota.", false,
		},
		"openrouter 402": {
			402, `{"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/credits"}}`, "",
			ErrQuota, false, "Insufficient credits", true,
		},
		"openrouter upstream raw": {
			400, `{"error":{"code":400,"message":"Provider returned error","metadata":{"raw":"{\"error\":{\"message\":\"Invalid schema for function 'ls'\"}}","provider_name":"OpenAI"}}}`, "",
			ErrBadRequest, false, "Provider returned error: Invalid schema for function 'ls'", true,
		},
		"azure string code": {
			429, `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation have exceeded call rate limit. Please retry after 33 seconds."}}`, "",
			ErrRateLimited, true, "Please retry after 33 seconds", true,
		},
		"message array": {
			400, `{"error":{"message":["'$.tools[0].function.parameters' is invalid.","Please check the schema."],"type":"invalid_request_error"}}`, "",
			ErrBadRequest, false, "is invalid., Please check the schema.", true,
		},
		"bare error string": {
			500, `{"error":"Cannot use tools with stream"}`, "",
			ErrServer, true, "server error 500: Cannot use tools with stream", false,
		},
		"fastapi detail": {
			404, `{"detail":"Not Found"}`, "",
			ErrBadRequest, false, "the server rejected the request (HTTP 404): Not Found (check the base URL and the model name)", false,
		},
		"401": {
			401, `{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, "",
			ErrAuth, false, "the API key was rejected: check OPENAI_API_KEY (HTTP 401): Incorrect API key provided", true,
		},
		"403 plain": {
			403, "Forbidden", "text/plain",
			ErrAuth, false, "the API key was rejected: check OPENAI_API_KEY (HTTP 403): Forbidden", false,
		},
		"html 504 without title": {
			504, "<html><body><h1>504 Gateway Time-out</h1>\n<p>The server didn't respond in time.</p><script>var x = 1;</script></body></html>", "text/html",
			ErrServer, true, "server error 504: 504 Gateway Time-out The server didn't respond in time.", false,
		},
		"empty body": {
			503, "", "",
			ErrServer, true, "server error 503: Service Unavailable", false,
		},
		"long plain text is clipped": {
			500, strings.Repeat("word ", 400), "text/plain",
			ErrServer, true, "…", true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			if tc.ctype != "" {
				h.Set("Content-Type", tc.ctype)
			}
			e := httpError(tc.status, h, []byte(tc.body), time.Now())
			if !errors.Is(e, tc.kind) || e.Retryable != tc.retryable {
				t.Errorf("kind %v retryable %v, want %v %v", e.Kind, e.Retryable, tc.kind, tc.retryable)
			}
			got := e.Error()
			if (tc.partial && !strings.Contains(got, tc.text)) || (!tc.partial && got != tc.text) {
				t.Errorf("Error() = %q, want %q", got, tc.text)
			}
			if len(got) > 700 {
				t.Errorf("Error() is %d bytes: not summarised", len(got))
			}
		})
	}
}

func TestProviderErrorUnwrap(t *testing.T) {
	cause := fmt.Errorf("dial: %w", errors.New("refused"))
	e := &ProviderError{Kind: ErrConnection, Message: "connection refused", Err: cause, Retryable: true}
	wrapped := fmt.Errorf("after 4 attempts: %w", e)
	var pe *ProviderError
	if !errors.Is(wrapped, ErrConnection) || !errors.Is(wrapped, cause) || !errors.As(wrapped, &pe) {
		t.Fatalf("wrapped error does not unwrap: %v", wrapped)
	}
	if errors.Is(wrapped, ErrServer) {
		t.Errorf("a connection error matched ErrServer")
	}
	if want := "connection refused: dial: refused"; e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

func TestSummariseHTML(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"title":            {"<!DOCTYPE html><html><head><title>\n 502 Bad Gateway \n</title></head><body>x</body></html>", "502 Bad Gateway"},
		"empty title":      {"<html><head><title></title></head><body><p>Oops</p></body></html>", "Oops"},
		"style skipped":    {"<html><style>p{color:red}</style><p>Down</p></html>", "Down"},
		"unclosed tag":     {"<html><body>Gone <b", "Gone"},
		"unclosed comment": {"<html><script>never closed", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := summariseHTML(tc.in); got != tc.want {
				t.Errorf("summariseHTML = %q, want %q", got, tc.want)
			}
		})
	}
}
