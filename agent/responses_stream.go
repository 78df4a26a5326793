package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"covey/internal/excerpt"
)

// responsesAcc assembles the typed events of a Responses stream into one
// Completion. The text, reasoning and calls are kept by the Chat
// accumulator (acc), so the stream caps, the progress count and the
// finishing of calls (ids, empty arguments) are the same on both wires;
// what it adds is the events' own routing: items by id and output index,
// reasoning items kept whole, arguments or text that come only in a
// .done event.
type responsesAcc struct {
	acc *accumulator
	// calls are the function calls by item id, and by output index for an
	// event that names no item.
	calls   map[string]*callAcc
	byIndex map[int]*callAcc
	// texts and summaries count what streamed per item, so a .done event
	// fills in only what its deltas did not bring.
	texts     map[string]int
	summaries map[string]int
	lastPart  map[string]int // the summary part that last streamed, per reasoning item
	reasoning []json.RawMessage
	status    string // "completed" or "incomplete" once the answer ended
}

func newResponsesAcc(newID func() string, limits StreamLimits) *responsesAcc {
	return &responsesAcc{
		acc:       newAccumulator(newID, limits),
		calls:     map[string]*callAcc{},
		byIndex:   map[int]*callAcc{},
		texts:     map[string]int{},
		summaries: map[string]int{},
		lastPart:  map[string]int{},
	}
}

// responsesEvent is the union of the fields the events covey reads carry.
type responsesEvent struct {
	Type         string          `json:"type"`
	ItemID       string          `json:"item_id"`
	OutputIndex  json.RawMessage `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Delta        json.RawMessage `json:"delta"`
	Text         json.RawMessage `json:"text"`
	Arguments    json.RawMessage `json:"arguments"`
	Item         json.RawMessage `json:"item"`
	Response     json.RawMessage `json:"response"`
	// An error event's own fields (OpenAI sends them at the top level).
	Code    json.RawMessage `json:"code"`
	Message json.RawMessage `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// responsesItem is an output item: reasoning, message or function_call.
type responsesItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// EncryptedContent is a reasoning item's thinking, which only the
	// server can read; an item without it cannot be sent back.
	EncryptedContent string `json:"encrypted_content"`
	Content          []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// responsesObject is the response object of response.completed,
// response.incomplete and response.failed, and of a whole JSON body.
type responsesObject struct {
	Status            string                   `json:"status"`
	Error             json.RawMessage          `json:"error"`
	IncompleteDetails *struct{ Reason string } `json:"incomplete_details"`
	Output            []json.RawMessage        `json:"output"`
	Usage             *struct {
		InputTokens        float64 `json:"input_tokens"`
		OutputTokens       float64 `json:"output_tokens"`
		InputTokensDetails *struct {
			CachedTokens float64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails *struct {
			ReasoningTokens float64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// add folds in one event (its SSE event name and data) and returns what
// to show live. The event's type is read from its data, else its name.
func (r *responsesAcc) add(name string, data []byte) (chunkDelta, error) {
	var ev responsesEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return chunkDelta{}, &ProviderError{
			Kind:     ErrProvider,
			InStream: true,
			Message:  fmt.Sprintf("the server sent an event that is not JSON (%q)", excerpt.Clip(string(data), 200)),
			Err:      err,
		}
	}
	if ev.Type == "" {
		ev.Type = name
	}
	var d chunkDelta
	a := r.acc
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		if t := rawString(ev.Delta); t != "" {
			a.progress++
			r.texts[ev.ItemID] += len(t)
			a.addText(t, &d)
		}
	case "response.output_text.done", "response.refusal.done":
		if r.texts[ev.ItemID] == 0 {
			r.doneText(ev.ItemID, rawString(ev.Text), &d)
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		r.reasoningDelta(ev, &d)
	case "response.function_call_arguments.delta":
		if c := r.call(ev); c != nil {
			r.appendArgs(c, rawString(ev.Delta))
		}
	case "response.function_call_arguments.done":
		if c := r.call(ev); c != nil && c.args.Len() == 0 {
			r.appendArgs(c, rawString(ev.Arguments))
		}
	case "response.output_item.added":
		r.itemAdded(ev)
	case "response.output_item.done":
		r.itemDone(ev, &d)
	case "response.completed", "response.incomplete":
		r.finish(ev.Response, &d)
	case "response.failed":
		var obj responsesObject
		_ = json.Unmarshal(ev.Response, &obj)
		r.usage(obj)
		if a.over != nil {
			return d, a.over
		}
		if isNull(obj.Error) {
			return d, streamError(nil, "the server reported that the response failed")
		}
		return d, streamError(wrapError(obj.Error), "the server reported that the response failed")
	case "error":
		payload := wrapError(data) // OpenAI puts code and message at the top
		if !isNull(ev.Error) {
			payload = wrapError(ev.Error)
		}
		if a.over != nil {
			return d, a.over
		}
		return d, streamError(payload, "the server sent an error event")
	}
	// response.created, response.in_progress, content_part and
	// summary_part events and anything newer carry nothing covey keeps.
	if a.over != nil {
		return d, a.over
	}
	return d, nil
}

// wrapError puts an error object in the {"error": ...} shape
// describeErrorBody reads, so its code and type classify it.
func wrapError(obj []byte) []byte {
	return append(append([]byte(`{"error":`), obj...), '}')
}

// reasoningDelta adds a summary's (or a raw reasoning text's) delta; a
// new summary part starts a new paragraph.
func (r *responsesAcc) reasoningDelta(ev responsesEvent, d *chunkDelta) {
	t := rawString(ev.Delta)
	if t == "" {
		return
	}
	r.acc.progress++
	if n, seen := r.lastPart[ev.ItemID]; seen && n != ev.SummaryIndex {
		t = "\n\n" + t
	} else if !seen && r.acc.reasoning.Len() > 0 {
		t = "\n\n" + t // a second reasoning item
	}
	r.lastPart[ev.ItemID] = ev.SummaryIndex
	r.summaries[ev.ItemID] += len(t)
	r.acc.addReasoning(t, d)
}

// doneText adds the text a .done event carries when no delta brought it.
func (r *responsesAcc) doneText(itemID, t string, d *chunkDelta) {
	if t == "" {
		return
	}
	r.acc.progress++
	r.texts[itemID] += len(t)
	r.acc.addText(t, d)
}

// call finds the function call an event is about.
func (r *responsesAcc) call(ev responsesEvent) *callAcc {
	if c, ok := r.calls[ev.ItemID]; ok && ev.ItemID != "" {
		return c
	}
	if i, ok := rawInt(ev.OutputIndex); ok {
		return r.byIndex[i]
	}
	return nil
}

// itemAdded opens a function call; other items open on their deltas.
func (r *responsesAcc) itemAdded(ev responsesEvent) {
	var it responsesItem
	if json.Unmarshal(ev.Item, &it) != nil || it.Type != "function_call" {
		return
	}
	r.openCall(ev, it)
}

// openCall starts a call under the caps, keyed by item id and output index.
func (r *responsesAcc) openCall(ev responsesEvent, it responsesItem) *callAcc {
	a := r.acc
	if a.over != nil {
		return nil
	}
	if len(a.calls) >= a.limits.MaxToolCalls {
		a.over = &ProviderError{Kind: ErrStreamLimit, Message: fmt.Sprintf(
			"the answer passed its limit of %d tool calls (max_tool_calls); %s", a.limits.MaxToolCalls, noCallRun)}
		return nil
	}
	a.progress++
	c := &callAcc{id: it.CallID, name: it.Name}
	a.calls = append(a.calls, c)
	if it.ID != "" {
		r.calls[it.ID] = c
	}
	if i, ok := rawInt(ev.OutputIndex); ok {
		r.byIndex[i] = c
	}
	r.appendArgs(c, it.Arguments)
	return c
}

// appendArgs adds argument text to c under the caps.
func (r *responsesAcc) appendArgs(c *callAcc, args string) {
	a := r.acc
	if args == "" || a.over != nil {
		return
	}
	a.progress++
	room, msgCap := a.room(c.args.Len(), a.limits.MaxToolArgs)
	args, cut := fitBytes(args, room)
	if cut {
		a.over = a.capError(msgCap, fmt.Sprintf("the arguments of tool call %d (%s) passed their", len(a.calls), c.name),
			a.limits.MaxToolArgs, "max_tool_args", noCallRun)
	}
	a.total += len(args)
	c.args.WriteString(args)
}

// itemDone completes an item: a reasoning item is kept whole (and its
// summary shown if no delta brought it), a message's text and a call's
// arguments are taken from it when their deltas never came.
func (r *responsesAcc) itemDone(ev responsesEvent, d *chunkDelta) {
	var it responsesItem
	if json.Unmarshal(ev.Item, &it) != nil {
		return
	}
	switch it.Type {
	case "reasoning":
		r.keepReasoning(ev.Item, it, d)
	case "message":
		if r.texts[it.ID] == 0 {
			var parts []string
			for _, p := range it.Content {
				parts = append(parts, p.Text+p.Refusal)
			}
			r.doneText(it.ID, strings.Join(parts, ""), d)
		}
	case "function_call":
		c := r.call(ev)
		if c == nil {
			r.openCall(ev, it) // never announced by output_item.added
			return
		}
		if c.id == "" {
			c.id = it.CallID
		}
		if c.name == "" {
			c.name = it.Name
		}
		if c.args.Len() == 0 {
			r.appendArgs(c, it.Arguments)
		}
	}
}

// keepReasoning keeps a reasoning item as it came (compacted, so what is
// kept is what is sent back), under the reasoning cap.
func (r *responsesAcc) keepReasoning(raw json.RawMessage, it responsesItem, d *chunkDelta) {
	a := r.acc
	if a.over != nil {
		return
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return
	}
	a.progress++
	room, msgCap := a.room(a.reasoning.Len(), a.limits.MaxReasoning)
	if b.Len() > room {
		a.over = a.capError(msgCap, "the answer's reasoning passed its", a.limits.MaxReasoning, "max_reasoning", keptBefore)
		return
	}
	a.total += b.Len()
	if it.EncryptedContent != "" {
		r.reasoning = append(r.reasoning, b.Bytes())
	}
	if r.summaries[it.ID] == 0 {
		var parts []string
		for _, s := range it.Summary {
			if s.Text != "" {
				parts = append(parts, s.Text)
			}
		}
		if t := strings.Join(parts, "\n\n"); t != "" {
			if a.reasoning.Len() > 0 {
				t = "\n\n" + t
			}
			r.summaries[it.ID] += len(t)
			a.addReasoning(t, d)
		}
	}
}

// finish reads the response object that ends the answer: its status,
// why it is incomplete, and the usage. Its output items are read only
// when no event brought any of them (a server that sends the object
// alone).
func (r *responsesAcc) finish(raw json.RawMessage, d *chunkDelta) {
	var obj responsesObject
	_ = json.Unmarshal(raw, &obj) // an unreadable object still ends the answer
	if !r.acc.hasContent() && len(r.reasoning) == 0 {
		for i, item := range obj.Output {
			r.itemDone(responsesEvent{Item: item, OutputIndex: json.RawMessage(strconv.Itoa(i))}, d)
		}
	}
	r.acc.progress++
	r.usage(obj)
	r.status = "completed"
	r.acc.finish = "stop"
	if obj.Status == "incomplete" || obj.IncompleteDetails != nil {
		r.status = "incomplete"
		reason := ""
		if obj.IncompleteDetails != nil {
			reason = obj.IncompleteDetails.Reason
		}
		switch reason {
		case "max_output_tokens", "":
			r.acc.finish = StopLength
		case "content_filter":
			r.acc.finish = StopContentFilter
		default:
			r.acc.finish = reason
		}
	}
}

// usage takes the usage of a response object, when it has one.
func (r *responsesAcc) usage(obj responsesObject) {
	u := obj.Usage
	if u == nil {
		return
	}
	out := Usage{InputTokens: tokenCount(u.InputTokens), OutputTokens: tokenCount(u.OutputTokens)}
	if u.InputTokensDetails != nil {
		out.CachedTokens = tokenCount(u.InputTokensDetails.CachedTokens)
	}
	if u.OutputTokensDetails != nil {
		out.ReasoningTokens = tokenCount(u.OutputTokensDetails.ReasoningTokens)
	}
	r.acc.usage = out
}

// finished reports whether response.completed or response.incomplete came.
func (r *responsesAcc) finished() bool { return r.status != "" }

// addWhole folds in a response object a server sent as one JSON body
// (stream ignored): its output items, as their .done events would.
func (r *responsesAcc) addWhole(raw []byte) (chunkDelta, error) {
	var obj responsesObject
	if err := json.Unmarshal(raw, &obj); err != nil {
		return chunkDelta{}, &ProviderError{Kind: ErrProvider, InStream: true,
			Message: fmt.Sprintf("the server sent a body that is not JSON (%q)", excerpt.Clip(string(raw), 200)), Err: err}
	}
	if !isNull(obj.Error) || obj.Status == "failed" {
		return chunkDelta{}, streamError(raw, "the server reported that the response failed")
	}
	var d chunkDelta
	r.finish(raw, &d)
	if r.acc.over != nil {
		return d, r.acc.over
	}
	return d, nil
}

// result assembles the completion so far. Reasoning items are kept only
// beside text or calls: the API refuses a reasoning item without the item
// it preceded.
func (r *responsesAcc) result() Completion {
	c := r.acc.result()
	if len(r.reasoning) > 0 && (c.Message.Content != "" || len(c.Message.ToolCalls) > 0) {
		c.Message.Native = &NativeItems{API: APIResponses, Items: r.reasoning}
	}
	return c
}
