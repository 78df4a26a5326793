package scripted

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
)

// handleChat records, matches and answers one chat completion request.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	s.handle(w, r, parseRequest, r.Header.Get("Authorization") != "")
}

// handleMessages is handleChat on Anthropic's Messages wire: the key comes
// as x-api-key, the answer streams Anthropic's events.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	s.handle(w, r, parseAnthropicRequest, r.Header.Get("X-Api-Key") != "")
}

// handle records, matches and answers one request of a wire, parse
// reading its body.
func (s *Server) handle(w http.ResponseWriter, r *http.Request, parse func([]byte) (Entry, error), hasAuth bool) {
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
	if err != nil && (errors.Is(err, io.ErrUnexpectedEOF) || r.Context().Err() != nil) {
		s.record(Entry{Time: arrived, Abandoned: true})
		return
	}
	if err != nil {
		e := s.record(Entry{Time: arrived, Unmatched: "read body: " + err.Error()})
		s.writeError(w, e, http.StatusBadRequest, e.Unmatched, "invalid_request_error")
		return
	}
	entry, err := parse(body)
	entry.Time, entry.Body = arrived, body
	entry.HasAuth = hasAuth
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
	s.serve(r.Context(), w, e, turn)
}

// callFunc runs a test's Func, turning its panic into an error so one bad
// script fails its test with a message instead of a dropped connection.
func callFunc(f func(Request) Turn, r Request) (t Turn, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("turn Func panicked: %v", p)
		}
	}()
	return f(r), nil
}

// fail marks e as not answered by its script, so NewTest reports it.
func (s *Server) fail(e *Entry, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.Unmatched = reason
}

// writeError answers with an OpenAI-style error document and finishes e.
func (s *Server) writeError(w http.ResponseWriter, e *Entry, status int, msg, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorBody(msg, typ, ""))
	s.finish(e, status)
}

// serve writes turn as the answer to e.
func (s *Server) serve(ctx context.Context, w http.ResponseWriter, e *Entry, turn Turn) {
	status := http.StatusOK
	// finish runs also when DisconnectAfter panics to cut the connection.
	defer func() { s.finish(e, status) }()
	if turn.Delay > 0 {
		if err := sleep(ctx, turn.Delay); err != nil {
			// The client left or the server is closing: send nothing at all
			// rather than an empty 200.
			panic(http.ErrAbortHandler)
		}
	}
	h := w.Header()
	for k, v := range turn.Headers {
		h.Set(k, v)
	}
	if turn.Status != 0 && turn.Status != http.StatusOK {
		status = turn.Status
		body := []byte(turn.Body)
		if turn.Body == "" {
			body = defaultErrorBody(turn.Status)
		}
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	var events [][]byte
	switch {
	case turn.Endless != "":
		if err := checkEndless(turn.Endless); err != nil {
			s.fail(e, "bad turn: "+err.Error())
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write(errorBody("scripted server: bad turn: "+err.Error(), "scripted_error", ""))
			return
		}
	case turn.Stall, turn.Raw != "":
		for _, ev := range splitRaw(turn.Raw) {
			events = append(events, []byte(ev))
		}
	default:
		r, err := s.newReply(turn, *e)
		if err == nil && !e.Stream && e.API != APIAnthropic {
			var b []byte
			if b, err = r.completion(); err == nil {
				h.Set("Content-Type", "application/json")
				_, _ = w.Write(b)
				return
			}
		}
		switch {
		case err == nil && e.API == APIAnthropic:
			events, err = r.anthropicEvents()
		case err == nil:
			events, err = r.events()
		}
		if err != nil {
			s.fail(e, "bad turn: "+err.Error())
			status = http.StatusInternalServerError
			h.Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write(errorBody("scripted server: bad turn: "+err.Error(), "scripted_error", ""))
			return
		}
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/event-stream")
	}
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	err := writeEvents(ctx, w, events, turn.ChunkDelay, turn.DisconnectAfter, turn.Hold)
	if turn.Endless != "" {
		err = writeEndless(ctx, w, turn, e.Model)
	}
	if turn.Stall && err == nil {
		<-ctx.Done()
		err = ctx.Err()
	}
	if err != nil {
		// A cut on purpose, a client gone or a server closing: net/http
		// drops the connection without ending the chunked body, so a client
		// still reading sees an unexpected EOF rather than a clean end.
		panic(http.ErrAbortHandler)
	}
}

// handleModels lists the scripted model names, so a client that asks for
// models before chatting gets a sensible answer.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	s.probe(r.Method + " " + r.URL.Path)
	s.mu.Lock()
	names := []string{"scripted"}
	seen := map[string]bool{"scripted": true}
	for _, c := range s.convs {
		if m := c.Match.Model; m != "" && !seen[m] {
			seen[m] = true
			names = append(names, m)
		}
	}
	for m := range s.windows {
		if m != "" && !seen[m] {
			seen[m] = true
			names = append(names, m)
		}
	}
	s.mu.Unlock()
	sort.Strings(names[1:])
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
		// MaxModelLen is vLLM's window of the model.
		MaxModelLen int `json:"max_model_len,omitempty"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, n := range names {
		list.Data = append(list.Data, model{ID: n, Object: "model", OwnedBy: "scripted", MaxModelLen: s.modelWindow(n)})
	}
	b, _ := marshal(list)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// handleUnknown records requests to any other path as unmatched: a client
// with a wrong base URL must fail its test loudly.
func (s *Server) handleUnknown(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "scripted server closing", http.StatusServiceUnavailable)
		return
	}
	defer s.handlers.Done()
	e := s.record(Entry{
		Time:      s.now(),
		HasAuth:   r.Header.Get("Authorization") != "",
		Unmatched: "unknown path " + r.Method + " " + r.URL.Path,
	})
	s.writeError(w, e, http.StatusNotFound, "scripted server: "+e.Unmatched+" (serve /v1/chat/completions or /v1/messages)", "invalid_request_error")
}
