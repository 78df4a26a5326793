package scripted

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The Responses wire: POST /v1/responses (and /responses) is matched and
// journaled like a chat completion, its input items read into the same
// Messages (a run of reasoning, assistant message and function_call items
// is one assistant message, so Turn counts the same), and a normal Turn
// is streamed as OpenAI's typed events: response.created, in_progress,
// output items (reasoning with an encrypted_content and its summary,
// message, function_call) with their deltas and .done events, each with a
// sequence_number, then response.completed with usage, or
// response.incomplete for a FinishReason of length or content_filter.
// Raw, Status, Stall, Attempts, DisconnectAfter, Delay and Func work as
// on Chat; Endless and Hold are Chat's only.

// handleResponses records, matches and answers one Responses request.
func (s *Server) handleResponses(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "scripted server closing", http.StatusServiceUnavailable)
		return
	}
	defer s.handlers.Done()
	arrived := s.now()
	if r.Method != http.MethodPost {
		e := s.record(Entry{Time: arrived, Unmatched: "method " + r.Method + " on " + r.URL.Path})
		s.writeError(w, e, http.StatusMethodNotAllowed, e.Unmatched, "invalid_request_error")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || r.Context().Err() != nil {
			s.record(Entry{Time: arrived, Abandoned: true})
			return
		}
		e := s.record(Entry{Time: arrived, Unmatched: "read body: " + err.Error()})
		s.writeError(w, e, http.StatusBadRequest, e.Unmatched, "invalid_request_error")
		return
	}
	entry, err := parseResponsesRequest(body)
	entry.Time, entry.Body = arrived, body
	entry.HasAuth = r.Header.Get("Authorization") != ""
	if err != nil {
		entry.Unmatched = "bad request: " + err.Error()
		e := s.record(entry)
		s.writeError(w, e, http.StatusBadRequest, e.Unmatched, "invalid_request_error")
		return
	}
	entry.PromptTokens = promptTokens(body)
	if s.overWindow(entry) {
		s.refuseOverflow(w, s.record(entry))
		return
	}
	turn, ok := s.selectTurn(&entry)
	e := s.record(entry)
	if !ok {
		msg := fmt.Sprintf("scripted server: unmatched request: %s; received first user message %q, model %q, turn %d (%d messages); %s",
			entry.Unmatched, entry.FirstUser, entry.Model, entry.Turn, len(entry.Messages), s.describe())
		s.writeError(w, e, http.StatusInternalServerError, msg, "scripted_unmatched")
		return
	}
	if turn.Func != nil {
		if turn, err = callFunc(turn.Func, Request{Entry: entry}); err != nil {
			s.fail(e, err.Error())
			s.writeError(w, e, http.StatusInternalServerError, "scripted server: "+err.Error(), "scripted_error")
			return
		}
	}
	if normal := turn.Status == 0 || turn.Status == http.StatusOK; normal && turn.Raw == "" && !turn.Stall {
		if turn.Endless != "" {
			s.fail(e, "bad turn: endless streams are Chat's only")
			s.writeError(w, e, http.StatusInternalServerError, "scripted server: bad turn: endless streams are Chat's only", "scripted_error")
			return
		}
		rr, err := s.newResponsesReply(turn, entry)
		if err != nil {
			s.fail(e, "bad turn: "+err.Error())
			s.writeError(w, e, http.StatusInternalServerError, "scripted server: bad turn: "+err.Error(), "scripted_error")
			return
		}
		turn.Raw = rr.stream()
	}
	s.serve(r.Context(), w, e, turn)
}

// responsesRequest is the part of a Responses request the server reads.
type responsesRequest struct {
	Model        string                  `json:"model"`
	Instructions string                  `json:"instructions"`
	Input        json.RawMessage         `json:"input"`
	Stream       bool                    `json:"stream"`
	Tools        []struct{ Name string } `json:"tools"`
}

// responsesInputItem is one input item, whatever its type.
type responsesInputItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// parseResponsesRequest fills an Entry from a Responses request body.
func parseResponsesRequest(body []byte) (Entry, error) {
	var w responsesRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Entry{}, fmt.Errorf("decode request body: %w", err)
	}
	e := Entry{Model: w.Model, Body: body, Stream: w.Stream, System: w.Instructions}
	for _, t := range w.Tools {
		e.Tools = append(e.Tools, t.Name)
	}
	var items []responsesInputItem
	if len(w.Input) > 0 && w.Input[0] == '"' {
		var text string
		_ = json.Unmarshal(w.Input, &text)
		items = []responsesInputItem{{Type: "message", Role: "user", Content: jsonString(text)}}
	} else if err := json.Unmarshal(w.Input, &items); err != nil && len(w.Input) > 0 {
		return Entry{}, fmt.Errorf("input is neither a string nor a list of items: %w", err)
	}
	var system []string
	if w.Instructions != "" {
		system = append(system, w.Instructions)
	}
	// open is the assistant message the latest assistant items join.
	open := -1
	firstUserSeen := false
	assistant := func() *Message {
		if open < 0 {
			e.Messages = append(e.Messages, Message{Role: "assistant"})
			open = len(e.Messages) - 1
			e.Turn++
		}
		return &e.Messages[open]
	}
	for i, it := range items {
		switch {
		case it.Type == "reasoning":
			m := assistant()
			for _, s := range it.Summary {
				m.Reasoning += s.Text
			}
		case it.Type == "function_call":
			m := assistant()
			m.ToolCalls = append(m.ToolCalls, Call{ID: it.CallID, Name: it.Name, Args: it.Arguments})
		case it.Type == "function_call_output":
			open = -1
			out, _ := responsesText(it.Output)
			e.Messages = append(e.Messages, Message{Role: "tool", ToolCallID: it.CallID, Content: out})
		case (it.Type == "message" || it.Type == "") && it.Role == "assistant":
			m := assistant()
			text, err := responsesText(it.Content)
			if err != nil {
				return Entry{}, fmt.Errorf("input item %d: %w", i, err)
			}
			m.Content += text
		case it.Type == "message" || it.Type == "":
			open = -1
			text, err := responsesText(it.Content)
			if err != nil {
				return Entry{}, fmt.Errorf("input item %d: %w", i, err)
			}
			switch it.Role {
			case "system", "developer":
				system = append(system, text)
			case "user":
				if !firstUserSeen {
					e.FirstUser, firstUserSeen = text, true
				}
			}
			e.Messages = append(e.Messages, Message{Role: it.Role, Content: text})
		default:
			return Entry{}, fmt.Errorf("input item %d: unknown type %q", i, it.Type)
		}
	}
	e.System = strings.Join(system, "\n")
	return e, nil
}

// responsesText flattens a content or output: a string, or parts whose
// text (input_text, output_text) is joined.
func responsesText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == jsonNull {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor a list of parts: %w", err)
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, ""), nil
}

// responsesReply is a Turn made concrete for one Responses request.
type responsesReply struct {
	reply
	seq int
	out strings.Builder
}

// newResponsesReply resolves t for the request e, with a resp_ id.
func (s *Server) newResponsesReply(t Turn, e Entry) (*responsesReply, error) {
	r, err := s.newReply(t, e)
	if err != nil {
		return nil, err
	}
	r.id = s.ids("resp_")
	return &responsesReply{reply: r}, nil
}

// event writes one typed event, numbered.
func (r *responsesReply) event(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = r.seq
	r.seq++
	b, _ := marshal(fields) // maps of strings, numbers and raw JSON always marshal
	r.out.WriteString("event: " + typ + "\ndata: ")
	r.out.Write(b)
	r.out.WriteString("\n\n")
}

// Encrypted returns the encrypted_content the scripted server gives the
// reasoning of a response: opaque to the client, deterministic for tests.
func Encrypted(respID, reasoning string) string {
	return "gAAAA" + base64.StdEncoding.EncodeToString([]byte(respID+":"+reasoning))
}

// stream renders the whole stream.
func (r *responsesReply) stream() string {
	size := r.turn.ChunkSize
	if size <= 0 {
		size = defaultChunkSize
	}
	response := func(status string, usage any) map[string]any {
		return map[string]any{"id": r.id, "object": "response", "created_at": r.created, "status": status,
			"model": r.model, "output": []any{}, "usage": usage}
	}
	r.event("response.created", map[string]any{"response": response("in_progress", nil)})
	r.event("response.in_progress", map[string]any{"response": response("in_progress", nil)})
	index := 0
	if t := r.turn.Reasoning; t != "" {
		id := "rs_" + strings.TrimPrefix(r.id, "resp_")
		r.event("response.output_item.added", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
		r.event("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
		for _, d := range split(t, size) {
			r.event("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "delta": d})
		}
		r.event("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "text": t})
		r.event("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": t}})
		r.event("response.output_item.done", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "reasoning",
			"encrypted_content": Encrypted(r.id, t), "summary": []any{map[string]any{"type": "summary_text", "text": t}}}})
		index++
	}
	if t := r.turn.Text; t != "" {
		id := "msg_" + strings.TrimPrefix(r.id, "resp_")
		at := map[string]any{"item_id": id, "output_index": index, "content_index": 0}
		with := func(k string, v any) map[string]any {
			m := map[string]any{k: v}
			for key, val := range at {
				m[key] = val
			}
			return m
		}
		r.event("response.output_item.added", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		r.event("response.content_part.added", with("part", map[string]any{"type": "output_text", "text": "", "annotations": []any{}}))
		for _, d := range split(t, size) {
			r.event("response.output_text.delta", with("delta", d))
		}
		r.event("response.output_text.done", with("text", t))
		r.event("response.content_part.done", with("part", map[string]any{"type": "output_text", "text": t, "annotations": []any{}}))
		r.event("response.output_item.done", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": t, "annotations": []any{}}}}})
		index++
	}
	for i, c := range r.calls {
		id := fmt.Sprintf("fc_%s_%d", strings.TrimPrefix(r.id, "resp_"), i)
		item := func(status, args string) map[string]any {
			return map[string]any{"id": id, "type": "function_call", "status": status, "call_id": c.id, "name": c.name, "arguments": args}
		}
		r.event("response.output_item.added", map[string]any{"output_index": index, "item": item("in_progress", "")})
		for _, d := range split(c.args, size) {
			r.event("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": index, "delta": d})
		}
		r.event("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": index, "arguments": c.args})
		r.event("response.output_item.done", map[string]any{"output_index": index, "item": item("completed", c.args)})
		index++
	}
	usage := map[string]any{
		"input_tokens": r.usage.Prompt, "input_tokens_details": map[string]any{"cached_tokens": r.usage.Cached},
		"output_tokens": r.usage.Completion, "output_tokens_details": map[string]any{"reasoning_tokens": r.usage.Reasoning},
		"total_tokens": r.usage.Prompt + r.usage.Completion,
	}
	switch r.turn.FinishReason {
	case "length", "content_filter":
		reason := "max_output_tokens"
		if r.turn.FinishReason == "content_filter" {
			reason = "content_filter"
		}
		obj := response("incomplete", usage)
		obj["incomplete_details"] = map[string]any{"reason": reason}
		r.event("response.incomplete", map[string]any{"response": obj})
	default:
		r.event("response.completed", map[string]any{"response": response("completed", usage)})
	}
	return r.out.String()
}
