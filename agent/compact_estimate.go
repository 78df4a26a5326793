package agent

// fixedTokens estimates the part of every request the history does not
// make: the system prompt and the tools' definitions.
func (a *Agent) fixedTokens() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	if a.cfg.System != "" {
		n += EstimateMessage(Message{Role: RoleSystem, Content: a.cfg.System})
	}
	for _, t := range a.cfg.Tools.Tools() {
		n += EstimateToolSpec(ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	}
	return n
}

// estimateFill is the next request's size (see ContextFill).
func (a *Agent) estimateFill() int {
	n, _ := a.ContextFill()
	return n
}

// estimateRequest is the next request's size estimated from its parts
// alone, never the server's count: what a compaction compares before and
// after.
func (a *Agent) estimateRequest() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.estimateRequestLocked()
}
