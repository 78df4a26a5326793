package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// The wire structs below fix the field order and null-versus-absent choices
// of OpenAI's stream, so tests can compare bytes. json.RawMessage fields with
// omitempty are absent when nil and carry a literal (null, "") otherwise.

type wireChunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []wireChoice    `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
}

type wireChoice struct {
	Index        int             `json:"index"`
	Delta        wireDelta       `json:"delta"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

type wireDelta struct {
	Role      string          `json:"role,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	Reasoning json.RawMessage `json:"reasoning_content,omitempty"`
	ToolCalls []wireCall      `json:"tool_calls,omitempty"`
	Refusal   json.RawMessage `json:"refusal,omitempty"`
}

type wireCall struct {
	Index    int          `json:"index"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
		AudioTokens  int `json:"audio_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens          int `json:"reasoning_tokens"`
		AudioTokens              int `json:"audio_tokens"`
		AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
		RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
	} `json:"completion_tokens_details"`
}

// wireCompletion is the non-streaming chat.completion answer.
type wireCompletion struct {
	ID                string           `json:"id"`
	Object            string           `json:"object"`
	Created           int64            `json:"created"`
	Model             string           `json:"model"`
	Choices           []wireFullChoice `json:"choices"`
	Usage             wireUsage        `json:"usage"`
	SystemFingerprint string           `json:"system_fingerprint"`
}

type wireFullChoice struct {
	Index        int             `json:"index"`
	Message      wireFullMessage `json:"message"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
}

type wireFullMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Reasoning json.RawMessage `json:"reasoning_content,omitempty"`
	ToolCalls []wireFullCall  `json:"tool_calls,omitempty"`
	Refusal   json.RawMessage `json:"refusal"`
}

// wireFullCall is a call in a non-streaming answer, which has no index.
type wireFullCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

// Literal JSON values; constants rather than RawMessage variables so no
// package-level state can be mutated.
const (
	jsonNull      = "null"
	jsonEmptyText = `""`
)

// marshal encodes v without HTML escaping: OpenAI sends "<" as is, and a
// byte-exact double must too.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// jsonString is marshal for a string, which cannot fail.
func jsonString(s string) json.RawMessage {
	b, _ := marshal(s)
	return b
}

// arguments is the argument text of c as sent on the wire.
func (c Call) arguments() (string, error) {
	switch a := c.Args.(type) {
	case nil:
		return "{}", nil
	case string:
		return a, nil
	default:
		b, err := marshal(a)
		if err != nil {
			return "", fmt.Errorf("marshal args: %w", err)
		}
		return string(b), nil
	}
}

// errorBody is an OpenAI-style error document.
func errorBody(message, typ, code string) []byte {
	var c any // OpenAI sends "code":null rather than ""
	if code != "" {
		c = code
	}
	b, _ := marshal(wireError{Error: wireErrorDetail{Message: message, Type: typ, Code: c}})
	return b
}

type wireError struct {
	Error wireErrorDetail `json:"error"`
}

type wireErrorDetail struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   any    `json:"param"`
	Code    any    `json:"code"`
}

// defaultErrorBody is what OpenAI answers for a status when the script gives
// no Body.
func defaultErrorBody(status int) []byte {
	switch status {
	case http.StatusBadRequest:
		return errorBody("Invalid request (scripted).", "invalid_request_error", "invalid_request")
	case http.StatusUnauthorized:
		return errorBody("Incorrect API key provided (scripted).", "invalid_request_error", "invalid_api_key")
	case http.StatusNotFound:
		return errorBody("The model does not exist or you do not have access to it (scripted).", "invalid_request_error", "model_not_found")
	case http.StatusTooManyRequests:
		return errorBody("Rate limit reached for requests (scripted). Please try again in 1s.", "requests", "rate_limit_exceeded")
	case http.StatusServiceUnavailable:
		return errorBody("The server is overloaded or not ready yet (scripted).", "server_error", "")
	default:
		return errorBody(fmt.Sprintf("The server had an error while processing your request (scripted status %d).", status), "server_error", "")
	}
}
