package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Placeholders the wire form puts where a server would otherwise reject the
// history.
const (
	// emptyToolOutput replaces an empty tool result: go-openai's omitempty
	// would drop the field, and several servers reject an empty content.
	emptyToolOutput = "(no output)"
	// missingToolResult answers a call that has no result in the history
	// (interrupted run): every server requires one result per call.
	missingToolResult = "(no result: the call was interrupted)"
	// continuingText is the assistant message put between a tool result and
	// a user message: Mistral rejects "user" right after "tool", and the
	// others do not mind.
	continuingText = "(continuing)"
)

// wireRequest is the body of POST /chat/completions. go-openai's
// ChatCompletionRequest cannot carry our messages (see wireMessage), so only
// its tool and stream-option types are reused.
type wireRequest struct {
	Model         string                `json:"model"`
	Messages      []wireMessage         `json:"messages"`
	Stream        bool                  `json:"stream"`
	StreamOptions *openai.StreamOptions `json:"stream_options,omitempty"`
	Tools         []openai.Tool         `json:"tools,omitempty"`
	MaxTokens     int                   `json:"max_tokens,omitempty"`
}

// wireMessage is one message as sent. Unlike go-openai's
// ChatCompletionMessage it can send content null (assistant tool calls),
// reasoning_content (DeepSeek's thinking mode requires it back) and opaque
// per-call fields (Gemini's extra_content).
type wireMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
	Name             string         `json:"name,omitempty"`
	// Parts, when set, is the content as parts (text and images) in
	// place of Content.
	Parts []wirePart `json:"-"`
}

// wirePart is one part of a message's content: text, or an image as a
// data URL (Chat Completions' image_url).
type wirePart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *wireImageURL `json:"image_url,omitempty"`
}

type wireImageURL struct {
	URL string `json:"url"`
}

// MarshalJSON writes the message, its content as parts when it has any.
func (m wireMessage) MarshalJSON() ([]byte, error) {
	type plain wireMessage
	var v any = plain(m)
	if m.Parts != nil {
		v = struct {
			plain
			Content []wirePart `json:"content"`
		}{plain(m), m.Parts}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// imageParts are text followed by images, as content parts.
func imageParts(text string, imgs []Image) []wirePart {
	parts := make([]wirePart, 0, len(imgs)+1)
	if text != "" {
		parts = append(parts, wirePart{Type: "text", Text: text})
	}
	for _, img := range imgs {
		if len(img.Data) == 0 {
			// Its bytes were not found (a session resumed without them):
			// the model reads the line instead.
			parts = append(parts, wirePart{Type: "text", Text: img.Line() + " (the image itself is no longer available)"})
			continue
		}
		url := "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
		parts = append(parts, wirePart{Type: "image_url", ImageURL: &wireImageURL{URL: url}})
	}
	return parts
}

// toolImagesText leads the user message that carries tool results'
// images: a tool message cannot hold an image on most servers.
const toolImagesText = "The images the tool calls above returned, in order:"

// wireToolCall is a call replayed in an assistant message.
type wireToolCall struct {
	ID, Name, Arguments string
	Extra               map[string]json.RawMessage
}

// MarshalJSON writes the call in OpenAI's shape, then each Extra field,
// sorted, so the body is stable. Extra never overrides the standard fields,
// and a field that is not valid JSON is left out rather than breaking the
// body.
func (c wireToolCall) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	writeJSONString(&b, c.ID)
	b.WriteString(`,"type":"function","function":{"name":`)
	writeJSONString(&b, c.Name)
	b.WriteString(`,"arguments":`)
	writeJSONString(&b, c.Arguments)
	b.WriteByte('}')
	keys := make([]string, 0, len(c.Extra))
	for k := range c.Extra {
		if !isKnownCallField(k) && json.Valid(c.Extra[k]) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteByte(',')
		writeJSONString(&b, k)
		b.WriteByte(':')
		if err := json.Compact(&b, c.Extra[k]); err != nil {
			return nil, fmt.Errorf("tool call %s field %s: %w", c.ID, k, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}

// encodeRequest builds the request body.
func encodeRequest(req Request, mistral bool) ([]byte, error) {
	body := wireRequest{
		Model:         req.Model,
		Messages:      wireMessages(req.Messages, mistral),
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		MaxTokens:     req.MaxTokens,
	}
	for _, t := range req.Tools {
		params := any(t.Parameters)
		if t.Parameters == nil {
			// "parameters": null is refused by several servers.
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		body.Tools = append(body.Tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // code is full of < > &; no browser reads this
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// isMistral reports whether the server enforces Mistral's rules on
// replayed tool-call ids.
func isMistral(providerName, baseURL string) bool {
	return strings.EqualFold(strings.TrimSpace(providerName), "mistral") ||
		strings.Contains(strings.ToLower(baseURL), "mistral")
}

// wireMessages turns covey's history into messages every server accepts:
// ids replaced or remapped consistently between calls and results, every
// call answered, no empty tool output, no user message right after a tool
// message.
func wireMessages(msgs []Message, mistral bool) []wireMessage {
	ids := newIDMapper(msgs, mistral)
	out := make([]wireMessage, 0, len(msgs)+2)
	var open []wireToolCall // calls of the last assistant message not yet answered
	var blankIDs []string   // wire ids given to calls that had none, awaiting their results
	callNames := map[string]string{}
	var toolImages []Image // images of the tool results just written
	closeCalls := func() {
		for _, c := range open {
			out = append(out, toolResult(c.ID, c.Name, missingToolResult))
		}
		open, blankIDs = nil, nil
		if len(toolImages) > 0 {
			out = append(out, wireMessage{Role: RoleUser, Parts: imageParts(toolImagesText, toolImages)})
			toolImages = nil
		}
	}
	for i, m := range msgs {
		if m.Role == RoleTool {
			id := ""
			if m.ToolCallID == "" && len(blankIDs) > 0 {
				id, blankIDs = blankIDs[0], blankIDs[1:]
			} else {
				id = ids.wire(m.ToolCallID, i, -1)
			}
			name := m.Name
			if name == "" {
				name = callNames[id]
			}
			content := m.Content
			if strings.TrimSpace(content) == "" {
				content = emptyToolOutput
			}
			out = append(out, toolResult(id, name, content))
			toolImages = append(toolImages, m.Images...)
			open = slices.DeleteFunc(open, func(c wireToolCall) bool { return c.ID == id })
			continue
		}
		closeCalls()
		if m.Role == RoleUser && len(out) > 0 && out[len(out)-1].Role == RoleTool {
			out = append(out, wireMessage{Role: RoleAssistant, Content: ptr(continuingText)})
		}
		wm := wireMessage{Role: m.Role, Content: ptr(m.Content)}
		if m.Role == RoleUser && len(m.Images) > 0 {
			wm.Parts = imageParts(m.Content, m.Images)
		}
		if m.Role == RoleAssistant {
			wm.ReasoningContent = m.Reasoning
			for j, c := range m.ToolCalls {
				wc := wireToolCall{ID: ids.wire(c.ID, i, j), Name: c.Name, Arguments: c.Arguments, Extra: c.Extra}
				if strings.TrimSpace(wc.Arguments) == "" {
					wc.Arguments = "{}"
				}
				if c.ID == "" {
					blankIDs = append(blankIDs, wc.ID)
				}
				callNames[wc.ID] = c.Name
				wm.ToolCalls = append(wm.ToolCalls, wc)
			}
			open = slices.Clone(wm.ToolCalls)
			if len(wm.ToolCalls) > 0 && m.Content == "" {
				// OpenAI and llama.cpp accept null beside tool_calls; an
				// empty string is what some servers choke on.
				wm.Content = nil
			}
		}
		out = append(out, wm)
	}
	closeCalls()
	return out
}

func toolResult(id, name, content string) wireMessage {
	return wireMessage{Role: RoleTool, Content: ptr(content), ToolCallID: id, Name: name}
}

func ptr[T any](v T) *T { return &v }

// idMapper gives each tool-call id its wire form: unchanged (empty ones
// replaced) for most servers, nine alphanumerics for Mistral, the same for
// the same id within one request.
type idMapper struct {
	mistral bool
	ids     map[string]string
	used    map[string]bool
}

func newIDMapper(msgs []Message, mistral bool) *idMapper {
	m := &idMapper{mistral: mistral, ids: map[string]string{}, used: map[string]bool{}}
	if mistral {
		// Ids already in Mistral's form keep it; reserve them so no remapped
		// id can collide with one.
		for _, msg := range msgs {
			for _, c := range msg.ToolCalls {
				if isMistralID(c.ID) {
					m.ids[c.ID], m.used[c.ID] = c.ID, true
				}
			}
		}
	}
	return m
}

// wire maps an id; an empty one gets a deterministic replacement named after
// its position (message i, call j; j < 0 for a tool result).
func (m *idMapper) wire(id string, i, j int) string {
	key := id
	if id == "" {
		key = "call_" + strconv.Itoa(i) + "_" + strconv.Itoa(max(j, 0))
	}
	if !m.mistral {
		return key
	}
	if v, ok := m.ids[key]; ok {
		return v
	}
	for salt := 0; ; salt++ {
		v := mistralID(key, salt)
		if !m.used[v] {
			m.ids[key], m.used[v] = v, true
			return v
		}
	}
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// mistralID derives nine alphanumerics from an id, deterministically.
func mistralID(id string, salt int) string {
	sum := sha256.Sum256([]byte(strconv.Itoa(salt) + ":" + id))
	out := make([]byte, 9)
	for i := range out {
		out[i] = alnum[int(sum[i])%len(alnum)]
	}
	return string(out)
}

func isMistralID(id string) bool {
	if len(id) != 9 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !strings.ContainsRune(alnum, rune(id[i])) {
			return false
		}
	}
	return true
}
