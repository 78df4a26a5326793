// Package scripted is an OpenAI-compatible Chat Completions server on
// loopback that answers from scripts, byte for byte like OpenAI's stream, so
// every covey test (agent loop, subagents, TUI end to end, the demo) runs
// against a model that says exactly what the test needs, including the
// failures real providers produce.
//
// A typical test:
//
//	s := scriptedtest.New(t) // closed at cleanup; unmatched requests fail t
//	s.Add(scripted.Conversation{
//		Match: scripted.Match{FirstUser: "list files"},
//		Turns: []scripted.Turn{
//			{ToolCalls: []scripted.Call{{Name: "glob", Args: map[string]any{"pattern": "*"}}}},
//			{Text: "Two files."}, // answers the request holding one assistant message
//		},
//	})
//	// point the client at s.URL(), then inspect s.Journal()
//
// Retries are scripted with Turn.Attempts, provider quirks with Turn.Raw,
// broken streams with DisconnectAfter and Stall, and answers that depend on
// tool results with Turn.Func. WithWindow makes it play a model with a
// context window: it refuses prompts over the window as vLLM, llama.cpp,
// LM Studio or OpenAI word it, and tells the window where such a server
// does (/v1/models, /props, /api/show, /api/v0/models).
package scripted

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"covey/internal/plural"
)

// systemFingerprint is the fixed system_fingerprint of every chunk.
const systemFingerprint = "fp_scripted"

// maxBody bounds a request body so a runaway client cannot exhaust memory.
const maxBody = 64 << 20

// Server serves /v1/chat/completions (and /chat/completions) on 127.0.0.1,
// and the Responses wire on /v1/responses (see responses.go).
// All its methods are safe for concurrent use, also while serving.
type Server struct {
	addr      string
	now       func() time.Time
	ids       func(prefix string) string
	onRequest func(Entry)

	mu             sync.Mutex
	convs          []Conversation
	journal        []*Entry
	attempts       map[attemptKey]int
	allowUnmatched bool
	windows        map[string]Window // by model; "" for every model
	probes         []string
	started        bool
	closed         bool
	ln             net.Listener
	srv            *http.Server
	cancel         context.CancelFunc
	handlers       sync.WaitGroup
	serveDone      chan struct{}
}

// attemptKey identifies the requests that count as retries of one another.
type attemptKey struct {
	conv      int
	firstUser string
	turn      int
}

// Option configures a Server.
type Option func(*Server)

// WithClock sets the clock used for chunk "created" fields and journal
// times, so golden tests get stable bytes.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithIDs sets the source of completion ids (prefix "chatcmpl-") and
// generated tool call ids (prefix "call_"); see SequentialIDs.
func WithIDs(next func(prefix string) string) Option { return func(s *Server) { s.ids = next } }

// WithAddr sets the listen address (default 127.0.0.1:0, a free port).
func WithAddr(addr string) Option { return func(s *Server) { s.addr = addr } }

// WithOnRequest calls fn with each request's journal entry once its answer
// is complete (the command uses it to write its journal file). fn runs on
// the serving goroutine and must not block for long.
func WithOnRequest(fn func(Entry)) Option { return func(s *Server) { s.onRequest = fn } }

// SequentialIDs returns an id source giving prefix+"1", prefix+"2", ... with
// one counter per prefix, for deterministic output.
func SequentialIDs() func(prefix string) string {
	var mu sync.Mutex
	next := map[string]int{}
	return func(prefix string) string {
		mu.Lock()
		defer mu.Unlock()
		next[prefix]++
		return fmt.Sprintf("%s%d", prefix, next[prefix])
	}
}

// randomID gives OpenAI-looking ids: the prefix and 24 random characters.
func randomID(prefix string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return prefix + string(b)
}

// New returns a Server that is not yet listening; Add conversations and call
// Start.
func New(opts ...Option) *Server {
	s := &Server{
		addr:     "127.0.0.1:0",
		now:      time.Now,
		ids:      randomID,
		attempts: map[attemptKey]int{},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Problems lists, once the server is closed, every unmatched request as a
// line for a test failure, unless AllowUnmatched was called, so an
// unexpected request cannot pass unseen. Test helpers (scriptedtest.New)
// report them.
func (s *Server) Problems() []string {
	s.mu.Lock()
	allow := s.allowUnmatched
	s.mu.Unlock()
	if allow {
		return nil
	}
	var out []string
	for _, e := range s.Unmatched() {
		out = append(out, fmt.Sprintf("scripted server: unmatched request: %s (first user %q, model %q, turn %d)",
			e.Unmatched, e.FirstUser, e.Model, e.Turn))
	}
	return out
}

// Start listens on the configured address and serves in the background.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("scripted server: already started")
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("scripted server: listen %s: %w", s.addr, err)
	}
	// Request contexts derive from base, so Close ends stalled and delayed
	// answers at once instead of waiting for their timers.
	base, cancel := context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.handleChat)
	mux.HandleFunc("/chat/completions", s.handleChat)
	mux.HandleFunc("/v1/messages", s.handleMessages)
	mux.HandleFunc("/messages", s.handleMessages)
	mux.HandleFunc("/v1/responses", s.handleResponses)
	mux.HandleFunc("/responses", s.handleResponses)
	mux.HandleFunc("/v1/models", s.handleModels)
	mux.HandleFunc("/models", s.handleModels)
	mux.HandleFunc("/props", s.handleProps)
	mux.HandleFunc("/api/show", s.handleShow)
	mux.HandleFunc("/api/v0/models", s.handleLMStudioModels)
	mux.HandleFunc("/", s.handleUnknown)
	s.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	s.ln, s.cancel, s.started = ln, cancel, true
	s.serveDone = make(chan struct{})
	go func() {
		defer close(s.serveDone)
		_ = s.srv.Serve(ln) // returns ErrServerClosed after Close
	}()
	return nil
}

// Close stops the server, cuts open streams and waits for every handler to
// return. It may be called more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.started || s.closed {
		s.closed = true
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	_ = s.srv.Close()
	<-s.serveDone
	s.handlers.Wait()
}

// URL is the base URL clients use, ending in /v1, e.g.
// http://127.0.0.1:41234/v1. It is "" before Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String() + "/v1"
}

// Add registers a conversation; it is safe while serving.
func (s *Server) Add(c Conversation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.convs = append(s.convs, c)
}

// Journal returns every request received so far, in arrival order.
func (s *Server) Journal() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, len(s.journal))
	for i, e := range s.journal {
		out[i] = *e
	}
	return out
}

// Unmatched returns the requests no scripted turn answered.
func (s *Server) Unmatched() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Entry
	for _, e := range s.journal {
		if e.Unmatched != "" {
			out = append(out, *e)
		}
	}
	return out
}

// AllowUnmatched stops Problems (and so scriptedtest.New's cleanup) from failing the test on unmatched
// requests, for tests that provoke them on purpose.
func (s *Server) AllowUnmatched() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowUnmatched = true
}

// enter registers a running handler, refusing once Close has begun so
// handlers.Wait cannot race with Add.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// record appends e to the journal and returns the stored copy.
func (s *Server) record(e Entry) *Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &e
	s.journal = append(s.journal, p)
	return p
}

// finish stamps the entry as answered and reports it to onRequest.
func (s *Server) finish(e *Entry, status int) {
	s.mu.Lock()
	e.Done = s.now()
	e.Status = status
	snapshot := *e
	s.mu.Unlock()
	if s.onRequest != nil {
		s.onRequest(snapshot)
	}
}

// selectTurn matches e to a conversation and turn, fills the entry's
// Conversation, Attempt and Unmatched fields, and returns the turn to serve.
// It holds the lock only for the lookup, never while streaming.
func (s *Server) selectTurn(e *Entry) (Turn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	best, bestScore := -1, -1
	for i, c := range s.convs {
		if c.Match.fits(e.FirstUser, e.System, e.Model) && c.Match.specificity() > bestScore {
			best, bestScore = i, c.Match.specificity()
		}
	}
	if best < 0 {
		e.Unmatched = "no conversation matches"
		return Turn{}, false
	}
	c := s.convs[best]
	e.Conversation = c.Name
	if e.Turn >= len(c.Turns) {
		e.Unmatched = fmt.Sprintf("conversation %q has %s, request is turn %d", c.Name, plural.Count(len(c.Turns), "turn"), e.Turn)
		return Turn{}, false
	}
	key := attemptKey{conv: best, firstUser: e.FirstUser, turn: e.Turn}
	e.Attempt = s.attempts[key]
	s.attempts[key]++
	t := c.Turns[e.Turn]
	if e.Attempt < len(t.Attempts) {
		return t.Attempts[e.Attempt], true
	}
	return t, true
}

// describe lists the conversations for the unmatched error, so a failing
// test shows what was scripted next to what arrived.
func (s *Server) describe() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.convs) == 0 {
		return "no conversations scripted"
	}
	parts := make([]string, len(s.convs))
	for i, c := range s.convs {
		parts[i] = fmt.Sprintf("%q (first_user %q, system_contains %q, model %q, %d turns)",
			c.Name, c.Match.FirstUser, c.Match.SystemContains, c.Match.Model, len(c.Turns))
	}
	return "scripted: " + strings.Join(parts, "; ")
}
