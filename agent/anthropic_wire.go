package agent

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// The request body of Anthropic's Messages API. Fields are written in a
// fixed order and maps (tool schemas) with sorted keys, so the same
// conversation always encodes to the same bytes: the prompt cache matches
// prefixes byte for byte.
type antRequest struct {
	Model        string       `json:"model"`
	MaxTokens    int          `json:"max_tokens"`
	Tools        []antTool    `json:"tools,omitempty"`
	System       []antBlock   `json:"system,omitempty"`
	Messages     []antMessage `json:"messages"`
	Thinking     *antThinking `json:"thinking,omitempty"`
	OutputConfig *antOutput   `json:"output_config,omitempty"`
	Stream       bool         `json:"stream"`
}

type antTool struct {
	Name         string         `json:"name"`
	Description  string         `json:"description,omitempty"`
	InputSchema  map[string]any `json:"input_schema"`
	CacheControl *antCache      `json:"cache_control,omitempty"`
}

type antThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type antOutput struct {
	Effort string `json:"effort"`
}

type antCache struct {
	Type string `json:"type"`
}

// ephemeral is the cache breakpoint every marked block carries.
var ephemeral = &antCache{Type: "ephemeral"}

type antMessage struct {
	Role    string     `json:"role"`
	Content []antBlock `json:"content"`
}

// antBlock is one content block. A native block (thinking, redacted
// thinking, as the server sent it) is written back as its raw bytes.
type antBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      string          `json:"content,omitempty"`
	Source       *antImageSource `json:"source,omitempty"`
	CacheControl *antCache       `json:"cache_control,omitempty"`
	// Parts, when set, is a tool_result's content as blocks (its text and
	// images) in place of Content.
	Parts []antBlock `json:"-"`

	raw json.RawMessage
}

// antImageSource is an image block's bytes, base64.
type antImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// antImages are the image blocks of imgs; an image whose bytes are gone
// (a resumed session lacking them) is its line, as text.
func antImages(imgs []Image) []antBlock {
	out := make([]antBlock, 0, len(imgs))
	for _, img := range imgs {
		if len(img.Data) == 0 {
			out = append(out, antBlock{Type: "text", Text: img.Line() + " (the image itself is no longer available)"})
			continue
		}
		out = append(out, antBlock{Type: "image", Source: &antImageSource{Type: "base64", MediaType: img.MediaType,
			Data: base64.StdEncoding.EncodeToString(img.Data)}})
	}
	return out
}

// MarshalJSON writes a native block verbatim and any other as its fields.
func (b antBlock) MarshalJSON() ([]byte, error) {
	if b.raw != nil {
		return b.raw, nil
	}
	type plain antBlock // without the method
	if b.Parts != nil {
		return marshalNoEscape(struct {
			plain
			Content []antBlock `json:"content"`
		}{plain(b), b.Parts})
	}
	return marshalNoEscape(plain(b))
}

// marshalNoEscape encodes v without escaping <, > and & (a thinking
// block's text goes back as it came).
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// maxCacheBreakpoints is the API's bound on cache_control marks.
const maxCacheBreakpoints = 4

// encodeAnthropic builds the body of one request. Cache breakpoints go on
// the last tool, the system prompt's block, and the last block of the last
// two user messages: the latest one writes the cache for the whole
// conversation, and the one before reads what the previous request wrote,
// however many blocks the turn added. They move forward each turn; what
// comes before them never changes.
func encodeAnthropic(req Request, r Reasoning) ([]byte, error) {
	body := antRequest{Model: req.Model, Stream: true}
	var system []string
	var msgs []Message
	for i, m := range req.Messages {
		if m.Role == RoleSystem && len(msgs) == 0 && i == len(system) {
			system = append(system, m.Content)
			continue
		}
		msgs = append(msgs, m)
	}
	for _, s := range system {
		if s != "" {
			body.System = append(body.System, antBlock{Type: "text", Text: s})
		}
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if schema == nil {
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		body.Tools = append(body.Tools, antTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	body.Messages = antMessages(msgs)
	marks := 0
	if n := len(body.Tools); n > 0 {
		body.Tools[n-1].CacheControl = ephemeral
		marks++
	}
	if n := len(body.System); n > 0 {
		body.System[n-1].CacheControl = ephemeral
		marks++
	}
	if req.ReusePrefix {
		markPrefixEnd(body.Messages, marks)
	} else {
		markLastUsers(body.Messages, len(body.Messages), marks)
	}
	body.MaxTokens = anthropicMaxTokens(req)
	if r.Budget > 0 {
		body.Thinking = &antThinking{Type: "enabled", BudgetTokens: r.Budget}
		if body.MaxTokens <= r.Budget {
			// The answer must have room beyond the thinking.
			body.MaxTokens = r.Budget + defaultAnthropicMaxTokens
		}
	}
	if r.Effort != "" {
		body.OutputConfig = &antOutput{Effort: r.Effort}
	}
	return marshalNoEscape(body)
}

// markLastUsers puts a cache breakpoint on the last block of each of the
// last user messages before msgs[end], while marks stay under the API's
// bound.
func markLastUsers(msgs []antMessage, end, marks int) {
	for i := end - 1; i >= 0 && marks < maxCacheBreakpoints; i-- {
		m := msgs[i]
		if m.Role != RoleUser || len(m.Content) == 0 {
			continue
		}
		last := &m.Content[len(m.Content)-1]
		if last.raw == nil {
			last.CacheControl = ephemeral
			marks++
		}
	}
}

// markPrefixEnd marks a request that asks its last block (the question)
// of the conversation before it: the block before the question, which
// writes the cache for the whole conversation, and the last block of the
// last user message before that one, where the previous turn wrote it.
// The question itself is not marked: nothing will read it again.
func markPrefixEnd(msgs []antMessage, marks int) {
	mi := len(msgs) - 1
	if mi < 0 {
		return
	}
	bi := len(msgs[mi].Content) - 2 // the block before the question
	for ; mi >= 0; mi-- {
		if mi < len(msgs)-1 {
			bi = len(msgs[mi].Content) - 1
		}
		for ; bi >= 0; bi-- {
			if b := &msgs[mi].Content[bi]; b.raw == nil && b.Type != "thinking" && b.Type != "redacted_thinking" {
				if marks < maxCacheBreakpoints {
					b.CacheControl = ephemeral
					marks++
				}
				markLastUsers(msgs, mi, marks)
				return
			}
		}
	}
}

// anthropicMaxTokens is max_tokens, which the API requires: the user's
// cap, else the room the window keeps for an answer, else a default.
func anthropicMaxTokens(req Request) int {
	switch {
	case req.MaxTokens > 0:
		return req.MaxTokens
	case req.OutputRoom > 0:
		return req.OutputRoom
	}
	return defaultAnthropicMaxTokens
}

// antMessages puts covey's history in the API's form: tool results become
// tool_result blocks of a user message (the results of one answer's
// parallel calls in one message), an assistant message is its thinking
// blocks (verbatim), its text and its tool_use blocks; messages of one
// role in a row are joined, as the API wants roles to alternate.
func antMessages(msgs []Message) []antMessage {
	var out []antMessage
	add := func(role string, blocks ...antBlock) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, antMessage{Role: role, Content: blocks})
	}
	for _, m := range msgs {
		switch m.Role {
		case RoleAssistant:
			add(RoleAssistant, assistantBlocks(m)...)
		case RoleTool:
			res := antBlock{Type: "tool_result", ToolUseID: antID(m.ToolCallID), Content: nonEmpty(m.Content)}
			if len(m.Images) > 0 {
				// An image a tool returned goes inside its tool_result.
				res.Parts = append([]antBlock{{Type: "text", Text: res.Content}}, antImages(m.Images)...)
				res.Content = ""
			}
			add(RoleUser, res)
		default: // user, and a system message past the start
			add(RoleUser, append([]antBlock{{Type: "text", Text: nonEmpty(m.Content)}}, antImages(m.Images)...)...)
		}
	}
	return out
}

// assistantBlocks are an assistant message's blocks: thinking first (the
// API wants it back before the tool use it preceded), then text, then
// the calls.
func assistantBlocks(m Message) []antBlock {
	var blocks []antBlock
	for _, raw := range m.Native.For(APIAnthropic) {
		blocks = append(blocks, antBlock{raw: raw})
	}
	if strings.TrimSpace(m.Content) != "" {
		blocks = append(blocks, antBlock{Type: "text", Text: m.Content})
	}
	for _, c := range m.ToolCalls {
		input := json.RawMessage(strings.TrimSpace(c.Arguments))
		if len(input) == 0 || input[0] != '{' || !json.Valid(input) {
			// The loop answered the call with the parse error; the API
			// takes only an object.
			input = json.RawMessage("{}")
		}
		blocks = append(blocks, antBlock{Type: "tool_use", ID: antID(c.ID), Name: c.Name, Input: input})
	}
	return blocks
}

// nonEmpty stands in for empty text, which the API refuses.
func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}

// antID makes a call id another wire produced acceptable to the API
// (letters, digits, _ and - only), the same way for the call and its
// result.
func antID(id string) string {
	ok := id != ""
	for i := 0; i < len(id) && ok; i++ {
		c := id[i]
		ok = c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "toolu_none"
	}
	return string(b)
}
