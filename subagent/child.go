package subagent

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"covey/internal/excerpt"
	"covey/internal/plural"
	"covey/tools/toolname"

	"covey/agent"
	"covey/agentdefs"
	"covey/hooks"
	"covey/permission"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/workspace"
)

// outcome is how one child ended and what goes back to its parent.
type outcome struct {
	reason string // one of agent's Stop constants
	text   string // the body of its slot in the task result
	// failedCalls counts the tool calls of a child that finished well
	// (StopOK) that failed: its report says so, and so does the result.
	failedCalls int
}

// state maps a stop reason to the child's final state.
func (o outcome) state() string {
	switch o.reason {
	case agent.StopOK:
		return agent.StateDone
	case agent.StopCancelled:
		return agent.StateCancelled
	case agent.StopTimeout, agent.StopMaxTurns, agent.StopBudget, agent.StopLength, agent.StopContentFilter, agent.StopRefusal, agent.StopPaused:
		return agent.StateCutShort
	}
	return agent.StateFailed
}

// child is one subagent: running, or finished and resumable.
type child struct {
	m        *Manager
	def      agentdefs.Definition
	src      agent.Source
	spec     TaskSpec
	parentID string // the AgentID of the agent that spawned it

	provider   agent.Provider
	model      string
	resolveErr error
	maxTurns   int
	timeout    time.Duration
	maxTokens  int
	maxCost    float64

	a     *agent.Agent // nil when its provider could not be resolved
	calls atomic.Int64
	// failures lists its own tool calls that failed (an error, a
	// command's non-zero exit), "edit_file greet.go: old_string not
	// found", the first few of them; failedN counts them all.
	failures []string
	failedN  int
	// iso is the child's own worktree; nil when it works where its parent
	// works (home: the session's workspace, or an isolated ancestor's
	// worktree).
	iso  *isolation
	home *workspace.Workspace
	// hk are the child's hooks (nil: none).
	hk *hooks.Binding
	// asked is the user's "@Type brief" of a child the user started by
	// name ("" for a child its parent started).
	asked string
	// fork is the parent's conversation a forked child starts from; nil
	// for a child with a clean history.
	fork *forked
	// policy is the session's permission policy scoped by the child's
	// tool rules (Bash(git diff:*), Edit(docs/**), ...); nil when its
	// definition has none, and the session's gate serves it as it is.
	policy *permission.Policy

	mu         sync.Mutex
	ctx        context.Context
	cancel     context.CancelCauseFunc
	state      string
	background bool
	paused     bool
	resume     chan struct{} // closed when a pause ends
	elapsed    time.Duration // working time of earlier stretches
	since      time.Time     // start of the current stretch; zero when stopped
	bg         chan struct{} // closed when it moves to the background
	done       chan struct{} // closed when its run ends
	out        outcome
	detach     func() bool // unties it from its parent's turn
	counted    agent.Usage // of its usage, what the manager's total holds
	owed       *Inbox      // the inbox counting it as a background child
	// asking is the permission request it waits on ("" when none), for
	// the crew note of a compaction.
	asking string
	// group is the best-of-N task it is an attempt of; nil for most.
	// Its worktree is reviewed with the group's, not on its own.
	group *attemptGroup

	// act is what it is doing and has done (crew_status); it has its own
	// lock, taken per event.
	act activity
	// overlap warns that the paths it declared (spec.Touches) overlap a
	// running sibling's; its parent reads it in the task result.
	overlap string
}

// spawn prepares one child and announces it (ChildStarted), so panes appear
// in call order even when the child must queue for a slot. It returns nil
// and an outcome when the child cannot exist (an unknown or forbidden type,
// a name taken).
func (m *Manager) spawn(ctx context.Context, parent agent.Source, parentCall string, spawnTypes []string, spec TaskSpec) (*child, *outcome) {
	c, started, bad := m.prepare(ctx, parent, parentCall, spawnTypes, spec)
	if bad != nil {
		return nil, bad
	}
	return m.launch(ctx, c, started, nil)
}

// prepare makes and registers a child, not yet isolated nor announced.
func (m *Manager) prepare(ctx context.Context, parent agent.Source, parentCall string, spawnTypes []string, spec TaskSpec) (*child, agent.ChildStarted, *outcome) {
	def, err := m.cfg.Defs.Lookup(spec.SubagentType)
	if err != nil {
		return nil, agent.ChildStarted{}, &outcome{reason: agent.StopError, text: "Error: " + err.Error()}
	}
	spec.SubagentType = def.Name // the lookup forgives case and spaces
	if spawnTypes != nil && !slices.Contains(spawnTypes, def.Name) {
		return nil, agent.ChildStarted{}, &outcome{reason: agent.StopError, text: fmt.Sprintf("Error: this agent may start only these subagent types: %s", strings.Join(spawnTypes, ", "))}
	}
	if def.Background && spec.Attempts == 0 {
		spec.Background = true // an attempt stays: its group is reviewed when all end
	}
	c := &child{m: m, def: def, spec: spec, parentID: parent.AgentID, state: agent.StateQueued,
		bg: make(chan struct{}), done: make(chan struct{}), home: m.homeOf(parent.AgentID)}
	c.src = agent.Source{
		AgentID:      m.newID(def.Name),
		ParentCallID: parentCall,
		AgentType:    def.Name,
		Description:  spec.Description,
		Depth:        parent.Depth + 1,
		ParentID:     parent.AgentID,
	}
	if err := m.register(c, strings.TrimSpace(spec.Name)); err != nil {
		return nil, agent.ChildStarted{}, &outcome{reason: agent.StopError, text: "Error: " + err.Error()}
	}
	c.limits()
	// Tied to the parent's turn only while in the foreground: a cancel of
	// the turn cancels it, unless it moved to the background first.
	c.ctx, c.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	if !spec.Background {
		c.detach = context.AfterFunc(ctx, func() { c.cancel(context.Cause(ctx)) })
	}
	c.provider, c.model, c.resolveErr = m.cfg.Resolve(def)
	if c.resolveErr == nil {
		c.policy, c.resolveErr = m.scope(def)
	}
	if spec.Fork && c.resolveErr == nil {
		// Taken now: the parent's history ends with the message that
		// holds this call.
		c.fork, c.resolveErr = m.conversationOf(parent.AgentID)
	}
	started := agent.ChildStarted{Source: c.src, Model: c.model, Background: spec.Background, MaxTokens: c.maxTokens, MaxCost: c.maxCost, Color: def.Color,
		Prompt: spec.Prompt, Forked: c.fork != nil, Attempt: spec.Attempt, Attempts: spec.Attempts}
	return c, started, nil
}

// launch isolates a prepared child if it must be, and announces it
// (ChildStarted) once turn, when set, returns: siblings isolated at once
// are announced in order.
func (m *Manager) launch(ctx context.Context, c *child, started agent.ChildStarted, turn func()) (*child, *outcome) {
	if c.spec.Isolation == IsolationWorktree || c.def.Isolation == agentdefs.IsolationWorktree {
		// Made before the child is announced, so its pane says where it
		// works; a child that cannot be isolated never starts.
		iso, err := c.isolate(ctx)
		if err != nil {
			if c.detach != nil {
				c.detach()
			}
			c.cancel(nil)
			m.unregister(c)
			return nil, &outcome{reason: agent.StopError, text: "Error: " + err.Error() + "; the child was not started"}
		}
		c.iso, started.Worktree = iso, iso.info()
	}
	if c.resolveErr == nil {
		c.newAgent()
		if c.fork != nil {
			h := forkHistory(c.fork.history, c.src.ParentCallID)
			c.fork.len = len(h)
			c.a.SetHistory(h)
			c.spec.Prompt = c.forkBrief(c.spec.Prompt)
		}
	}
	if turn != nil {
		turn()
	}
	m.cfg.Emit(started)
	if note := m.declareTouches(c); note != "" {
		c.overlap = note
		c.spec.Prompt = note + "\n\n" + c.spec.Prompt
	}
	if c.spec.Background {
		c.background = true
		close(c.bg)
		c.owed = m.Inbox(c.parentID)
		c.owed.add()
	}
	c.emitState("")
	return c, nil
}

// limits fills the child's limits from its definition, else the defaults.
func (c *child) limits() {
	c.timeout = c.def.Timeout
	if c.timeout <= 0 {
		c.timeout = c.m.cfg.Timeout
	}
	c.maxTurns = c.def.MaxTurns
	if c.maxTurns <= 0 {
		c.maxTurns = c.m.cfg.MaxTurns
	}
	c.maxTokens = c.def.MaxTokens
	if c.maxTokens <= 0 {
		c.maxTokens = c.m.cfg.MaxTokens
	}
	c.maxCost = c.def.MaxCost
	if c.maxCost <= 0 {
		c.maxCost = c.m.cfg.MaxCost
	}
}

func (c *child) newAgent() {
	if c.m.cfg.Hooks != nil {
		c.hk = c.m.cfg.Hooks.Bind(c.def, c.src, c.gate())
	}
	system := c.systemPrompt()
	if c.fork != nil {
		// Its parent's, so its requests begin as the parent's did.
		system = c.fork.system
	}
	var lim agent.Limits
	if c.m.cfg.Window != nil {
		lim = c.m.cfg.Window(c.provider, c.model)
	}
	c.a = agent.New(agent.Config{
		Hooks:         loopHooks(c.hk),
		ContextWindow: lim.Window, ContextWindowFrom: lim.From, MaxOutputTokens: lim.MaxOutput, AnswerCap: lim.AnswerCap,
		CacheKey:  c.cacheKey(),
		Provider:  c.provider,
		Model:     c.model,
		System:    system,
		Tools:     c.tools(),
		MaxTurns:  c.maxTurns,
		Source:    c.src,
		Emit:      c.emit,
		Hold:      c.hold,
		MaxTokens: c.maxTokens,
		MaxCost:   c.maxCost,
		Cost:      c.m.cfg.Cost,
		// It compacts against its own model's window (ContextWindow), and
		// its summary keeps its own children.
		AutoCompact:   c.m.cfg.AutoCompact,
		BeforeCompact: c.m.cfg.BeforeCompact,
		CrewNote:      func() string { return c.m.CrewNote(c.src.AgentID) },
		OnMessage: func(msg agent.Message) {
			if c.m.cfg.OnMessage != nil {
				c.m.cfg.OnMessage(c.src, msg)
			}
		},
	})
}

// cacheKey names the child's conversation for the prompt cache: its own
// beside the session's, so its turns find their prefix ("" outside a
// recorded session). A fork's requests begin as its parent's did, so it
// takes its parent's key and finds the parent's prefix cached.
func (c *child) cacheKey() string {
	if c.m.cfg.SessionID == "" {
		return ""
	}
	id := c.src.AgentID
	if c.fork != nil {
		id = c.src.ParentID
	}
	if id == "" || id == agent.MainAgentID {
		return c.m.cfg.SessionID
	}
	return c.m.cfg.SessionID + "/" + id
}

// start runs the child's first run on its own goroutine.
func (m *Manager) start(c *child) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		c.runAndFinish(c.spec.Prompt, true)
	}()
}

// runAndFinish waits for a slot, runs the child to its end, announces it
// and hands the outcome to whoever waits: the task call in the foreground,
// the parent's inbox in the background. It never panics: whatever happens
// inside the child is caught and reported in its own slot.
func (c *child) runAndFinish(prompt string, first bool) {
	ctx := c.runCtx()
	sem := c.m.sem(c.src.Depth)
	var out outcome
	select {
	case sem <- struct{}{}:
		c.startClock(first)
		if first && c.hk.Active() {
			if extra := c.m.cfg.Hooks.Starting(ctx, c.hk); extra != "" {
				prompt += "\n\n<subagent-start-hook>\n" + extra + "\n</subagent-start-hook>"
			}
		}
		out = c.run(ctx, prompt)
		<-sem
	case <-ctx.Done():
		out = outcome{reason: agent.StopCancelled, text: agent.CancelledResult + " (before it started)"}
		if errors.Is(context.Cause(ctx), errShutdown) {
			out.text = "[stopped: " + errShutdown.Error() + "]"
		}
	}
	if c.iso != nil && !(first && c.group != nil) {
		// Also for a child stopped while queued: its unused worktree goes.
		out = c.review(out)
	}
	c.finish(out)
}

func (c *child) runCtx() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

// startClock marks the start of work (elapsed counts from here, not the
// queue) and announces the running state.
func (c *child) startClock(first bool) {
	c.mu.Lock()
	c.state = agent.StateRunning
	if !c.paused {
		c.since = time.Now()
	}
	c.mu.Unlock()
	if first {
		c.emitState("")
	}
}

// finish records the outcome, announces the end and delivers the outcome.
func (c *child) finish(out outcome) {
	errMsg := ""
	if out.reason == agent.StopError {
		errMsg = strings.TrimPrefix(firstLines(out.text, 1), "Error: ")
	}
	c.mu.Lock()
	c.stopClockLocked()
	c.state, c.out, c.paused = out.state(), out, false
	c.m.radar.forget(c.src.AgentID)
	if c.resume != nil {
		close(c.resume)
		c.resume = nil
	}
	bg := c.background
	if c.detach != nil {
		c.detach()
		c.detach = nil
	}
	elapsed := c.elapsed
	a := c.a // a resume may replace it once the state is final
	c.mu.Unlock()
	var u agent.Usage
	if a != nil {
		u = a.Usage()
	}
	c.mu.Lock()
	delta := agent.Usage{InputTokens: u.InputTokens - c.counted.InputTokens, OutputTokens: u.OutputTokens - c.counted.OutputTokens,
		CachedTokens: u.CachedTokens - c.counted.CachedTokens, CacheWriteTokens: u.CacheWriteTokens - c.counted.CacheWriteTokens,
		ReasoningTokens: u.ReasoningTokens - c.counted.ReasoningTokens}
	c.counted = u
	c.mu.Unlock()
	c.m.addUsage(delta) // a resumed child's earlier runs are counted already
	c.emitState(detailOf(out))
	// Its background shells end with it: nobody could read them.
	c.m.cfg.Shells.KillOwnedBy(c.src.AgentID)
	c.m.cfg.Emit(agent.ChildFinished{
		Source: c.src, Reason: out.reason, Error: errMsg, ToolCalls: int(c.calls.Load()),
		Elapsed: elapsed, Usage: u, Summary: firstLines(out.text, 1),
	})
	if bg {
		n := Notice{ChildID: c.src.AgentID, Name: c.src.Name, Status: out.state(), Text: capText(out.text, c.m.cfg.ResultCap), Asked: c.asked}
		c.mu.Lock()
		owed := c.owed
		c.owed = nil
		c.mu.Unlock()
		if to := c.m.Inbox(c.m.deliveryTarget(c.parentID)); owed == to || owed == nil {
			to.post(n)
		} else {
			owed.forward(to, n)
		}
	}
	c.mu.Lock()
	close(c.done)
	c.mu.Unlock()
	// Outcomes of its own background children that came as it ended go
	// on up, so none is stranded with a child that no longer reads.
	if left := c.m.Inbox(c.src.AgentID).Take(); len(left) > 0 {
		c.m.Inbox(c.m.deliveryTarget(c.parentID)).deliver(left...)
	}
	// A message that arrived after the last check resumes it at once.
	if a != nil {
		if queued := a.TakeSteered(); len(queued) > 0 {
			texts := make([]string, len(queued))
			for i, q := range queued {
				texts[i] = q.Text
			}
			_ = c.resumeWith(context.Background(), strings.Join(texts, "\n\n"))
		}
	}
}

func detailOf(out outcome) string {
	switch out.reason {
	case agent.StopTimeout:
		return "timed out"
	case agent.StopMaxTurns:
		return "max turns"
	case agent.StopBudget:
		return "budget"
	}
	return agent.CutOffNote(out.reason)
}

func (c *child) run(ctx context.Context, prompt string) (out outcome) {
	runCtx, stop := c.withTimeout(ctx)
	defer stop()
	c.mu.Lock()
	c.failures, c.failedN = nil, 0 // a resumed child reports its new run
	c.mu.Unlock()

	defer func() {
		if p := recover(); p != nil {
			out = outcome{reason: agent.StopError, text: fmt.Sprintf("Error: the child crashed: %v\n%s", p, firstLines(string(debug.Stack()), 8))}
		}
	}()

	if c.resolveErr != nil {
		return outcome{reason: agent.StopError, text: "Error: " + c.resolveErr.Error()}
	}
	res, runErr := c.a.Run(runCtx, prompt)
	// A message that arrived as the run ended is answered, not lost; and a
	// child with children of its own in the background waits for them and
	// answers their outcomes before it reports.
	inbox := c.m.Inbox(c.src.AgentID)
	for runErr == nil && res.Reason == agent.StopOK && runCtx.Err() == nil {
		// Taken before the inbox is looked at, so an outcome posted after
		// the look still wakes the wait below.
		changed := inbox.Changed()
		if queued := c.a.TakeSteered(); len(queued) > 0 {
			texts := make([]string, len(queued))
			for i, q := range queued {
				texts[i] = q.Text
				if q.Event != nil {
					c.m.cfg.Emit(q.Event)
				}
			}
			res, runErr = c.a.Run(runCtx, strings.Join(texts, "\n\n"))
			continue
		}
		if notices := inbox.Take(); len(notices) > 0 {
			for _, n := range notices {
				c.m.cfg.Emit(n.Event(c.src))
			}
			res, runErr = c.a.Run(runCtx, NoticeText(notices))
			continue
		}
		if inbox.Outstanding() == 0 {
			break
		}
		select {
		case <-changed:
		case <-runCtx.Done():
		}
	}

	switch cause := context.Cause(runCtx); {
	case runCtx.Err() != nil && errors.Is(cause, errTimedOut):
		out.reason = agent.StopTimeout
		out.text = fmt.Sprintf("[cut short: timed out after %s; what it found so far follows]\n\n%s", c.timeout, c.findings())
	case runCtx.Err() != nil && (errors.Is(cause, errShutdown) || errors.Is(cause, errStopped)):
		out.reason = agent.StopCancelled
		out.text = "[" + cause.Error() + "]" + partial(c.findings())
	case runCtx.Err() != nil:
		out.reason = agent.StopCancelled
		out.text = agent.CancelledResult + partial(c.findings())
	case res.Reason == agent.StopMaxTurns:
		out.reason = agent.StopMaxTurns
		out.text = fmt.Sprintf("[cut short: reached its limit of %d turns; what it found so far follows]\n\n%s", c.maxTurns, c.findings())
	case res.Reason == agent.StopBudget:
		out.reason = agent.StopBudget
		out.text = fmt.Sprintf("[cut short: reached its budget (%s); what it found so far follows]\n\n%s", c.budgetNote(), c.findings())
	case agent.CutOffNote(res.Reason) != "":
		out.reason = res.Reason
		out.text = "[" + agent.CutOffNote(res.Reason) + "; the answer so far follows]\n\n" + strings.TrimSpace(res.Answer)
	case runErr != nil:
		out.reason = agent.StopError
		out.text = "Error: " + runErr.Error() + partial(c.findings())
	default:
		out.reason = agent.StopOK
		out.text = strings.TrimSpace(res.Answer)
		if out.text == "" {
			out.text = "[the agent finished without a report]\n\n" + c.findings()
		}
		if note, n := c.failureNote(); n > 0 {
			out.text += "\n\n" + note
			out.failedCalls = n
		}
	}
	return out
}

// budgetNote says which budget was reached.
func (c *child) budgetNote() string {
	u := c.a.Usage()
	var parts []string
	if c.maxTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d tokens", u.Total(), c.maxTokens))
	}
	if c.maxCost > 0 {
		parts = append(parts, fmt.Sprintf("cost %.4f of %.4f", c.a.Cost(), c.maxCost))
	}
	return strings.Join(parts, ", ")
}

// withTimeout bounds the run by the child's working time: time paused does
// not count, so the timer re-arms until the work time reaches the limit.
func (c *child) withTimeout(ctx context.Context) (context.Context, func()) {
	runCtx, cancel := context.WithCancelCause(ctx)
	base := c.workTime() // earlier runs (before a resume) do not count
	var mu sync.Mutex
	var t *time.Timer
	var check func()
	check = func() {
		left := c.timeout - (c.workTime() - base)
		mu.Lock()
		defer mu.Unlock()
		if left <= 0 {
			cancel(errTimedOut)
			return
		}
		if runCtx.Err() == nil {
			t = time.AfterFunc(left, check)
		}
	}
	mu.Lock()
	t = time.AfterFunc(c.timeout, check)
	mu.Unlock()
	return runCtx, func() {
		mu.Lock()
		t.Stop()
		mu.Unlock()
		cancel(nil)
	}
}

// emit forwards the child's events to the session stream, counting its own
// tool calls (not those of its own children).
func (c *child) emit(e agent.Event) {
	tf, ok := e.(agent.ToolFinished)
	own := e.From().AgentID == c.src.AgentID
	if ok && own {
		c.calls.Add(1)
		if tool.Failed(tf.Result) {
			c.noteFailure(tf)
		}
	}
	if own {
		c.act.observe(e)
	}
	c.m.cfg.Emit(e)
	if ok && c.iso != nil && e.From().AgentID == c.src.AgentID && changesFiles(tf.Name) {
		c.noteChange(c.runCtx(), tf.CallID)
	}
}

// maxFailuresNamed is how many failed calls a report names.
const maxFailuresNamed = 3

// noteFailure keeps a failed call of the child's own for its report.
func (c *child) noteFailure(tf agent.ToolFinished) {
	what := tf.Name
	if tf.KeyArg != "" {
		what += " " + excerpt.Cut(excerpt.Line(tf.KeyArg), 60)
	}
	why := strings.TrimPrefix(excerpt.Line(tf.Result.Summary), "Error: ")
	if why == "" {
		why = excerpt.Cut(strings.TrimPrefix(excerpt.Line(tf.Result.Content), "Error: "), 80)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failedN++
	if len(c.failures) < maxFailuresNamed {
		c.failures = append(c.failures, what+" ("+why+")")
	}
}

// failureNote is what ends the report of a child that finished well but
// some of whose calls failed, so its parent does not take an upbeat report
// for the whole story; "" when none failed.
func (c *child) failureNote() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failedN == 0 {
		return "", 0
	}
	list := strings.Join(c.failures, "; ")
	if more := c.failedN - len(c.failures); more > 0 {
		list += fmt.Sprintf("; %d more", more)
	}
	return fmt.Sprintf("[covey: %s of this run failed: %s]", plural.Count(c.failedN, "tool call"), list), c.failedN
}

// tools builds the child's tool set: a fresh read record, the shared locks,
// the gate labelled with the child, its allowed paths, and only the tools
// its definition allows. Read-only is enforced here, by what is offered.
func (c *child) tools() *tool.Registry {
	ws := c.workspace()
	env := &tools.Env{
		WS:           ws,
		Reads:        workspace.NewReadTracker(),
		Locks:        c.m.cfg.Locks,
		Gate:         c.gate(),
		AllowedPaths: c.def.AllowedPaths,
		NoImages:     c.m.cfg.NoImages,
		Todos:        tools.NewTodoList(),
		AllowRead:    c.m.cfg.AllowRead,
		AllowFound:   c.m.cfg.AllowFound,
		Sandbox:      c.m.cfg.Sandbox,
		Temps:        c.m.cfg.Temps,
		Shells:       c.m.cfg.Shells,
		Agent:        c.src.AgentID,
		AgentDepth:   c.src.Depth,
		LSP:          c.m.cfg.LSP,
	}
	if c.policy != nil {
		env.AllowRead, env.AllowFound = c.policy.AllowRead, c.policy.AllowReadFound
	}
	if also, read := c.m.cfg.ReadAlso, env.AllowRead; also != nil && read != nil {
		env.AllowRead = func(abs string) bool { return read(abs) || also(abs) }
	}
	if c.m.cfg.Memory != nil && c.iso == nil {
		// In a worktree the paths are the worktree's: the folders' memory
		// is the workspace's, so none joins there.
		env.OnRead = c.m.cfg.Memory()
	}
	if c.iso != nil && env.AllowRead != nil {
		// Reads in the child's worktree follow the rules of the same
		// paths in the workspace.
		env.AllowRead = permission.MapReads(ws.Root, c.m.cfg.Workspace.Root, env.AllowRead)
		env.AllowFound = nil
	}
	base := append(slices.Clone(toolname.Base()), toolname.Task)
	allowed := agentdefs.EffectiveTools(c.def, base)
	reg := tool.NewRegistry()
	planChild := c.def.PermissionMode == string(permission.ModePlan) || c.def.Name == agentdefs.Plan
	readOnly := c.m.cfg.ReadOnly || c.def.PermissionMode == string(permission.ModePlan) ||
		(c.m.cfg.Planning != nil && c.m.cfg.Planning())
	for _, t := range tools.Builtins(env) {
		// A plan-mode child is offered only what it may use.
		if !slices.Contains(allowed, t.Name()) || (readOnly && !t.ReadOnly()) {
			continue
		}
		if t.Name() == toolname.Bash && c.workspace() == c.m.cfg.Workspace {
			// In the workspace a command's changes show in git status;
			// in a worktree they come from its diff instead.
			t = c.m.watchFiles(t, c)
		}
		t = c.m.Radar(t, c.src, ws.Root)
		reg.Add(t)
		if t.Name() == toolname.Bash {
			for _, st := range tools.ShellTools(env) {
				reg.Add(st)
			}
		}
	}
	// A child may ask the user: a built-in type, or a definition without
	// a tools list or naming ask_user in it, unless it disallows it. A
	// planning child's plan, presented, is its report.
	asks := c.def.Tools == nil || c.def.Scope == agentdefs.BuiltIn || len(agentdefs.EffectiveTools(c.def, []string{toolname.AskUser})) == 1
	if asks && len(agentdefs.EffectiveTools(agentdefs.Definition{DisallowedTools: c.def.DisallowedTools}, []string{toolname.AskUser})) == 1 {
		reg.Add(tools.NewAskUser(env.Gate, c.m.cfg.NoAskUser))
	}
	if planChild {
		reg.Add(tools.NewExitPlanMode(tools.ExitPlanConfig{Child: true}))
	}
	if slices.Contains(allowed, toolname.Task) {
		if t := c.m.toolFor(c.src, c.def.SpawnTypes); t != nil {
			reg.Add(t)
			for _, ct := range c.m.CrewTools(c.src) {
				reg.Add(ct)
			}
		}
	}
	if len(c.def.Skills) > 0 && c.m.cfg.Skills != nil {
		if t := c.m.cfg.Skills(c.def.Skills); t != nil {
			reg.Add(t)
		}
	}
	if slices.Contains(agentdefs.EffectiveTools(c.def, []string{toolname.WebFetch}), toolname.WebFetch) && !(c.def.Tools == nil && c.def.ReadOnly) {
		pol := c.policy
		if pol == nil {
			pol, _ = c.m.cfg.Gate.(*permission.Policy)
		}
		reg.Add(tools.NewWebFetch(tools.WebFetchConfig{Gate: env.Gate, Answer: c.m.cfg.FetchAnswer, AllowPrivate: tools.PrivateByRule(pol), NetworkOff: env.Sandbox.NetworkOff()}))
	}
	if slices.Contains(agentdefs.EffectiveTools(c.def, []string{toolname.LSP}), toolname.LSP) {
		if t := tools.NewLSP(env); t != nil {
			reg.Add(t)
		}
	}
	if slices.Contains(agentdefs.EffectiveTools(c.def, []string{toolname.WebSearch}), toolname.WebSearch) && !(c.def.Tools == nil && c.def.ReadOnly) && c.m.cfg.WebSearch != nil {
		if t := c.m.cfg.WebSearch(env.Gate); t != nil {
			reg.Add(t)
		}
	}
	if c.m.cfg.MCPTools != nil {
		planChild := c.def.PermissionMode == string(permission.ModePlan)
		reg.AddSource(c.m.cfg.MCPTools(env.Gate, func(t tool.Tool) bool {
			// A plan child gets only the MCP tools an allow rule names.
			return mcpAllowed(c.def, t) && (!planChild || (c.policy != nil && c.policy.PlanOffers(t.Name())))
		}))
	}
	return reg
}

// mcpAllowed reports whether a child of type def gets the MCP tool t: its
// tools list names it (mcp__srv__tool, or mcp__srv for the whole server),
// or it has no tools list and is not a read-only type; its disallowed
// tools do not; and its mcpServers, when set, include t's server.
func mcpAllowed(def agentdefs.Definition, t tool.Tool) bool {
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

// scoper is a gate that can make a policy for one agent: stricter by
// rules, or in the agent's own permission mode (permission.Policy).
type scoper interface {
	Scoped(allow, deny []string) (*permission.Policy, error)
	WithMode(m permission.Mode, raise bool) *permission.Policy
}

// modeDontAsk is Claude Code's permission mode that refuses whatever would
// need asking; covey's policy answers it as default, and the child's gate
// refuses what that would ask about.
const modeDontAsk = "dontAsk"

// scope returns the session's policy as def's child must see it: scoped by
// its tool rules, so that an agent file's Bash(git diff:*) lets it run git
// diff and nothing else without the user's say, and in its own permission
// mode (never more permissive than the session's unless config allows);
// nil when def has neither. A definition the gate cannot honour is an
// error: its child must not run with more than its file allows.
func (m *Manager) scope(def agentdefs.Definition) (*permission.Policy, error) {
	rules, deny := def.RuleSources(), def.DenySources()
	if len(rules)+len(deny) == 0 && def.PermissionMode == "" {
		return nil, nil
	}
	sc, ok := m.cfg.Gate.(scoper)
	if !ok {
		what := "permissionMode " + def.PermissionMode
		if all := append(slices.Clone(rules), deny...); len(all) > 0 {
			what = "tool rules (" + strings.Join(all, ", ") + ")"
		}
		return nil, fmt.Errorf("the %s of %s cannot be enforced here, so it was not started", what, def.Name)
	}
	p := sc.WithMode("", false)
	if mode := def.PermissionMode; mode != "" {
		if mode == modeDontAsk {
			mode = string(permission.ModeDefault)
		}
		p = sc.WithMode(permission.Mode(mode), m.cfg.RaiseAgentModes)
	}
	if len(rules)+len(deny) == 0 {
		return p, nil
	}
	scoped, err := p.Scoped(rules, deny)
	if err != nil {
		return nil, fmt.Errorf("the tool rules of %s: %w", def.Name, err)
	}
	return scoped, nil
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
	// The child by its name first, as its pane and the overview call it
	// ("auditor [general-purpose] asks:"), not its type alone.
	label := fmt.Sprintf("[%s] %s", c.def.Name, c.spec.Description)
	if c.src.Name != "" {
		label = fmt.Sprintf("%s [%s]", c.src.Name, c.def.Name)
	}
	dontAsk := c.policy != nil && c.def.PermissionMode == modeDontAsk
	return permission.GateFunc(func(ctx context.Context, req permission.Request) permission.Verdict {
		req.Agent, req.AgentID = label, c.src.AgentID
		// Writes into a worktree (its own, or an isolated ancestor's) are
		// reviewed with that worktree's merge.
		if c.workspace() != c.m.cfg.Workspace && (req.Tool == toolname.WriteFile || req.Tool == toolname.EditFile) {
			req.Isolated = true
		}
		if dontAsk && !c.policy.AllowedWithoutAsking(req) {
			return permission.Verdict{Reason: fmt.Sprintf("refused without asking: %s's permissionMode is dontAsk, "+
				"which refuses whatever a rule or the session's mode does not already allow", c.def.Name)}
		}
		if c.policy != nil {
			req.Agent = c.whyAsked(req, label)
		}
		c.noteAsking(req)
		defer c.noteAsking(permission.Request{})
		return g.Check(ctx, req)
	})
}

// whyAsked adds to a child's label, for the user asked about req, that it
// is asked only because the child's agent file limits it (its rules or its
// permission mode), when the session alone would have let req through.
func (c *child) whyAsked(req permission.Request, label string) string {
	session, ok := c.m.cfg.Gate.(interface {
		AllowedWithoutAsking(permission.Request) bool
	})
	if !ok || !session.AllowedWithoutAsking(req) || c.policy.AllowedWithoutAsking(req) {
		return label
	}
	if rules := c.def.RuleSources(); len(rules) > 0 {
		return label + " (outside its agent file's " + strings.Join(rules, ", ") + ")"
	}
	return label + " (its agent file's permissionMode is " + c.def.PermissionMode + ")"
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
	if c.fork != nil {
		// What it found is what came after its parent's conversation.
		history = history[min(c.fork.len, len(history)):]
	}
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
			if k := tool.KeyArg(tc.Name, []byte(tc.Arguments)); k != "" {
				line += " " + k
			}
			if r, ok := results[tc.ID]; ok {
				line += " → " + excerpt.Cut(r, 120)
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

// loopHooks is b as the loop's hooks: nil (none at all) when b is nil.
func loopHooks(b *hooks.Binding) agent.Hooks {
	if b == nil {
		return nil
	}
	return b
}
