package scripted

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Conversation is one scripted exchange: the requests it answers (Match) and
// the answer to give at each turn.
type Conversation struct {
	Name  string `yaml:"name"`
	Match Match  `yaml:"match"`
	// Turns[i] answers a request whose messages hold i assistant messages, so
	// a tool round trip is two turns: the call, then the answer after the
	// tool result came back.
	Turns []Turn `yaml:"turns"`
}

// Match selects the requests a Conversation answers. Empty fields match
// anything; when several conversations fit, the one with the most non-empty
// fields wins, and ties go to the first added.
type Match struct {
	FirstUser      string `yaml:"first_user"`      // substring of the first user message
	SystemContains string `yaml:"system_contains"` // substring of the system prompt
	Model          string `yaml:"model"`           // exact model name
}

// specificity counts the non-empty fields, the measure used to pick the
// most specific of several fitting conversations.
func (m Match) specificity() int {
	n := 0
	for _, f := range []string{m.FirstUser, m.SystemContains, m.Model} {
		if f != "" {
			n++
		}
	}
	return n
}

// fits reports whether a request with these parts satisfies m.
func (m Match) fits(firstUser, system, model string) bool {
	return strings.Contains(firstUser, m.FirstUser) &&
		strings.Contains(system, m.SystemContains) &&
		(m.Model == "" || m.Model == model)
}

// Turn is the answer to one request. The zero Turn streams an empty text
// answer; the failure fields (Status, Raw, DisconnectAfter, Stall) replace or
// cut the normal stream.
type Turn struct {
	// Text is streamed as content deltas.
	Text string `yaml:"text"`
	// Reasoning is streamed as reasoning_content deltas before Text.
	Reasoning string `yaml:"reasoning"`
	// ToolCalls are streamed OpenAI-style: a chunk with the id and name, then
	// argument fragments, one call after the other with index 0, 1, ...
	ToolCalls []Call `yaml:"tool_calls"`
	// Usage overrides the estimated token counts of the usage chunk.
	Usage *Usage `yaml:"usage"`
	// FinishReason overrides the finish_reason of the last chunk (default
	// "tool_calls" with calls, else "stop"), e.g. "length" or
	// "content_filter" for an answer the provider cut off.
	FinishReason string `yaml:"finish_reason"`
	// ChunkSize is the number of runes per content, reasoning or argument
	// delta (default 8).
	ChunkSize int `yaml:"chunk_size"`
	// Delay is waited before the response headers (time to first byte).
	Delay time.Duration `yaml:"delay"`
	// ChunkDelay is waited between events of the stream.
	ChunkDelay time.Duration `yaml:"chunk_delay"`

	// Status, when neither 0 nor 200, answers with this HTTP status, Body
	// (default an OpenAI-style error JSON) and Headers instead of a stream.
	Status int `yaml:"status"`
	// Headers are added to the response, e.g. Retry-After.
	Headers map[string]string `yaml:"headers"`
	// Body is the response body of a Status answer.
	Body string `yaml:"body"`
	// Raw is written verbatim as the SSE body (status 200, text/event-stream),
	// flushed after each "\n\n", to reproduce a provider's quirks byte by byte.
	Raw string `yaml:"raw"`
	// DisconnectAfter, when positive, closes the connection abruptly after
	// this many bytes of the stream body, so the client sees an unexpected EOF.
	DisconnectAfter int `yaml:"disconnect_after"`
	// Stall sends the headers, then nothing until the client goes away.
	Stall bool `yaml:"stall"`
	// Endless streams one kind of event without end, every ChunkDelay,
	// until the client goes away, to test what a client bounds: "text",
	// "reasoning" (Text, or a filler, again and again), "arguments" (one
	// call whose arguments never end), "calls" (call after call),
	// "keepalive" (SSE comments only) or "empty" (chunks with empty
	// deltas only).
	Endless string `yaml:"endless"`
	// Attempts are served, in order, for the 1st, 2nd, ... request of this
	// turn before the Turn itself, to script retries.
	Attempts []Turn `yaml:"attempts"`
	// Func, when set, decides the answer from the request (the demo inspects
	// tool results); the Func and Attempts of the Turn it returns are
	// ignored. It runs on the serving goroutine, concurrently with other
	// requests, and is Go-only: scripts cannot set it.
	Func func(Request) Turn `yaml:"-"`
	// Hold, when set, pauses the stream once its content deltas have sent
	// HoldAt runes of Text or more, until Hold is closed (or the client
	// goes away), so a test can look at a half-streamed answer for as long
	// as it takes rather than catch it in passing. Go-only, like Func.
	Hold   <-chan struct{} `yaml:"-"`
	HoldAt int             `yaml:"-"`
}

// Call is one tool call the scripted model makes.
type Call struct {
	// ID defaults to a generated "call_..." id.
	ID   string `yaml:"id"`
	Name string `yaml:"name"`
	// Args is sent verbatim when it is a string; any other value is
	// JSON-marshalled, and nil becomes "{}".
	Args any `yaml:"args"`
}

// Usage is the token counts reported in the usage chunk.
type Usage struct {
	Prompt     int `yaml:"prompt"`
	Completion int `yaml:"completion"`
	// Cached and Reasoning fill prompt_tokens_details.cached_tokens and
	// completion_tokens_details.reasoning_tokens.
	Cached    int `yaml:"cached"`
	Reasoning int `yaml:"reasoning"`
	// CacheWrite is the prompt written to the cache (Anthropic's
	// cache_creation_input_tokens; Prompt includes it, and Cached).
	CacheWrite int `yaml:"cache_write"`
}

// Validate reports the first problem that would make c unservable, so a
// script's mistake shows up when it is loaded rather than as a confusing
// stream.
func (c Conversation) Validate() error {
	if len(c.Turns) == 0 {
		return fmt.Errorf("conversation %q: no turns", c.Name)
	}
	for i, t := range c.Turns {
		if err := t.validate(); err != nil {
			return fmt.Errorf("conversation %q turn %d: %w", c.Name, i, err)
		}
	}
	return nil
}

func (t Turn) validate() error {
	switch {
	case t.Status != 0 && (t.Status < 100 || t.Status > 599):
		return fmt.Errorf("status %d out of range", t.Status)
	case t.ChunkSize < 0:
		return fmt.Errorf("negative chunk_size %d", t.ChunkSize)
	case t.DisconnectAfter < 0:
		return fmt.Errorf("negative disconnect_after %d", t.DisconnectAfter)
	case t.Delay < 0 || t.ChunkDelay < 0:
		return errors.New("negative delay")
	}
	for i, c := range t.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %d: no name", i)
		}
		if _, err := c.arguments(); err != nil {
			return fmt.Errorf("tool call %d (%s): %w", i, c.Name, err)
		}
	}
	for i, a := range t.Attempts {
		if err := a.validate(); err != nil {
			return fmt.Errorf("attempt %d: %w", i, err)
		}
	}
	return nil
}

// scriptDoc is the map form of a script: its conversations, and the
// context windows of the models the server plays.
type scriptDoc struct {
	Conversations []Conversation `yaml:"conversations"`
	// Windows are by model name; "" for every model without its own.
	Windows map[string]Window `yaml:"windows"`
}

// LoadWindows reads the windows of a script file in the map form
// (windows: {MODEL: {tokens: 8192, style: vllm}}), for Server.SetWindow;
// a list-form script has none.
func LoadWindows(path string) (map[string]Window, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, nil // a list of conversations has no windows
	}
	var doc scriptDoc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	for model, w := range doc.Windows {
		switch w.Style {
		case "", StyleOpenAI, StyleVLLM, StyleLlamaCpp, StyleOllama, StyleLMStudio:
		default:
			return nil, fmt.Errorf("load script %s: windows.%s: unknown style %q (openai, vllm, llamacpp, ollama, lmstudio)", path, model, w.Style)
		}
		if w.Tokens <= 0 {
			return nil, fmt.Errorf("load script %s: windows.%s: tokens must be positive", path, model)
		}
	}
	return doc.Windows, nil
}

// LoadScript reads conversations from a YAML or JSON file (YAML is a
// superset of JSON). The document is either a list of conversations or a map
// with a "conversations" list; field names are the snake_case forms of the
// Go names (first_user, tool_calls, chunk_delay: 300ms, ...).
func LoadScript(path string) ([]Conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	convs, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	return convs, nil
}

// ParseScript is LoadScript for bytes already in memory.
func ParseScript(data []byte) ([]Conversation, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if len(root.Content) == 0 {
		return nil, errors.New("empty script")
	}
	var (
		convs []Conversation
		err   error
	)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	// Unknown fields are errors: a misspelt "fist_user" would otherwise
	// silently match everything.
	dec.KnownFields(true)
	if root.Content[0].Kind == yaml.MappingNode {
		var doc scriptDoc
		err = dec.Decode(&doc)
		convs = doc.Conversations
	} else {
		err = dec.Decode(&convs)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if len(convs) == 0 {
		return nil, errors.New("no conversations")
	}
	for _, c := range convs {
		if err := c.Validate(); err != nil {
			return nil, err
		}
	}
	return convs, nil
}
