package permission

import "context"

// HookDecision is what a PreToolUse hook said about a call
// (permissionDecision), carried to the gate in the call's context.
type HookDecision int

// The decisions the gate honours. A hook's deny never reaches the gate: the
// call is refused before it runs.
const (
	// HookNone: no hook decided.
	HookNone HookDecision = iota
	// HookAllow lets a call through without asking where the gate would
	// ask; a deny rule, plan mode or an agent definition's scope still
	// refuse or ask (a hook's allow never beats a deny).
	HookAllow
	// HookAsk asks the user even where the mode, a rule or a grant would
	// allow (refused when nobody can be asked).
	HookAsk
)

type hookKey struct{}

// WithHookDecision returns ctx carrying a hook's decision for the call run
// in it.
func WithHookDecision(ctx context.Context, d HookDecision) context.Context {
	return context.WithValue(ctx, hookKey{}, d)
}

// WithUserCommand returns ctx for a command the user typed themselves
// (a "!command"): the gate lets it through without asking, as a hook's
// allow does; a deny rule still refuses it.
func WithUserCommand(ctx context.Context) context.Context {
	return WithHookDecision(ctx, HookAllow)
}

// hookDecision is the decision ctx carries.
func hookDecision(ctx context.Context) HookDecision {
	d, _ := ctx.Value(hookKey{}).(HookDecision)
	return d
}

// hookAskReason is why a call a hook asked about waits for the user.
const hookAskReason = "a PreToolUse hook asks for confirmation of this call"

// decideWith is decide with the hook's decision applied: an allow turns a
// plain ask (not a scope's) into an allow, an ask turns an allow into an
// ask. Refusals stand.
func (p *Policy) decideWith(ctx context.Context, req Request) (verdictKind, string) {
	k, reason := p.decide(req)
	if IsUserQuestion(req.Tool) {
		return k, reason // a hook's allow answers no question
	}
	switch hookDecision(ctx) {
	case HookAllow:
		if k == kindAsk && reason == "" {
			// An agent definition's scope still holds: its patterns are
			// the user's limits on that agent.
			if why, ok := p.inScope(req, p.snapshot()); !ok {
				return kindAsk, why
			}
			return kindAllow, ""
		}
	case HookAsk:
		if k == kindAllow {
			return kindAsk, hookAskReason
		}
	}
	return k, reason
}
