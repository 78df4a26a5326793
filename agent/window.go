package agent

// The context window: what the model can hold in one request. The main
// agent and each child know their own model's window; 0 means unknown.
// Config (context_window), a server's own answer, a catalog of hosted
// models, or an overflow error that names the limit set it.

// ContextWindow returns the window in tokens of the agent's model, or 0
// when it is unknown.
func (a *Agent) ContextWindow() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.ContextWindow
}

// SetContextWindow records the window in tokens of the agent's model (0:
// unknown). It is safe to call while the agent runs; the next request
// uses it.
func (a *Agent) SetContextWindow(n int) {
	if n < 0 {
		n = 0
	}
	a.mu.Lock()
	a.cfg.ContextWindow = n
	a.mu.Unlock()
}

// bytesPerToken is the rough size of one token in English text and code,
// the estimate covey uses where no server has counted.
const bytesPerToken = 4

// EstimateTokens estimates the tokens of s, rounding up.
func EstimateTokens(s string) int {
	return (len(s) + bytesPerToken - 1) / bytesPerToken
}
