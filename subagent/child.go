package subagent

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"covey/agent"
	"covey/agentdefs"
	"covey/permission"
	"covey/tools"
)

// outcome is how one child ended and what goes back to its parent.
type outcome struct {
	reason string // one of agent's Stop constants
	text   string // the body of its slot in the task result
}

// spawn prepares one child and announces it (ChildStarted), so panes appear
// in call order even when the child must queue for a slot. It returns nil
// and an outcome when the child cannot exist (an unknown type).
func (m *Manager) spawn(ctx context.Context, parent agent.Source, parentCall string, spec TaskSpec) (*child, *outcome) {
	def, err := m.cfg.Defs.Lookup(spec.SubagentType)
	if err != nil {
		return nil, &outcome{reason: agent.StopError, text: "Error: " + err.Error()}
	}
	c := &child{m: m, def: def, spec: spec, start: time.Now()}
	c.src = agent.Source{
		AgentID:      m.newID(def.Name),
		ParentCallID: parentCall,
		AgentType:    def.Name,
		Description:  spec.Description,
		Depth:        parent.Depth + 1,
	}
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	// Registered while still queued, so a queued child can be cancelled too.
	m.register(c.src.AgentID, c.cancel)
	c.provider, c.model, c.resolveErr = m.cfg.Resolve(def)
	if c.resolveErr == nil {
		c.policy, c.resolveErr = m.scope(def)
	}
	started := agent.ChildStarted{Source: c.src, Model: c.model, Color: def.Color}
	if spec.Isolation == IsolationWorktree || def.Isolation == agentdefs.IsolationWorktree {
		// Made before the child is announced, so its pane says where it
		// works; a child that cannot be isolated never starts.
		iso, err := c.isolate(ctx)
		if err != nil {
			c.cancel(nil)
			m.unregister(c.src.AgentID, agent.Usage{})
			return nil, &outcome{reason: agent.StopError, text: "Error: " + err.Error() + "; the child was not started"}
		}
		c.iso, started.Worktree = iso, iso.info()
	}
	m.cfg.Emit(started)
	return c, nil
}

// runChild waits for a slot, runs the child to its end and never panics:
// whatever happens inside the child is caught and reported in its own slot.
func (m *Manager) runChild(c *child) outcome {
	defer c.cancel(nil)
	sem := m.sem(c.src.Depth)
	select {
	case sem <- struct{}{}:
		defer func() { <-sem }()
	case <-c.ctx.Done():
		out := outcome{reason: agent.StopCancelled, text: agent.CancelledResult + " (before it started)"}
		c.finish(out, "")
		m.unregister(c.src.AgentID, agent.Usage{})
		return out
	}
	c.start = time.Now() // elapsed counts from the start of work, not the queue
	out := c.run(c.ctx)
	if c.iso != nil {
		out = c.review(out)
	}
	m.unregister(c.src.AgentID, c.usage())
	return out
}

// child is one running subagent.
type child struct {
	m      *Manager
	def    agentdefs.Definition
	src    agent.Source
	spec   TaskSpec
	ctx    context.Context
	cancel context.CancelCauseFunc
	start  time.Time

	provider   agent.Provider
	model      string
	resolveErr error

	a     *agent.Agent
	calls atomic.Int64
	// iso is the child's own worktree; nil when it works in the workspace.
	iso *isolation
	// policy is the session's permission policy scoped by the child's
	// tool rules (Bash(git diff:*), Edit(docs/**), ...); nil when its
	// definition has none, and the session's gate serves it as it is.
	policy *permission.Policy
}

// finish announces the child's end.
func (c *child) finish(out outcome, errMsg string) {
	c.m.cfg.Emit(agent.ChildFinished{
		Source: c.src, Reason: out.reason, Error: errMsg, ToolCalls: int(c.calls.Load()),
		Elapsed: time.Since(c.start), Usage: c.usage(), Summary: firstLines(out.text, 1),
	})
}

func (c *child) usage() agent.Usage {
	if c.a == nil {
		return agent.Usage{}
	}
	return c.a.Usage()
}

func (c *child) run(ctx context.Context) (out outcome) {
	timeout := c.def.Timeout
	if timeout <= 0 {
		timeout = c.m.cfg.Timeout
	}
	maxTurns := c.def.MaxTurns
	if maxTurns <= 0 {
		maxTurns = c.m.cfg.MaxTurns
	}
	runCtx, stop := context.WithTimeoutCause(ctx, timeout, errTimedOut)
	defer stop()

	var errMsg string
	defer func() {
		if p := recover(); p != nil {
			errMsg = fmt.Sprintf("the child crashed: %v", p)
			out = outcome{reason: agent.StopError, text: "Error: " + errMsg + "\n" + firstLines(string(debug.Stack()), 8)}
		}
		c.finish(out, errMsg)
	}()

	if c.resolveErr != nil {
		errMsg = c.resolveErr.Error()
		return outcome{reason: agent.StopError, text: "Error: " + errMsg}
	}
	c.a = agent.New(agent.Config{
		Provider: c.provider,
		Model:    c.model,
		System:   agent.SystemPrompt(c.def.Prompt, c.m.cfg.Environment),
		Tools:    c.tools(),
		MaxTurns: maxTurns,
		Source:   c.src,
		Emit:     c.emit,
	})
	res, runErr := c.a.Run(runCtx, c.spec.Prompt)

	switch cause := context.Cause(runCtx); {
	case runCtx.Err() != nil && errors.Is(cause, errTimedOut):
		out.reason = agent.StopTimeout
		out.text = fmt.Sprintf("[cut short: timed out after %s; what it found so far follows]\n\n%s", timeout, c.findings())
	case runCtx.Err() != nil:
		out.reason = agent.StopCancelled
		out.text = agent.CancelledResult + partial(c.findings())
	case res.Reason == agent.StopMaxTurns:
		out.reason = agent.StopMaxTurns
		out.text = fmt.Sprintf("[cut short: reached its limit of %d turns; what it found so far follows]\n\n%s", maxTurns, c.findings())
	case runErr != nil:
		errMsg = runErr.Error()
		out.reason = agent.StopError
		out.text = "Error: " + errMsg + partial(c.findings())
	default:
		out.reason = agent.StopOK
		out.text = strings.TrimSpace(res.Answer)
		if out.text == "" {
			out.text = "[the agent finished without a report]\n\n" + c.findings()
		}
	}
	return out
}

// emit forwards the child's events to the session stream, counting its own
// tool calls (not those of its own children).
func (c *child) emit(e agent.Event) {
	tf, ok := e.(agent.ToolFinished)
	if ok && e.From().AgentID == c.src.AgentID {
		c.calls.Add(1)
	}
	c.m.cfg.Emit(e)
	if ok && c.iso != nil && e.From().AgentID == c.src.AgentID && changesFiles(tf.Name) {
		c.reportFiles(c.ctx, tf.CallID)
	}
}

// tools builds the child's tool set: a fresh read record, the shared locks,
// the gate labelled with the child, its allowed paths, and only the tools
// its definition allows. Read-only is enforced here, by what is offered.
func (c *child) tools() *tools.Registry {
	ws := c.m.cfg.Workspace
	if c.iso != nil {
		ws = c.iso.ws
	}
	env := &tools.Env{
		WS:           ws,
		Reads:        tools.NewReadTracker(),
		Locks:        c.m.cfg.Locks,
		Gate:         c.gate(),
		AllowedPaths: c.def.AllowedPaths,
		Todos:        tools.NewTodoList(),
		AllowRead:    c.m.cfg.AllowRead,
	}
	if c.policy != nil {
		env.AllowRead = c.policy.AllowRead
	}
	base := append(slices.Clone(tools.BaseToolNames), agentdefs.ToolTask)
	allowed := agentdefs.EffectiveTools(c.def, base)
	reg := tools.NewRegistry()
	for _, t := range tools.Builtins(env) {
		if slices.Contains(allowed, t.Name()) && (!c.m.cfg.ReadOnly || t.ReadOnly()) {
			reg.Add(t)
		}
	}
	if slices.Contains(allowed, agentdefs.ToolTask) {
		if t := c.m.Tool(c.src); t != nil {
			reg.Add(t)
		}
	}
	if c.m.cfg.MCPTools != nil {
		reg.AddSource(c.m.cfg.MCPTools(env.Gate, func(t tools.Tool) bool { return mcpAllowed(c.def, t) }))
	}
	return reg
}

// mcpAllowed reports whether a child of type def gets the MCP tool t: its
// tools list names it (mcp__srv__tool, or mcp__srv for the whole server),
// or it has no tools list and is not a read-only type; its disallowed
// tools do not; and its mcpServers, when set, include t's server.
func mcpAllowed(def agentdefs.Definition, t tools.Tool) bool {
	if def.Tools == nil && def.ReadOnly {
		return false
	}
	if len(agentdefs.EffectiveTools(def, []string{t.Name()})) == 0 {
		return false
	}
	if def.MCPServers == nil {
		return true
	}
	s, ok := t.(interface{ Server() string })
	return ok && slices.Contains(def.MCPServers, s.Server())
}

// scoper is a gate that can make a policy for one agent, stricter than
// itself (permission.Policy).
type scoper interface {
	Scoped(allow, deny []string) (*permission.Policy, error)
}

// scope returns the session's policy scoped by def's tool rules, so that
// an agent file's Bash(git diff:*) lets its child run git diff and
// nothing else without the user's say; nil when def has no rules. A
// definition with rules the gate cannot enforce is an error: its child
// must not run with more than its file allows.
func (m *Manager) scope(def agentdefs.Definition) (*permission.Policy, error) {
	rules, deny := def.RuleSources(), def.DenySources()
	if len(rules)+len(deny) == 0 {
		return nil, nil
	}
	rules = append(rules, deny...) // for the message
	sc, ok := m.cfg.Gate.(scoper)
	if !ok {
		return nil, fmt.Errorf("the tool rules of %s (%s) cannot be enforced here, so it was not started",
			def.Name, strings.Join(rules, ", "))
	}
	p, err := sc.Scoped(def.RuleSources(), deny)
	if err != nil {
		return nil, fmt.Errorf("the tool rules of %s: %w", def.Name, err)
	}
	return p, nil
}

// gate labels the child's permission requests so the user sees who asks.
func (c *child) gate() permission.Gate {
	g := c.m.cfg.Gate
	if c.policy != nil {
		g = c.policy
	}
	if g == nil {
		return nil
	}
	label := fmt.Sprintf("[%s] %s", c.def.Name, c.spec.Description)
	return permission.GateFunc(func(ctx context.Context, req permission.Request) permission.Verdict {
		req.Agent, req.AgentID = label, c.src.AgentID
		if c.iso != nil && (req.Tool == agentdefs.ToolWriteFile || req.Tool == agentdefs.ToolEditFile) {
			req.Isolated = true
		}
		return g.Check(ctx, req)
	})
}

// findings is what the child found before it stopped: its text so far, or,
// if it wrote none, the tool calls it made and what they returned. Never
// empty.
func (c *child) findings() string {
	if c.a == nil {
		return "(it had not started)"
	}
	var text []string
	var calls []string
	results := map[string]string{}
	history := c.a.History()
	for _, m := range history {
		if m.Role == agent.RoleTool {
			results[m.ToolCallID] = firstLines(m.Content, 1)
		}
	}
	for _, m := range history {
		if m.Role != agent.RoleAssistant {
			continue
		}
		if s := strings.TrimSpace(m.Content); s != "" {
			text = append(text, s)
		}
		for _, tc := range m.ToolCalls {
			line := "- " + tc.Name
			if k := tools.KeyArg(tc.Name, []byte(tc.Arguments)); k != "" {
				line += " " + k
			}
			if r, ok := results[tc.ID]; ok {
				line += " → " + shorten(r, 120)
			}
			calls = append(calls, line)
		}
	}
	var b strings.Builder
	if len(text) > 0 {
		b.WriteString(strings.Join(text, "\n\n"))
	}
	if len(calls) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Tool calls it made:\n" + strings.Join(calls, "\n"))
	}
	if b.Len() == 0 {
		return "(it had found nothing yet)"
	}
	return b.String()
}

func partial(findings string) string {
	if findings == "" || strings.HasPrefix(findings, "(") {
		return ""
	}
	return "\n\nWhat it found before it stopped:\n" + findings
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
