package session

import (
	"context"
	"encoding/json"

	"covey/hooks"
	"covey/permission"
	"covey/tools/toolname"
)

// hookedAsker runs the PermissionRequest hooks before the gate asks the
// user about a call, as Claude Code does when its permission dialog is
// about to show: a hook that allows answers yes for the user, one that
// denies (or exits 2) answers no; otherwise the user is asked.
type hookedAsker struct {
	s    *Session
	next permission.Asker
}

// WaitingTurn implements permission.TurnWatcher: the asker behind shows
// the wait, when it can.
func (a hookedAsker) WaitingTurn(ctx context.Context, req permission.Request) func() {
	if w, ok := a.next.(permission.TurnWatcher); ok {
		return w.WaitingTurn(ctx, req)
	}
	return func() {}
}

// Ask implements permission.Asker.
func (a hookedAsker) Ask(ctx context.Context, req permission.Request) permission.Verdict {
	st := a.s.hooks
	switch req.Tool {
	case toolname.PickAttempt, toolname.MergeWorktree:
		// Covey's own questions are no tool calls.
		return a.next.Ask(ctx, req)
	}
	if st == nil || !st.runner.Has(hooks.PermissionRequest) {
		return a.next.Ask(ctx, req)
	}
	in := a.s.hookBase()
	in.HookEventName = hooks.PermissionRequest
	args := requestInput(req)
	in.ToolName = hooks.ClaudeName(req.Tool, args)
	in.ToolInput = hooks.ClaudeInput(req.Tool, args, in.Cwd)
	o := st.runner.Run(ctx, in, req.Tool)
	switch {
	case o.Block:
		return permission.Verdict{Reason: "denied by a PermissionRequest hook: " + o.Reason}
	case o.Permission == hooks.Allow:
		return permission.Verdict{Allowed: true}
	}
	return a.next.Ask(ctx, req)
}

// requestInput is a permission request's call as tool arguments.
func requestInput(req permission.Request) json.RawMessage {
	m := map[string]string{}
	switch {
	case req.Command != "":
		m["command"] = req.Command
	case req.URL != "":
		m["url"] = req.URL
	case req.Path != "":
		m["path"] = req.Path
	}
	if req.Args != "" && len(m) == 0 {
		if json.Valid([]byte(req.Args)) {
			return json.RawMessage(req.Args)
		}
	}
	out, _ := json.Marshal(m)
	return out
}
