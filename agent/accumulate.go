package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"covey/internal/excerpt"
)

// accumulator assembles streamed chunks into one Completion. It is pure (no
// I/O, no clock; ids come from the injected newID) and tolerant of every
// quirk in the team's provider-wire notes: calls keyed by index or by
// id when the index is missing, duplicate indexes, parallel calls glued into
// one index, a fresh id on every fragment, usage anywhere.
type accumulator struct {
	text      strings.Builder
	reasoning strings.Builder
	calls     []*callAcc       // in order of first appearance
	byIndex   map[int]*callAcc // the call each index currently feeds
	last      *callAcc         // the call the last fragment went to
	finish    string           // raw finish reason, last non-empty wins
	usage     Usage
	done      bool // [DONE] seen
	newID     func() string
	think     thinkSplitter // <think> blocks in the content become reasoning

	limits   StreamLimits   // with defaults filled in
	total    int            // bytes of text, reasoning and arguments kept
	over     *ProviderError // the first cap reached; nothing is added after it
	progress int            // counts chunks that carried any part of an answer
}

// callAcc is one tool call being assembled.
type callAcc struct {
	id, name string
	args     strings.Builder
	shape    jsonShape
	extra    map[string]json.RawMessage
}

// jsonShape follows bracket depth across argument fragments, so telling
// whether the arguments may already be a whole JSON value costs O(1) per
// fragment instead of re-validating everything (OCI sends a new id on every
// fragment, which would make that quadratic).
type jsonShape struct {
	depth             int
	opened            bool
	inString, escaped bool
}

func (j *jsonShape) feed(s string) {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if j.inString {
			switch {
			case j.escaped:
				j.escaped = false
			case b == '\\':
				j.escaped = true
			case b == '"':
				j.inString = false
			}
			continue
		}
		switch b {
		case '"':
			j.inString = true
		case '{', '[':
			j.depth++
			j.opened = true
		case '}', ']':
			j.depth--
		}
	}
}

// closed reports whether every bracket opened has been closed.
func (j *jsonShape) closed() bool { return j.opened && j.depth == 0 && !j.inString }

// chunkDelta is what one chunk adds that a StreamHandler shows live.
type chunkDelta struct {
	text, reasoning string
}

func newAccumulator(newID func() string, limits StreamLimits) *accumulator {
	return &accumulator{byIndex: map[int]*callAcc{}, newID: newID, limits: limits.withDefaults()}
}

// Wire shapes of a streamed chunk. Scalars that some server or other sends
// with another type (null, a number, an object) are kept raw and read
// leniently, so one odd field never costs the whole chunk.
type chunkJSON struct {
	Object  json.RawMessage `json:"object"`
	Error   json.RawMessage `json:"error"`
	Choices []choiceJSON    `json:"choices"`
	Usage   json.RawMessage `json:"usage"`
	XGroq   *struct {
		Usage json.RawMessage `json:"usage"`
	} `json:"x_groq"`
}

type choiceJSON struct {
	Delta        *deltaJSON      `json:"delta"`
	Message      *deltaJSON      `json:"message"` // only read for non-streamed bodies
	FinishReason json.RawMessage `json:"finish_reason"`
}

type deltaJSON struct {
	Content          json.RawMessage              `json:"content"`
	ReasoningContent json.RawMessage              `json:"reasoning_content"`
	Reasoning        json.RawMessage              `json:"reasoning"`
	ToolCalls        []map[string]json.RawMessage `json:"tool_calls"`
}

type usageJSON struct {
	PromptTokens        float64 `json:"prompt_tokens"`
	CompletionTokens    float64 `json:"completion_tokens"`
	PromptCacheHit      float64 `json:"prompt_cache_hit_tokens"` // DeepSeek
	PromptTokensDetails *struct {
		CachedTokens float64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens float64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// add folds one streamed chunk (the data of one SSE event) in. It returns
// the text to show live, and an error for a chunk that is not JSON or that
// reports an error (a top-level "error", object "error", finish_reason
// "error"); what the chunk carried before the error is kept.
func (a *accumulator) add(data []byte) (chunkDelta, error) {
	return a.addChunk(data, false)
}

// addWhole folds in a non-streamed completion body (servers that ignore
// stream:true answer with one JSON object whose choices carry "message").
func (a *accumulator) addWhole(data []byte) (chunkDelta, error) {
	d, err := a.addChunk(data, true)
	if err == nil {
		a.done = true
	}
	return d, err
}

func (a *accumulator) addChunk(data []byte, whole bool) (chunkDelta, error) {
	var c chunkJSON
	if err := json.Unmarshal(data, &c); err != nil {
		return chunkDelta{}, &ProviderError{
			Kind:     ErrProvider,
			InStream: true,
			Message:  fmt.Sprintf("the server sent a chunk that is not JSON (%q)", excerpt.Clip(string(data), 200)),
			Err:      err,
		}
	}
	var d chunkDelta
	streamFailed := false
	for _, ch := range c.Choices {
		if fr := rawText(ch.FinishReason); fr != "" {
			a.progress++
			if fr == "error" {
				streamFailed = true
			} else {
				a.finish = fr
			}
		}
		delta := ch.Delta
		if whole {
			delta = ch.Message
		}
		if delta == nil {
			continue // Azure's asynchronous filter sends choices without a delta
		}
		a.addDelta(delta, &d)
	}
	if u, ok := parseUsage(c.Usage); ok {
		a.usage = u
		a.progress++
	} else if c.XGroq != nil {
		if u, ok := parseUsage(c.XGroq.Usage); ok {
			a.usage = u
			a.progress++
		}
	}
	switch {
	case a.over != nil:
		return d, a.over
	case len(c.Error) > 0 && !isNull(c.Error):
		return d, streamError(c.Error, "the server reported an error")
	case rawText(c.Object) == "error":
		return d, streamError(data, "the server reported an error")
	case streamFailed:
		return d, streamError(nil, `the server ended the answer with finish_reason "error"`)
	}
	return d, nil
}

func (a *accumulator) addDelta(delta *deltaJSON, d *chunkDelta) {
	if t := rawString(delta.Content); t != "" {
		a.progress++ // even what the think splitter holds back
		text, thought := a.think.feed(t)
		a.addText(text, d)
		a.addReasoning(thought, d)
		// Blanks before a possible <think> are held back, without end
		// if the server sends nothing else: they count as text.
		if len(a.think.pending) > a.limits.MaxText && a.over == nil {
			a.over = limitError("the answer's text passed its", a.limits.MaxText, "max_text", keptBefore)
		}
	}
	// vLLM renamed reasoning_content to reasoning and sent both for a while
	// with the same text: take one.
	r := rawString(delta.ReasoningContent)
	if r == "" {
		r = rawString(delta.Reasoning)
	}
	if r != "" {
		a.progress++
		a.addReasoning(r, d)
	}
	for _, tc := range delta.ToolCalls {
		a.addCallFragment(tc)
	}
}

// room is how many more bytes a part holding used bytes may take under
// its own cap (limit) and the message's; msgCap reports that the
// message's is the tighter. It allocates nothing: it runs for every delta.
func (a *accumulator) room(used, limit int) (n int, msgCap bool) {
	own, msg := limit-used, a.limits.MaxMessage-a.total
	if own <= msg {
		return own, false
	}
	return msg, true
}

// capError is the error of the cap a piece did not fit: the part's own
// (what, limit, key) or, with msgCap, the message's.
func (a *accumulator) capError(msgCap bool, what string, limit int, key, kept string) *ProviderError {
	if msgCap {
		return limitError("the answer passed its", a.limits.MaxMessage, "max_message", kept)
	}
	return limitError(what, limit, key, kept)
}

// addText keeps what fits of text under the caps and shows the same.
func (a *accumulator) addText(text string, d *chunkDelta) {
	if text == "" || a.over != nil {
		return
	}
	room, msgCap := a.room(a.text.Len(), a.limits.MaxText)
	text, cut := fitBytes(text, room)
	a.text.WriteString(text)
	d.text += text
	a.total += len(text)
	if cut {
		a.over = a.capError(msgCap, "the answer's text passed its", a.limits.MaxText, "max_text", keptBefore)
	}
}

// addReasoning is addText for the reasoning.
func (a *accumulator) addReasoning(r string, d *chunkDelta) {
	if r == "" || a.over != nil {
		return
	}
	room, msgCap := a.room(a.reasoning.Len(), a.limits.MaxReasoning)
	r, cut := fitBytes(r, room)
	a.reasoning.WriteString(r)
	d.reasoning += r
	a.total += len(r)
	if cut {
		a.over = a.capError(msgCap, "the answer's reasoning passed its", a.limits.MaxReasoning, "max_reasoning", keptBefore)
	}
}

// isKnownCallField reports the fields of a tool-call delta covey reads
// itself; any other field is kept in ToolCall.Extra to be echoed back.
func isKnownCallField(k string) bool {
	switch k {
	case "index", "id", "type", "function":
		return true
	}
	return false
}

// addCallFragment routes one tool-call delta to its call.
func (a *accumulator) addCallFragment(tc map[string]json.RawMessage) {
	index, hasIndex := rawInt(tc["index"])
	id := rawString(tc["id"])
	var fn struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if f := tc["function"]; len(f) > 0 && f[0] == '{' {
		_ = json.Unmarshal(f, &fn) // a malformed function object contributes nothing
	}
	name := rawString(fn.Name)
	args := rawString(fn.Arguments)
	if len(fn.Arguments) > 0 && (fn.Arguments[0] == '{' || fn.Arguments[0] == '[') {
		args = string(fn.Arguments) // a few servers send the object itself
	}

	if a.over != nil {
		return
	}
	if id != "" || name != "" || args != "" {
		a.progress++
	}
	var c *callAcc
	if hasIndex {
		c = a.byIndex[index]
	} else {
		c = a.last
	}
	if c == nil || startsNewCall(c, id, name) {
		if len(a.calls) >= a.limits.MaxToolCalls {
			a.over = &ProviderError{Kind: ErrStreamLimit, Message: fmt.Sprintf(
				"the answer passed its limit of %d tool calls (max_tool_calls); %s", a.limits.MaxToolCalls, noCallRun)}
			return
		}
		c = &callAcc{}
		a.calls = append(a.calls, c)
		if hasIndex {
			a.byIndex[index] = c
		}
	}
	a.last = c
	if c.id == "" {
		c.id = id // the first non-empty id wins (OCI sends a fresh one per fragment)
	}
	if c.name == "" {
		c.name = name
	}
	room, msgCap := a.room(c.args.Len(), a.limits.MaxToolArgs)
	args, cut := fitBytes(args, room)
	if cut {
		a.over = a.capError(msgCap, fmt.Sprintf("the arguments of tool call %d (%s) passed their", len(a.calls), c.name),
			a.limits.MaxToolArgs, "max_tool_args", noCallRun)
	}
	a.total += len(args)
	c.args.WriteString(args)
	c.shape.feed(args)
	for k, v := range tc {
		if isKnownCallField(k) || isNull(v) {
			continue
		}
		if c.extra == nil {
			c.extra = map[string]json.RawMessage{}
		}
		c.extra[k] = v
	}
}

// startsNewCall decides whether a fragment that landed on call c (same
// index, or no index at all) really opens another call. A different name
// always does. A different id does when c's arguments are already a whole
// JSON value (Gemini glues parallel calls into one index), or when the
// fragment names its tool and c has no arguments yet (two argument-less
// calls); a nameless fragment with a new id is a continuation (OCI sends a
// fresh id on every fragment).
func startsNewCall(c *callAcc, id, name string) bool {
	newName := name != "" && c.name != "" && name != c.name
	newID := id != "" && c.id != "" && id != c.id
	switch {
	case newName:
		return true
	case !newID:
		return false
	}
	args := strings.TrimSpace(c.args.String())
	if args == "" {
		return name != ""
	}
	return c.shape.closed() && json.Valid([]byte(args))
}

// markDone records the [DONE] sentinel.
func (a *accumulator) markDone() { a.done = true }

// complete reports whether the stream ended properly: [DONE] or a finish
// reason arrived.
func (a *accumulator) complete() bool { return a.done || a.finish != "" }

// hasContent reports whether anything of an answer arrived: once it has, a
// failed stream is not retried (the user has seen it).
func (a *accumulator) hasContent() bool {
	return a.text.Len() > 0 || a.reasoning.Len() > 0 || len(a.calls) > 0
}

// flush ends the content stream: what the think splitter held back (a
// lone "<thi", leading blanks, an unclosed think block) becomes text or
// reasoning. The caller shows the returned delta, so the answer shown
// live is the answer kept; calling it again returns nothing.
func (a *accumulator) flush() chunkDelta {
	text, thought := a.think.flush()
	a.text.WriteString(text)
	a.reasoning.WriteString(thought)
	return chunkDelta{text: text, reasoning: thought}
}

// result assembles the completion so far (flushing what is held back).
// Call it once: it makes up ids.
func (a *accumulator) result() Completion {
	a.flush()
	msg := Message{Role: RoleAssistant, Content: a.text.String(), Reasoning: a.reasoning.String()}
	msg.ToolCalls = a.finalCalls()
	finish := normaliseFinish(a.finish)
	if len(msg.ToolCalls) > 0 {
		finish = "tool_calls"
	} else if finish == "" && a.done {
		finish = "stop"
	}
	return Completion{Message: msg, FinishReason: finish, Usage: a.usage}
}

// finalCalls splits glued arguments, fills in empty arguments and missing
// or duplicate ids, and drops fragments that never became a call.
func (a *accumulator) finalCalls() []ToolCall {
	var out []ToolCall
	prevName := ""
	for _, c := range a.calls {
		args := strings.TrimSpace(c.args.String())
		name := c.name
		if name == "" && args == "" {
			continue // an id with nothing else: a stray fragment, nothing to run
		}
		if name == "" {
			name = prevName // opened by a new id after a complete call: same tool
		}
		prevName = name
		parts := []string{args}
		if !json.Valid([]byte(args)) {
			if split, ok := splitJSONObjects(args); ok {
				parts = split
			}
		}
		for i, p := range parts {
			tc := ToolCall{Name: name, Arguments: normaliseArgs(p)}
			if i == 0 {
				tc.ID, tc.Extra = c.id, c.extra
			}
			out = append(out, tc)
		}
	}
	seen := map[string]bool{}
	for i := range out {
		if out[i].ID == "" || seen[out[i].ID] {
			out[i].ID = a.newID()
		}
		// Guard against an id generator that repeats itself.
		for n := 2; out[i].ID == "" || seen[out[i].ID]; n++ {
			out[i].ID = fmt.Sprintf("call_%d_%d", i, n)
		}
		seen[out[i].ID] = true
	}
	return out
}

// normaliseArgs makes empty arguments "{}" and unwraps arguments that were
// JSON-encoded twice (a string holding an object). Invalid JSON is kept as
// is: the loop answers the model with the parse error.
func normaliseArgs(s string) string {
	if s == "" {
		return "{}"
	}
	if s[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(s), &inner) == nil {
			inner = strings.TrimSpace(inner)
			if strings.HasPrefix(inner, "{") && json.Valid([]byte(inner)) {
				return inner
			}
		}
	}
	return s
}

// splitJSONObjects splits "{...}{...}" (parallel calls glued into one
// index) into its objects. It fails unless s is two or more JSON objects
// with nothing but whitespace between them.
func splitJSONObjects(s string) ([]string, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	var parts []string
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil || len(raw) == 0 || raw[0] != '{' {
			return nil, false
		}
		parts = append(parts, string(raw))
	}
	return parts, len(parts) >= 2
}

// normaliseFinish maps the finish reasons servers invent onto the four the
// contract names; unknown ones pass through.
func normaliseFinish(r string) string {
	switch r {
	case "tool_calls", "function_call", "tool_use":
		return "tool_calls"
	case "stop", "eos", "end_turn", "stop_sequence", "STOP":
		return "stop"
	case "length", "max_tokens", "MAX_TOKENS":
		return "length"
	case "content_filter", "SAFETY":
		return "content_filter"
	}
	return r
}

// parseUsage reads a usage object; false for null, absent or unreadable.
func parseUsage(raw json.RawMessage) (Usage, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return Usage{}, false
	}
	var u usageJSON
	if json.Unmarshal(raw, &u) != nil {
		return Usage{}, false
	}
	out := Usage{
		InputTokens:  tokenCount(u.PromptTokens),
		OutputTokens: tokenCount(u.CompletionTokens),
		CachedTokens: tokenCount(u.PromptCacheHit),
	}
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
		out.CachedTokens = tokenCount(u.PromptTokensDetails.CachedTokens)
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = tokenCount(u.CompletionTokensDetails.ReasoningTokens)
	}
	return out, true
}

func tokenCount(f float64) int {
	if f <= 0 || math.IsNaN(f) {
		return 0
	}
	return int(min(f, math.MaxInt32))
}

// isNull reports a JSON null (or nothing at all).
func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// rawString reads a JSON string; anything else reads as "".
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// rawInt reads a JSON number that holds an integer.
func rawInt(raw json.RawMessage) (int, bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}
