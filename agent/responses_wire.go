package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// responsesRequest is the body of POST /responses. Its fields are written
// in this order every time, and the input grows only at its end, so the
// bytes before the newest items never change within a session: the
// prompt cache (keyed by prompt_cache_key) keeps the prefix.
type responsesRequest struct {
	Model           string              `json:"model"`
	Instructions    string              `json:"instructions,omitempty"`
	Input           []json.RawMessage   `json:"input"`
	Tools           []responsesTool     `json:"tools,omitempty"`
	Stream          bool                `json:"stream"`
	Store           bool                `json:"store"`
	Include         []string            `json:"include,omitempty"`
	PromptCacheKey  string              `json:"prompt_cache_key,omitempty"`
	Reasoning       *responsesReasoning `json:"reasoning,omitempty"`
	MaxOutputTokens int                 `json:"max_output_tokens,omitempty"`
}

// responsesTool is a function tool. Strict is sent false: the Responses
// API would otherwise hold every schema to its strict subset.
type responsesTool struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters"`
	Strict      bool   `json:"strict"`
}

// responsesReasoning asks for an effort and for summaries, which covey
// shows folded as it shows reasoning on every wire.
type responsesReasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary"`
}

// includeEncryptedReasoning asks for reasoning items that can be sent
// back: with store false the server keeps nothing between requests.
const includeEncryptedReasoning = "reasoning.encrypted_content"

// encodeResponsesRequest builds the request body; effort is the model's
// reasoning effort from config ("" leaves it to the server).
func encodeResponsesRequest(req Request, effort string) ([]byte, error) {
	instructions, input, err := responsesInput(req.Messages)
	if err != nil {
		return nil, err
	}
	body := responsesRequest{
		Model:           req.Model,
		Instructions:    instructions,
		Input:           input,
		Stream:          true,
		Store:           false,
		PromptCacheKey:  req.CacheKey,
		MaxOutputTokens: req.MaxTokens,
	}
	if effort != "" || reasons(req.Model) {
		// A model that does not reason refuses both.
		body.Reasoning = &responsesReasoning{Effort: effort, Summary: "auto"}
		body.Include = []string{includeEncryptedReasoning}
	}
	for _, t := range req.Tools {
		params := any(t.Parameters)
		if t.Parameters == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		body.Tools = append(body.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // code is full of < > &; no browser reads this
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("encode responses request: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// reasons reports whether a model is one of OpenAI's reasoning models
// (o-series, gpt-5 and its codex models, gpt-oss), which take the
// reasoning parameter and return encrypted reasoning; others refuse both,
// so they are sent to them only when the config sets an effort.
func reasons(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // openai/gpt-5 behind a gateway
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex", "gpt-oss"} {
		if strings.HasPrefix(m, p) || (p == "codex" && strings.Contains(m, p)) {
			return true
		}
	}
	return false
}

// Input items, written by hand: their fields in a fixed order, and a
// reasoning item exactly as the server sent it.
type (
	responsesMessage struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	responsesText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	responsesCall struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	responsesOutput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
)

// responsesInput turns covey's history into instructions (the first
// system message) and input items that the API accepts: each assistant
// message's reasoning items (when this wire made them) before its text and
// calls, every call answered once by a function_call_output with its
// call_id, no empty output, and ids given to calls that had none.
func responsesInput(msgs []Message) (string, []json.RawMessage, error) {
	instructions := ""
	out := make([]json.RawMessage, 0, len(msgs)+2)
	add := func(v any) error {
		b, err := marshalItem(v)
		if err == nil {
			out = append(out, b)
		}
		return err
	}
	var open []string     // call ids of the last assistant message not yet answered
	var blankIDs []string // ids given to calls that had none, awaiting their results
	closeCalls := func() error {
		for _, id := range open {
			if err := add(responsesOutput{Type: "function_call_output", CallID: id, Output: missingToolResult}); err != nil {
				return err
			}
		}
		open, blankIDs = nil, nil
		return nil
	}
	for i, m := range msgs {
		var err error
		switch {
		case m.Role == RoleTool:
			id := m.ToolCallID
			if id == "" && len(blankIDs) > 0 {
				id, blankIDs = blankIDs[0], blankIDs[1:]
			} else if id == "" {
				id = "call_" + strconv.Itoa(i) + "_0"
			}
			content := m.Content
			if strings.TrimSpace(content) == "" {
				content = emptyToolOutput
			}
			open = slices.DeleteFunc(open, func(c string) bool { return c == id })
			err = add(responsesOutput{Type: "function_call_output", CallID: id, Output: content})
		case m.Role == RoleSystem && i == 0:
			instructions = m.Content
		default:
			if err = closeCalls(); err != nil {
				return "", nil, err
			}
			err = addMessage(m, i, add, &open, &blankIDs, &out)
		}
		if err != nil {
			return "", nil, err
		}
	}
	if err := closeCalls(); err != nil {
		return "", nil, err
	}
	return instructions, out, nil
}

// addMessage writes a user, system or assistant message's items.
func addMessage(m Message, i int, add func(any) error, open, blankIDs *[]string, out *[]json.RawMessage) error {
	switch m.Role {
	case RoleAssistant:
		for _, it := range m.Native.For(APIResponses) {
			if json.Valid(it) {
				*out = append(*out, it) // verbatim: encrypted_content unchanged
			}
		}
		if m.Content != "" {
			if err := add(responsesMessage{Type: "message", Role: RoleAssistant,
				Content: []responsesText{{Type: "output_text", Text: m.Content}}}); err != nil {
				return err
			}
		}
		for j, c := range m.ToolCalls {
			id := c.ID
			if id == "" {
				id = "call_" + strconv.Itoa(i) + "_" + strconv.Itoa(j)
				*blankIDs = append(*blankIDs, id)
			}
			args := c.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			*open = append(*open, id)
			if err := add(responsesCall{Type: "function_call", CallID: id, Name: c.Name, Arguments: args}); err != nil {
				return err
			}
		}
		return nil
	case RoleSystem:
		// A system message after the first (none today) is the developer's.
		return add(responsesMessage{Type: "message", Role: "developer", Content: m.Content})
	default:
		return add(responsesMessage{Type: "message", Role: m.Role, Content: m.Content})
	}
}

// marshalItem encodes one input item without HTML escaping.
func marshalItem(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode responses input: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
