package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// defaultChunkSize is the runes per delta when a Turn does not say.
const defaultChunkSize = 8

// reply is a Turn made concrete for one request: ids, time and the
// arguments of each call fixed.
type reply struct {
	turn    Turn
	id      string
	created int64
	model   string
	calls   []resolvedCall
	usage   Usage
	// includeUsage adds usage:null to every chunk and a usage chunk at the
	// end, as OpenAI does for stream_options.include_usage.
	includeUsage bool
}

type resolvedCall struct {
	id, name, args string
}

// newReply resolves t for the request e.
func (s *Server) newReply(t Turn, e Entry) (reply, error) {
	idPrefix, callPrefix := "chatcmpl-", "call_"
	if e.API == APIAnthropic {
		idPrefix, callPrefix = "msg_", "toolu_"
	}
	r := reply{
		turn:         t,
		id:           s.ids(idPrefix),
		created:      s.now().Unix(),
		model:        e.Model,
		includeUsage: e.StreamOptions,
	}
	output := len(t.Text) + len(t.Reasoning)
	for i, c := range t.ToolCalls {
		args, err := c.arguments()
		if err != nil {
			return reply{}, fmt.Errorf("tool call %d (%s): %w", i, c.Name, err)
		}
		id := c.ID
		if id == "" {
			id = s.ids(callPrefix)
		}
		r.calls = append(r.calls, resolvedCall{id: id, name: c.Name, args: args})
		output += len(c.Name) + len(args)
	}
	if t.Usage != nil {
		r.usage = *t.Usage
	} else {
		r.usage = Usage{
			Prompt:     quarter(len(e.Body)),
			Completion: quarter(output),
			Reasoning:  quarter(len(t.Reasoning)),
		}
	}
	return r, nil
}

// quarter is the rough four-bytes-per-token estimate, rounded up.
func quarter(n int) int { return (n + 3) / 4 }

func (r reply) finishReason() string {
	if r.turn.FinishReason != "" {
		return r.turn.FinishReason
	}
	if len(r.calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (r reply) wireUsage() wireUsage {
	var u wireUsage
	u.PromptTokens = r.usage.Prompt
	u.CompletionTokens = r.usage.Completion
	u.TotalTokens = r.usage.Prompt + r.usage.Completion
	u.PromptTokensDetails.CachedTokens = r.usage.Cached
	u.CompletionTokensDetails.ReasoningTokens = r.usage.Reasoning
	return u
}

// events renders the whole stream of a normal turn, one SSE event per
// element, in OpenAI's order: role chunk, reasoning, text, calls, finish,
// usage, [DONE].
func (r reply) events() ([][]byte, error) {
	size := r.turn.ChunkSize
	if size <= 0 {
		size = defaultChunkSize
	}
	var out [][]byte
	// Every chunk shares its head (id, object, created, model, fingerprint)
	// and tail, so they are encoded once and only the choice per chunk:
	// the bytes are what marshalling whole wireChunks gives.
	head, err := marshal(wireChunk{
		ID:                r.id,
		Object:            "chat.completion.chunk",
		Created:           r.created,
		Model:             r.model,
		SystemFingerprint: systemFingerprint,
		Choices:           []wireChoice{},
	})
	if err != nil {
		return nil, fmt.Errorf("encode chunk: %w", err)
	}
	head = bytes.TrimSuffix(head, []byte("[]}"))
	tail := "]}"
	if r.includeUsage {
		tail = `],"usage":null}`
	}
	add := func(d wireDelta, finish *string) error {
		b, err := marshal(wireChoice{Delta: d, Logprobs: json.RawMessage(jsonNull), FinishReason: finish})
		if err != nil {
			return fmt.Errorf("encode chunk: %w", err)
		}
		ev := make([]byte, 0, len("data: ")+len(head)+1+len(b)+len(tail)+2)
		ev = append(ev, "data: "...)
		ev = append(ev, head...)
		ev = append(ev, '[')
		ev = append(ev, b...)
		ev = append(ev, tail...)
		out = append(out, append(ev, "\n\n"...))
		return nil
	}

	calls := r.calls
	first := wireDelta{Role: "assistant", Content: json.RawMessage(jsonEmptyText), Refusal: json.RawMessage(jsonNull)}
	if r.turn.Text == "" && r.turn.Reasoning == "" && len(calls) > 0 {
		// A pure tool-call answer opens with content null and the first
		// call's header, as OpenAI does.
		first.Content = json.RawMessage(jsonNull)
		first.ToolCalls = []wireCall{callHeader(0, calls[0])}
	}
	if err := add(first, nil); err != nil {
		return nil, err
	}
	for _, part := range split(r.turn.Reasoning, size) {
		if err := add(wireDelta{Reasoning: jsonString(part)}, nil); err != nil {
			return nil, err
		}
	}
	at, held := 0, false
	for _, part := range split(r.turn.Text, size) {
		if r.turn.Hold != nil && !held && at >= r.turn.HoldAt {
			out, held = append(out, nil), true // writeEvents waits for Hold here
		}
		at += utf8.RuneCountInString(part)
		if err := add(wireDelta{Content: jsonString(part)}, nil); err != nil {
			return nil, err
		}
	}
	for i, c := range calls {
		if i > 0 || first.ToolCalls == nil {
			if err := add(wireDelta{ToolCalls: []wireCall{callHeader(i, c)}}, nil); err != nil {
				return nil, err
			}
		}
		for _, part := range split(c.args, size) {
			d := wireDelta{ToolCalls: []wireCall{{Index: i, Function: wireFunction{Arguments: part}}}}
			if err := add(d, nil); err != nil {
				return nil, err
			}
		}
	}
	finish := r.finishReason()
	if err := add(wireDelta{}, &finish); err != nil {
		return nil, err
	}
	if r.includeUsage {
		u, err := marshal(r.wireUsage())
		if err != nil {
			return nil, fmt.Errorf("encode usage: %w", err)
		}
		b, err := marshal(wireChunk{
			ID:                r.id,
			Object:            "chat.completion.chunk",
			Created:           r.created,
			Model:             r.model,
			SystemFingerprint: systemFingerprint,
			Choices:           []wireChoice{},
			Usage:             u,
		})
		if err != nil {
			return nil, fmt.Errorf("encode usage chunk: %w", err)
		}
		out = append(out, sseEvent(b))
	}
	return append(out, []byte("data: [DONE]\n\n")), nil
}

// completion renders the non-streaming answer.
func (r reply) completion() ([]byte, error) {
	msg := wireFullMessage{Role: "assistant", Content: jsonString(r.turn.Text), Refusal: json.RawMessage(jsonNull)}
	if r.turn.Text == "" && len(r.calls) > 0 {
		msg.Content = json.RawMessage(jsonNull)
	}
	if r.turn.Reasoning != "" {
		msg.Reasoning = jsonString(r.turn.Reasoning)
	}
	for _, c := range r.calls {
		msg.ToolCalls = append(msg.ToolCalls, wireFullCall{ID: c.id, Type: "function", Function: wireFunction{Name: c.name, Arguments: c.args}})
	}
	b, err := marshal(wireCompletion{
		ID:                r.id,
		Object:            "chat.completion",
		Created:           r.created,
		Model:             r.model,
		Choices:           []wireFullChoice{{Message: msg, Logprobs: json.RawMessage(jsonNull), FinishReason: r.finishReason()}},
		Usage:             r.wireUsage(),
		SystemFingerprint: systemFingerprint,
	})
	if err != nil {
		return nil, fmt.Errorf("encode completion: %w", err)
	}
	return b, nil
}

func callHeader(i int, c resolvedCall) wireCall {
	return wireCall{Index: i, ID: c.id, Type: "function", Function: wireFunction{Name: c.name}}
}

func sseEvent(payload []byte) []byte {
	b := make([]byte, 0, len(payload)+8)
	b = append(b, "data: "...)
	b = append(b, payload...)
	return append(b, "\n\n"...)
}

// split cuts s into pieces of at most n runes; "" gives no pieces.
func split(s string, n int) []string {
	var out []string
	for s != "" {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// splitRaw cuts a raw SSE script after each "\n\n", keeping the separator,
// so each event is flushed on its own.
func splitRaw(raw string) []string {
	var out []string
	for raw != "" {
		i := strings.Index(raw, "\n\n")
		if i < 0 {
			return append(out, raw)
		}
		out = append(out, raw[:i+2])
		raw = raw[i+2:]
	}
	return out
}

// errAborted reports that the stream was cut on purpose (DisconnectAfter).
type errAborted struct{}

func (errAborted) Error() string { return "stream cut by DisconnectAfter" }

// writeEvents writes events with ChunkDelay between them and a flush after
// each; a nil event waits for hold (Turn.Hold). With a positive cut it
// stops after that many bytes and returns errAborted, so the caller can
// drop the connection mid-body.
func writeEvents(ctx context.Context, w http.ResponseWriter, events [][]byte, delay time.Duration, cut int, hold <-chan struct{}) error {
	flusher, _ := w.(http.Flusher)
	written := 0
	for i, ev := range events {
		if ev == nil {
			select {
			case <-hold:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if i > 0 && delay > 0 {
			if err := sleep(ctx, delay); err != nil {
				return err
			}
		}
		if cut > 0 && written+len(ev) >= cut {
			if _, err := w.Write(ev[:cut-written]); err != nil {
				return fmt.Errorf("write event: %w", err)
			}
			if flusher != nil {
				flusher.Flush()
			}
			return errAborted{}
		}
		if _, err := w.Write(ev); err != nil {
			return fmt.Errorf("write event: %w", err)
		}
		written += len(ev)
		if flusher != nil {
			flusher.Flush()
		}
	}
	if cut > 0 {
		// The stream was shorter than the cut: still end abruptly, without
		// the terminating chunk, since the script asked for a broken stream.
		return errAborted{}
	}
	return nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
