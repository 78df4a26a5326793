package session

import (
	"context"
	"os"
	"sync"
	"sync/atomic"

	"covey/agent"
	"covey/config"
	"covey/window"
)

// windows knows the context windows of the session's models: what config
// says, what an overflow error taught (the server's word wins for the rest
// of the session), what a server said when asked, and the catalog of
// hosted models, in that order of trust but for overflow first.
type windows struct {
	disc *window.Discoverer
	// mainModel is the model the session started with: the top-level
	// context_window is its.
	mainModel string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// mainReady closes when the main agent's window discovery ends.
	mainMu    sync.Mutex
	mainReady <-chan struct{}

	// built is set once the session is built: children restored while it
	// is built never wait for a server (the first frame must not).
	built atomic.Bool

	mu      sync.Mutex
	learned map[string]int // by model: the window an overflow named
}

func newWindows(mainModel string) *windows {
	ctx, cancel := context.WithCancel(context.Background())
	return &windows{
		disc:      &window.Discoverer{CacheFile: window.CacheFile()},
		mainModel: mainModel, ctx: ctx, cancel: cancel,
		learned: map[string]int{},
	}
}

// stop ends every discovery still running and waits for it, so nothing
// emits after the event stream closes.
func (w *windows) stop() {
	if w == nil {
		return
	}
	w.cancel()
	w.wg.Wait()
}

// learn records the window an overflow error named for model.
func (w *windows) learn(model string, n int) {
	w.mu.Lock()
	w.learned[model] = n
	w.mu.Unlock()
}

// known returns what is known at once of model's window at ep, and
// whether asking the server could tell more.
func (s *Session) knownWindow(ep config.Endpoint, model string) (n, maxOut int, from string, ask bool) {
	w := s.windows
	w.mu.Lock()
	learned := w.learned[model]
	w.mu.Unlock()
	lim := s.cfg.Limits(ep.Name, model, w.mainModel)
	maxOut = lim.MaxOutputTokens
	cat, inCatalog := window.Catalog(ep.BaseURL, model)
	if maxOut == 0 {
		maxOut = cat.MaxOutput
	}
	switch {
	case learned > 0:
		return learned, maxOut, agent.WindowFromOverflow, false
	case lim.ContextWindow > 0:
		return lim.ContextWindow, maxOut, window.FromConfig, false
	}
	if info, ok := w.disc.Cached(ep.BaseURL, model); ok {
		// Asked again in the background: the server may have restarted
		// with another size.
		return info.Tokens, maxOut, window.FromServer, true
	}
	if inCatalog {
		return cat.Tokens, maxOut, window.FromCatalog, false
	}
	return 0, maxOut, "", true
}

// applyWindow gives a the window of model at ep: what is known at once,
// then, in the background and bounded, what the server says. The channel
// returned closes when that is done.
func (s *Session) applyWindow(a *agent.Agent, ep config.Endpoint, model string) <-chan struct{} {
	done := make(chan struct{})
	n, maxOut, from, ask := s.knownWindow(ep, model)
	a.SetMaxOutputTokens(maxOut)
	a.SetAnswerCap(s.answerCap(ep, model))
	a.LearnContextWindow(n, from)
	if !ask {
		close(done)
		return done
	}
	w := s.windows
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(done)
		info, err := w.disc.Discover(w.ctx, ep.BaseURL, ep.APIKey, model)
		if err != nil || w.ctx.Err() != nil || a.Model() != model {
			return
		}
		// A window set meanwhile by config or an overflow stays.
		if f := a.ContextWindowFrom(); f == window.FromConfig || f == agent.WindowFromOverflow {
			return
		}
		if a.ContextWindow() != info.Tokens || a.ContextWindowFrom() != window.FromServer {
			a.LearnContextWindow(info.Tokens, window.FromServer)
		}
	}()
	return done
}

// applyMainWindow is applyWindow for the main agent; its first request
// waits for it (waitWindow).
func (s *Session) applyMainWindow(model string) {
	done := s.applyWindow(s.main, s.endpoint, model)
	s.windows.mainMu.Lock()
	s.windows.mainReady = done
	s.windows.mainMu.Unlock()
}

// waitWindow waits until the main agent's window discovery has ended (at
// most window.DiscoverTimeout after the start), so the first request
// knows the window it must fit; the first frame never waits for it.
func (s *Session) waitWindow(ctx context.Context) {
	s.windows.mainMu.Lock()
	ready := s.windows.mainReady
	s.windows.mainMu.Unlock()
	if ready == nil {
		return
	}
	select {
	case <-ready:
	case <-ctx.Done():
	}
}

// childWindow tells a child's window from its provider and model (the
// subagent manager's Window): a server not asked yet is asked now, for at
// most window.DiscoverTimeout.
func (s *Session) childWindow(p agent.Provider, model string) agent.Limits {
	ep := s.endpointOf(p)
	n, maxOut, from, ask := s.knownWindow(ep, model)
	if ask && n == 0 && s.windows.built.Load() {
		if info, err := s.windows.disc.Discover(s.windows.ctx, ep.BaseURL, ep.APIKey, model); err == nil {
			n, from = info.Tokens, window.FromServer
		}
	}
	return agent.Limits{Window: n, From: from, MaxOutput: maxOut, AnswerCap: s.answerCap(ep, model)}
}

// answerCap is the max_tokens sent for model at ep: the user's own
// max_output_tokens (config), never a catalog's.
func (s *Session) answerCap(ep config.Endpoint, model string) int {
	return s.cfg.Limits(ep.Name, model, s.windows.mainModel).MaxOutputTokens
}

// endpointOf finds the endpoint a provider serves (the main one for the
// demo's fixed provider and anything unknown).
func (s *Session) endpointOf(p agent.Provider) config.Endpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, q := range s.providers {
		if q == p && key.profile != s.endpoint.Name {
			if ep, err := config.ResolveEndpoint(s.cfg, key.profile, config.Overrides{}, os.Getenv); err == nil {
				return ep
			}
		}
	}
	return s.endpoint
}

// noteWindow hears every event on its way out: a window an overflow taught
// one agent is the model's for the rest of the session.
func (s *Session) noteWindow(e agent.Event) {
	c, ok := e.(agent.ContextReported)
	if !ok || c.WindowFrom != agent.WindowFromOverflow || c.Model == "" {
		return
	}
	s.windows.learn(c.Model, c.Window)
	// A child on the main agent's model taught it too. (The main agent's
	// own report comes back here as well, and stops: it is not a child.)
	if c.IsChild() && s.main != nil && s.main.Model() == c.Model && s.main.ContextWindow() != c.Window {
		s.main.LearnContextWindow(c.Window, agent.WindowFromOverflow)
	}
}

// ContextBreakdown breaks the main agent's next request down into its
// parts (/context).
func (s *Session) ContextBreakdown() agent.ContextBreakdown {
	var files []string
	if s.env.InstructionsFile != "" {
		files = []string{s.env.InstructionsFile}
	}
	return s.main.ContextBreakdown(s.env.Instructions, files)
}
