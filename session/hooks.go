package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"covey/agent"
	"covey/agentdefs"
	"covey/hooks"
	"covey/permission"
	"covey/slashcmd"
	"covey/subagent"
)

// ErrPromptBlocked is returned by Prompt when a UserPromptSubmit hook
// blocked the prompt; the error says why.
var ErrPromptBlocked = hooks.ErrPromptBlocked

// hookState is the session's hooks side.
type hookState struct {
	runner *hooks.Runner // nil when no hook is configured
	set    hooks.Set
	// project are the hooks that need trust: the project's settings and
	// config, and project agent files' hooks; hash keys the answer.
	project []hooks.Hook
	hash    string
	// trusted says whether the project's hooks and status lines run (the
	// runner's own switch follows it; there is no runner when the
	// project brings a status line and no hook).
	trusted atomic.Bool
	sid     string // the session_id hooks see

	startOnce sync.Once
	started   chan struct{} // closed once SessionStart's hooks ran
	endOnce   sync.Once

	mu      sync.Mutex
	pending []string // SessionStart context for the next prompt
	closed  bool     // the event stream is closing: no more events
}

// setUpHooks takes the hooks d read and decides which may run: the
// project's only when the user trusted them (the start-up question).
func (s *Session) setUpHooks(d *Discovery) {
	set := d.hookSet
	st := &hookState{set: set, started: make(chan struct{}), sid: s.sessionID()}
	if st.sid == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		st.sid = hex.EncodeToString(b[:])
	}
	st.project = d.project
	for _, n := range set.Notes {
		s.log.Debugf("accepted as Claude Code accepts it: %s", n)
	}
	st.hash = hooks.Hash(st.project)
	trusted := st.hash == "" || s.commandsTrusted
	st.trusted.Store(trusted)
	// The runner runs the scripts as the question listed them, not as
	// they are now (pinned again here, a script rewritten while the
	// question waited would run as trusted).
	st.runner = hooks.NewRunner(st.pinned(set.Hooks), hooks.RunnerOptions{Dir: s.ws.Root, OnRun: s.logHook, ProjectTrusted: trusted, Scrub: s.scrub})
	s.hooks = st
}

// logHook writes one hook run to the --debug log.
func (s *Session) logHook(r hooks.Report) {
	s.log.Debugf("hook %s %q (%s): exit %d in %s, timed out %v, blocked %v, error %q, stdout %q, stderr %q",
		r.Event, r.Command, r.Source, r.Exit, r.Elapsed, r.TimedOut, r.Blocked, r.Err, clip(r.Stdout), clip(r.Stderr))
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// TrustProjectHooks lets the project's hooks (and status lines) run for
// the rest of this session (/hooks trust, after /hooks listed them). It
// is not remembered: the start-up question is the one that is.
func (s *Session) TrustProjectHooks() error {
	st := s.hooks
	if st == nil || st.hash == "" {
		return errors.New("this project has no hooks")
	}
	st.trusted.Store(true)
	if st.runner != nil {
		st.runner.SetProjectTrusted(true)
	}
	return nil
}

// projectHooksTrusted reports whether project hooks run now.
func (s *Session) projectHooksTrusted() bool {
	st := s.hooks
	if st == nil || st.hash == "" {
		return true
	}
	return st.trusted.Load()
}

// SkippedHooks describes the project hooks that do not run because the
// user has not trusted them (a headless run cannot ask).
func (s *Session) SkippedHooks() []string {
	if s.hooks == nil || s.projectHooksTrusted() {
		return nil
	}
	var out []string
	for _, h := range s.hooks.project {
		out = append(out, hooks.Describe(h))
	}
	return out
}

// HookInfo is one hook in force, for /hooks.
type HookInfo struct {
	Event, Matcher, Command, Source string
	// Scope is user or project; Trusted says whether it runs.
	Scope   string
	Trusted bool
	Timeout string
}

// Hooks lists every configured hook with its source, agent files' own
// included, and whether it runs.
func (s *Session) Hooks() []HookInfo {
	if s.hooks == nil {
		return nil
	}
	trusted := s.projectHooksTrusted()
	var out []HookInfo
	add := func(h hooks.Hook) {
		out = append(out, HookInfo{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Source: h.Source,
			Scope: string(h.Scope), Trusted: h.Scope != hooks.ScopeProject || trusted, Timeout: h.Timeout.String()})
	}
	for _, h := range s.hooks.set.Hooks {
		add(h)
	}
	for _, d := range s.defs.All() {
		if len(d.Hooks) > 0 {
			for _, h := range d.Hooks.Hooks("agent "+d.Name, agentScope(d)) {
				add(h)
			}
		}
	}
	// By event, in the order Claude Code documents them; sources keep
	// their order within one.
	order := map[string]int{}
	for i, ev := range hooks.Events() {
		order[ev] = i
	}
	slices.SortStableFunc(out, func(a, b HookInfo) int { return order[a.Event] - order[b.Event] })
	return out
}

// HookProblems are what was wrong with the hooks' files (their hooks do
// not run).
func (s *Session) HookProblems() []string {
	if s.hooks == nil {
		return nil
	}
	return s.hooks.set.Problems
}

func agentScope(d agentdefs.Definition) hooks.Scope {
	if d.Scope == agentdefs.Project {
		return hooks.ScopeProject
	}
	return hooks.ScopeUser
}

// hookBase is what every hook input starts with.
func (s *Session) hookBase() hooks.Input {
	in := hooks.Input{Cwd: s.ws.Root, PermissionMode: string(s.policy.Mode())}
	if s.hooks != nil {
		in.SessionID = s.hooks.sid
	}
	if s.rec != nil {
		in.TranscriptPath = s.rec.path
	}
	return in
}

// hookNotify turns what hooks said into events shown to the user, tagged
// with the agent they ran for.
func (s *Session) hookNotify(src agent.Source) func(event, subject string, o hooks.Outcome) {
	return func(event, subject string, o hooks.Outcome) {
		if s.hooks == nil {
			return
		}
		// Held while emitting: endHooks marks the stream closing under the
		// same lock, so nothing is emitted once EndEvents may close it.
		s.hooks.mu.Lock()
		defer s.hooks.mu.Unlock()
		if s.hooks.closed {
			return
		}
		if o.Block {
			s.emit(agent.HookRan{Source: src, Event: event, Subject: subject, Blocked: true, Message: o.Reason})
		}
		if o.Halt {
			msg := o.StopReason
			if msg == "" {
				msg = "a hook said to stop"
			}
			s.emit(agent.HookRan{Source: src, Event: event, Subject: subject, Halted: true, Message: msg})
		}
		for _, n := range o.Notes {
			s.emit(agent.HookRan{Source: src, Event: event, Subject: subject, Error: n.Error, Message: hookNoteText(n)})
		}
	}
}

func hookNoteText(n hooks.Note) string {
	if n.Error && n.Command != "" {
		return fmt.Sprintf("%s: %s", n.Command, n.Text)
	}
	return n.Text
}

// mainHooks binds the hooks to the main agent; nil when there are none
// (neither the session's nor a slash command's).
func (s *Session) mainHooks() agent.Hooks {
	if s.hooks == nil || (s.hooks.runner == nil && !s.ext.commandHooks()) {
		return nil
	}
	return &hooks.Binding{Runner: s.hooks.runner, Base: s.hookBase, StopEvent: hooks.Stop, Gate: s.policy,
		Notify: s.hookNotify(agent.Source{AgentID: agent.MainAgentID}),
		Turn: func(ctx context.Context) *hooks.Runner {
			if sc := scopeOf(ctx); sc != nil {
				return sc.hooks
			}
			return nil
		}}
}

// turnHooks is the runner of a slash command's turn: the session's hooks
// plus the command's own (a project command's only once the project's
// hooks are trusted, as its settings' hooks); nil when it has none.
func (s *Session) turnHooks(c slashcmd.Command) *hooks.Runner {
	st := s.hooks
	if st == nil || len(c.Hooks) == 0 {
		return nil
	}
	scope := hooks.ScopeUser
	if c.Scope == agentdefs.Project {
		scope = hooks.ScopeProject
	}
	return st.runner.With(st.pinned(c.Hooks.Hooks("command /"+c.Name, scope)), hooks.RunnerOptions{Dir: s.ws.Root, OnRun: s.logHook, ProjectTrusted: s.projectHooksTrusted(), Scrub: s.scrub})
}

// childHooks is the subagent manager's side of the hooks.
type childHooks struct{ s *Session }

// Bind binds the session's hooks plus the definition's own to a child.
func (c childHooks) Bind(def agentdefs.Definition, src agent.Source, gate permission.Gate) *hooks.Binding {
	s := c.s
	if s.hooks == nil {
		return nil
	}
	r := s.hooks.runner
	if len(def.Hooks) > 0 {
		r = r.With(s.hooks.pinned(def.Hooks.Hooks("agent "+def.Name, agentScope(def))),
			hooks.RunnerOptions{Dir: s.ws.Root, OnRun: s.logHook, ProjectTrusted: s.projectHooksTrusted(), Scrub: s.scrub})
	}
	if r == nil {
		return nil
	}
	return &hooks.Binding{Runner: r, Base: s.hookBase, StopEvent: hooks.SubagentStop, AgentID: src.AgentID,
		AgentType: src.AgentType, Gate: gate, Notify: s.hookNotify(src)}
}

// Starting runs the SubagentStart hooks of a child about to start and
// returns the context they add to its prompt.
func (c childHooks) Starting(ctx context.Context, b *hooks.Binding) string {
	if !b.Active() || !b.Runner.Has(hooks.SubagentStart) {
		return ""
	}
	in := c.s.hookBase()
	in.HookEventName = hooks.SubagentStart
	in.AgentID, in.AgentType = b.AgentID, b.AgentType
	o := b.Runner.Run(ctx, in, "")
	if b.Notify != nil && (o.Block || o.Halt || len(o.Notes) > 0) {
		b.Notify(hooks.SubagentStart, b.AgentType, o)
	}
	return o.Context
}

// runSessionStart runs the SessionStart hooks once, keeping what they add
// to the context for the next prompt.
func (s *Session) runSessionStart(source string) {
	st := s.hooks
	defer st.startOnce.Do(func() { close(st.started) })
	if !st.runner.Has(hooks.SessionStart) {
		return
	}
	in := s.hookBase()
	in.HookEventName = hooks.SessionStart
	in.Source = source
	o := st.runner.Run(context.Background(), in, "")
	s.hookNotify(agent.Source{AgentID: agent.MainAgentID})(hooks.SessionStart, source, o)
	if o.Context != "" {
		st.mu.Lock()
		st.pending = append(st.pending, o.Context)
		st.mu.Unlock()
	}
}

// submitPrompt runs the SessionStart (first) and UserPromptSubmit hooks
// for a prompt the user sent and returns the prompt the model gets: the
// user's, with what the hooks add to the context. A blocked prompt is an
// error wrapping ErrPromptBlocked.
func (s *Session) submitPrompt(ctx context.Context, prompt string) (string, error) {
	st := s.hooks
	if st == nil || st.runner == nil {
		return prompt, nil
	}
	select {
	case <-st.started:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	st.mu.Lock()
	extra := st.pending
	st.pending = nil
	st.mu.Unlock()
	out := prompt
	for _, c := range extra {
		out += "\n\n<session-start-hook>\n" + c + "\n</session-start-hook>"
	}
	if !st.runner.Has(hooks.UserPromptSubmit) {
		return out, nil
	}
	in := s.hookBase()
	in.HookEventName = hooks.UserPromptSubmit
	in.Prompt = prompt
	o := st.runner.Run(ctx, in, "")
	// A block comes back as Prompt's error, which both consumers show;
	// failures and messages go on the stream.
	shown := o
	shown.Block, shown.Halt = false, false
	s.hookNotify(agent.Source{AgentID: agent.MainAgentID})(hooks.UserPromptSubmit, "prompt", shown)
	switch {
	case o.Block:
		return "", fmt.Errorf("%w: %s", ErrPromptBlocked, o.Reason)
	case o.Halt:
		return "", fmt.Errorf("%w: %s", ErrPromptBlocked, firstNonEmptyLine(o.StopReason, "a hook said to stop"))
	}
	if o.Context != "" {
		out += "\n\n<user-prompt-submit-hook>\n" + o.Context + "\n</user-prompt-submit-hook>"
	}
	return out, nil
}

func firstNonEmptyLine(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// endHooks runs the SessionEnd hooks once; nothing they say reaches the
// event stream (it is closing), only the debug log.
func (s *Session) endHooks(reason string) {
	st := s.hooks
	if st == nil {
		return
	}
	st.endOnce.Do(func() {
		st.mu.Lock()
		st.closed = true
		st.mu.Unlock()
		if !st.runner.Has(hooks.SessionEnd) {
			return
		}
		in := s.hookBase()
		in.HookEventName = hooks.SessionEnd
		in.Reason = reason
		st.runner.Run(context.Background(), in, "")
	})
}

// NotifyHooks runs the Notification hooks in the background for a moment
// the user is called back for (an approval waits, a background child
// finished, a turn ended unwatched); kind is Claude Code's
// notification_type where one exists.
func (s *Session) NotifyHooks(kind, message string) {
	st := s.hooks
	if st == nil || !st.runner.Has(hooks.Notification) {
		return
	}
	in := s.hookBase()
	in.HookEventName = hooks.Notification
	in.Message, in.Title, in.NotificationType = message, "covey", kind
	go st.runner.Run(context.Background(), in, "")
}

// BeforeCompact runs the PreCompact hooks before a conversation is
// compacted. Its shape is the compaction's hook point (agent.Config's
// BeforeCompact on the ctx-compact branch): trigger is "manual" for
// /compact, "auto" or "overflow" otherwise (hooks read both of those as
// auto, Claude Code's word), focus is the user's /compact instructions.
// What the hooks add as additionalContext joins the summary's
// instructions; what they say is shown to the user; they never stop a
// compaction (an exit 2 is shown, as in Claude Code), so the error is nil.
func (s *Session) BeforeCompact(ctx context.Context, trigger, focus string) (string, error) {
	st := s.hooks
	if st == nil || !st.runner.Has(hooks.PreCompact) {
		return "", nil
	}
	in := s.hookBase()
	in.HookEventName = hooks.PreCompact
	in.Trigger = "auto"
	if trigger == "manual" {
		in.Trigger = "manual"
	}
	in.CustomInstructions = &focus
	o := st.runner.Run(ctx, in, "")
	if o.Block {
		o.Notes = append(o.Notes, hooks.Note{Text: "exit 2 (a PreCompact hook cannot stop a compaction): " + o.Reason})
		o.Block = false
	}
	s.hookNotify(agent.Source{AgentID: agent.MainAgentID})(hooks.PreCompact, in.Trigger, o)
	return o.Context, nil
}

// childHooks is the subagent manager's side of the hooks; nil without
// hooks.
func (s *Session) childHooks() subagent.Hooks {
	if s.hooks == nil {
		return nil
	}
	return childHooks{s}
}

// pinned gives hs the scripts pinned for the same hooks at the start, so
// an agent file's hook runs its script as it was when trusted.
func (st *hookState) pinned(hs []hooks.Hook) []hooks.Hook {
	out := make([]hooks.Hook, len(hs))
	for i, h := range hs {
		for _, p := range st.project {
			if p.Source == h.Source && p.Command == h.Command && p.Event == h.Event {
				h.Scripts = p.Scripts
				break
			}
		}
		out[i] = h
	}
	return out
}
