package subagent

import (
	"strconv"
	"strings"
	"time"

	"covey/agent"
	"covey/agentdefs"
)

// Restored is a child as a session file kept it (see session.Loaded).
type Restored struct {
	Source      agent.Source
	Model       string
	Messages    []agent.Message
	Reason      string // its last stop reason
	Interrupted bool   // covey died while it ran
	// Usage and Elapsed are what it had used and worked when it last
	// finished; a resumed child counts on from them.
	Usage   agent.Usage
	Elapsed time.Duration
	// Isolated: it worked in its own worktree; resumed, it works in a new
	// one (never in the user's checkout) and its changes are reviewed.
	Isolated bool
}

// Restore brings back the children of a resumed session as finished
// children: send_message and SendToChild resume them with their histories.
// A child whose type no longer exists is skipped. IDs of later children
// continue after the restored ones.
func (m *Manager) Restore(rs []Restored) {
	for _, r := range rs {
		def, ok := m.cfg.Defs.Get(r.Source.AgentType)
		if !ok || r.Source.AgentID == "" || len(r.Messages) == 0 {
			continue
		}
		if i := strings.LastIndexByte(r.Source.AgentID, '-'); i >= 0 {
			if n, err := strconv.ParseInt(r.Source.AgentID[i+1:], 10, 64); err == nil {
				for cur := m.seq.Load(); n > cur && !m.seq.CompareAndSwap(cur, n); cur = m.seq.Load() {
				}
			}
		}
		src := r.Source
		if src.ParentID == "" {
			src.ParentID = agent.MainAgentID // files from before ParentID
		}
		spec := TaskSpec{Description: src.Description, SubagentType: def.Name, Name: src.Name}
		if r.Isolated || def.Isolation == agentdefs.IsolationWorktree {
			spec.Isolation = IsolationWorktree
		}
		c := &child{m: m, def: def, src: src, parentID: src.ParentID, spec: spec,
			bg: make(chan struct{}), done: make(chan struct{})}
		close(c.done)
		c.out = outcome{reason: r.Reason}
		c.state = c.out.state()
		if r.Interrupted {
			c.state = agent.StateInterrupted
		}
		name := src.Name
		m.mu.Lock()
		_, taken := m.names[name]
		m.mu.Unlock()
		if taken {
			name = ""
		}
		if err := m.register(c, name); err != nil {
			continue
		}
		c.limits()
		// It works where a new child of its parent would, under its agent
		// file's rules, like the child it was.
		c.home = m.homeOf(c.parentID)
		c.provider, c.model, c.resolveErr = m.cfg.Resolve(def)
		if r.Model != "" {
			c.model = r.Model
		}
		if c.resolveErr == nil {
			c.policy, c.resolveErr = m.scope(def)
		}
		if c.resolveErr == nil {
			c.newAgent()
			c.a.SetHistory(r.Messages)
			// Its budget holds across the restart; the session's total
			// this time counts only what it uses from now on.
			c.a.AddUsage(r.Usage)
			c.counted, c.elapsed = r.Usage, r.Elapsed
		}
	}
}
