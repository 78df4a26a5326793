package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"covey/internal/excerpt"
)

// Stop reasons only Anthropic gives, kept as the run's reason (see
// CutOffNote).
const (
	// StopRefusal: the model declined to answer (stop_reason refusal).
	StopRefusal = "refusal"
	// StopPaused: the server paused a long turn (stop_reason pause_turn).
	StopPaused = "pause_turn"
)

// anthropicAcc assembles the events of one Messages stream into a
// Completion. Text and thinking go through the Chat Completions
// accumulator's capped builders, so the stream caps hold alike; blocks
// are kept by their index.
type anthropicAcc struct {
	base   *accumulator
	blocks map[int]*antStreamBlock
	calls  []ToolCall
	native []json.RawMessage
	usage  Usage
	stop   string // raw stop_reason
	// stopped is set by message_stop; progress counts events that carried
	// part of the answer (the keep-alive clock's measure).
	stopped  bool
	progress int
}

// antStreamBlock is one content block being streamed.
type antStreamBlock struct {
	typ       string
	start     json.RawMessage // the content_block of content_block_start
	thinking  strings.Builder
	signature strings.Builder
	id, name  string
	args      strings.Builder
}

func newAnthropicAcc(newID func() string, limits StreamLimits) *anthropicAcc {
	return &anthropicAcc{base: newAccumulator(newID, limits), blocks: map[int]*antStreamBlock{}}
}

// antEvent is the data of any stream event; each type fills its part.
type antEvent struct {
	Type         string          `json:"type"`
	Index        int             `json:"index"`
	Message      *antStartMsg    `json:"message"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        *antDelta       `json:"delta"`
	Usage        *antUsage       `json:"usage"`
}

type antStartMsg struct {
	Usage *antUsage `json:"usage"`
}

type antDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

type antUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

type antBlockStart struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
	Text string `json:"text"`
	// Thinking and Signature are empty at the start in practice; kept
	// should a server send them whole.
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Input     json.RawMessage `json:"input"`
}

// add folds in one event (its SSE event name and data). It returns what
// to show live, and an error for an error event, a body that is not JSON,
// or a cap passed.
func (a *anthropicAcc) add(event string, data []byte) (chunkDelta, error) {
	var d chunkDelta
	if event == "error" {
		return d, streamError(data, "the server sent an error event")
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return d, nil
	}
	var ev antEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return d, &ProviderError{Kind: ErrProvider, InStream: true, Err: err,
			Message: fmt.Sprintf("the server sent an event that is not JSON (%q)", excerpt.Clip(string(data), 200))}
	}
	if event == "" {
		event = ev.Type // a server that names events only in their data
	}
	switch event {
	case "message_start":
		if ev.Message != nil && ev.Message.Usage != nil {
			a.addUsage(ev.Message.Usage)
		}
	case "content_block_start":
		a.startBlock(ev.Index, ev.ContentBlock, &d)
	case "content_block_delta":
		if ev.Delta != nil {
			a.delta(ev.Index, ev.Delta, &d)
		}
	case "content_block_stop":
		a.stopBlock(ev.Index)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			a.stop = ev.Delta.StopReason
			a.progress++
		}
		if ev.Usage != nil {
			a.addUsage(ev.Usage)
		}
	case "message_stop":
		a.stopped = true
		a.progress++
	case "error":
		return d, streamError(data, "the server sent an error event")
	}
	// ping and events covey does not know carry nothing it keeps.
	if a.base.over != nil {
		return d, a.base.over
	}
	return d, nil
}

// addUsage takes the counts an event carries: message_start has them all,
// message_delta the output so far (and, from newer servers, the rest).
// Anthropic's input_tokens leaves out the cached and cache-written input,
// which covey's InputTokens includes.
func (a *anthropicAcc) addUsage(u *antUsage) {
	set := func(dst *int, v *int) {
		if v != nil && *v >= 0 {
			*dst = *v
		}
	}
	fresh := a.usage.InputTokens - a.usage.CachedTokens - a.usage.CacheWriteTokens
	set(&fresh, u.InputTokens)
	set(&a.usage.CachedTokens, u.CacheReadInputTokens)
	set(&a.usage.CacheWriteTokens, u.CacheCreationInputTokens)
	set(&a.usage.OutputTokens, u.OutputTokens)
	a.usage.InputTokens = fresh + a.usage.CachedTokens + a.usage.CacheWriteTokens
	a.progress++
}

func (a *anthropicAcc) startBlock(index int, raw json.RawMessage, d *chunkDelta) {
	var cb antBlockStart
	_ = json.Unmarshal(raw, &cb) // a malformed block keeps its type empty and is dropped
	b := &antStreamBlock{typ: cb.Type, start: raw, id: cb.ID, name: cb.Name}
	a.blocks[index] = b
	switch cb.Type {
	case "text":
		a.text(cb.Text, d)
	case "thinking":
		a.thinking(b, cb.Thinking, d)
		b.signature.WriteString(cb.Signature)
	case "redacted_thinking":
		a.progress++
	case "tool_use":
		a.progress++
		if len(a.calls)+a.openCalls() > a.base.limits.MaxToolCalls {
			a.base.over = &ProviderError{Kind: ErrStreamLimit, Message: fmt.Sprintf(
				"the answer passed its limit of %d tool calls (max_tool_calls); %s", a.base.limits.MaxToolCalls, noCallRun)}
			return
		}
		if in := strings.TrimSpace(string(cb.Input)); in != "" && in != "{}" && in != "null" {
			a.args(b, in) // a server that sends the input whole
		}
	}
}

// openCalls counts tool_use blocks started and not stopped yet.
func (a *anthropicAcc) openCalls() int {
	n := 0
	for _, b := range a.blocks {
		if b.typ == "tool_use" {
			n++
		}
	}
	return n
}

func (a *anthropicAcc) delta(index int, dl *antDelta, d *chunkDelta) {
	b := a.blocks[index]
	if b == nil {
		// A delta without its block's start: text and thinking are still
		// the answer's; anything else has nowhere to go.
		b = &antStreamBlock{}
		a.blocks[index] = b
	}
	switch dl.Type {
	case "text_delta":
		a.text(dl.Text, d)
	case "thinking_delta":
		a.thinking(b, dl.Thinking, d)
	case "signature_delta":
		if dl.Signature != "" {
			b.signature.WriteString(dl.Signature)
			a.progress++
		}
	case "input_json_delta":
		a.args(b, dl.PartialJSON)
	}
}

func (a *anthropicAcc) text(t string, d *chunkDelta) {
	if t == "" {
		return // empty deltas are not progress
	}
	a.progress++
	a.base.addText(t, d)
}

func (a *anthropicAcc) thinking(b *antStreamBlock, t string, d *chunkDelta) {
	if t == "" {
		return
	}
	a.progress++
	before := a.base.reasoning.Len()
	a.base.addReasoning(t, d)
	b.thinking.WriteString(a.base.reasoning.String()[before:]) // what fit under the caps
}

func (a *anthropicAcc) args(b *antStreamBlock, s string) {
	if s == "" || a.base.over != nil {
		return
	}
	a.progress++
	room, msgCap := a.base.room(b.args.Len(), a.base.limits.MaxToolArgs)
	s, cut := fitBytes(s, room)
	if cut {
		a.base.over = a.base.capError(msgCap, fmt.Sprintf("the arguments of tool call %d (%s) passed their", len(a.calls)+1, b.name),
			a.base.limits.MaxToolArgs, "max_tool_args", noCallRun)
	}
	a.base.total += len(s)
	b.args.WriteString(s)
}

// stopBlock ends a block: a thinking block becomes a native item (its
// text and signature as received), a redacted one is kept as it came, a
// tool use becomes a call.
func (a *anthropicAcc) stopBlock(index int) {
	b := a.blocks[index]
	if b == nil {
		return
	}
	delete(a.blocks, index)
	switch b.typ {
	case "thinking":
		// Encoded as encoding/json encodes (<, > and & escaped), so the
		// session file's JSON keeps the bytes as they are.
		raw, err := json.Marshal(struct {
			Type      string `json:"type"`
			Thinking  string `json:"thinking"`
			Signature string `json:"signature"`
		}{"thinking", b.thinking.String(), b.signature.String()})
		if err == nil {
			a.native = append(a.native, raw)
		}
	case "redacted_thinking":
		a.native = append(a.native, append(json.RawMessage(nil), b.start...))
	case "tool_use":
		if a.base.over != nil {
			return
		}
		id := b.id
		if id == "" {
			id = a.base.newID()
		}
		a.calls = append(a.calls, ToolCall{ID: id, Name: b.name, Arguments: normaliseArgs(strings.TrimSpace(b.args.String()))})
	}
}

// complete reports whether the answer ended properly.
func (a *anthropicAcc) complete() bool { return a.stopped || a.stop != "" }

// hasContent reports whether any of an answer arrived.
func (a *anthropicAcc) hasContent() bool {
	return a.base.hasContent() || len(a.calls) > 0 || len(a.native) > 0
}

// result assembles the completion so far.
func (a *anthropicAcc) result() Completion {
	msg := Message{Role: RoleAssistant, Content: a.base.text.String(), Reasoning: a.base.reasoning.String(), ToolCalls: a.calls}
	if len(a.native) > 0 {
		msg.Native = &NativeItems{API: APIAnthropic, Items: a.native}
	}
	finish := anthropicFinish(a.stop)
	if len(msg.ToolCalls) > 0 {
		finish = "tool_calls"
	} else if finish == "" && a.stopped {
		finish = "stop"
	}
	return Completion{Message: msg, FinishReason: finish, Usage: a.usage}
}

// anthropicFinish maps a stop_reason onto covey's finish reasons.
func anthropicFinish(r string) string {
	switch r {
	case "refusal":
		return StopRefusal
	case "pause_turn":
		return StopPaused
	}
	return normaliseFinish(r)
}
