package hooks

import (
	"context"
	"encoding/json"
	"strings"

	"covey/permission"
	"covey/tools/toolname"
)

// Verdict is what the PreToolUse hooks of a call decided.
type Verdict struct {
	// Block: the call does not run and Reason is its result.
	Block  bool
	Reason string
	// Halt: a hook said continue false; the run ends after this step.
	Halt bool
}

// Binding is a runner bound to one agent: the main agent (its stop event
// is Stop) or a child (SubagentStop). It implements the agent loop's hooks.
type Binding struct {
	Runner *Runner
	// Base returns the common fields of every input (session_id,
	// transcript_path, cwd, permission_mode).
	Base func() Input
	// StopEvent is Stop for the main agent, SubagentStop for a child;
	// AgentID and AgentType name the child.
	StopEvent string
	AgentID   string
	AgentType string
	// Gate asks the user when a PreToolUse hook says ask.
	Gate permission.Gate
	// Notify, when set, is told what each event's hooks said when it is
	// worth showing (a block, a failure, a message); subject names the
	// call or moment ("bash", "stop").
	Notify func(event, subject string, o Outcome)
	// Turn, when set, may return the runner of the moment in place of
	// Runner: a slash command's turn runs its own hooks: beside the
	// session's.
	Turn func(ctx context.Context) *Runner
}

// Active reports whether b runs any hook at all: a nil or empty binding
// costs the loop nothing.
func (b *Binding) Active() bool { return b != nil && (b.Runner != nil || b.Turn != nil) }

// runner is the runner for a call in ctx.
func (b *Binding) runner(ctx context.Context) *Runner {
	if b.Turn != nil {
		if r := b.Turn(ctx); r != nil {
			return r
		}
	}
	return b.Runner
}

func (b *Binding) input(event string) Input {
	var in Input
	if b.Base != nil {
		in = b.Base()
	}
	in.HookEventName = event
	return in
}

func (b *Binding) notify(event, subject string, o Outcome) {
	if b.Notify != nil && (o.Block || o.Halt || len(o.Notes) > 0) {
		b.Notify(event, subject, o)
	}
}

// BeforeTool runs the PreToolUse hooks of a call (agent.Hooks). It returns
// the context to run the call in (carrying an allow or ask for the
// permission gate), and whether the call must not run, with the reason the
// model reads instead of a result.
func (b *Binding) BeforeTool(ctx context.Context, callID, name string, args json.RawMessage) (_ context.Context, block bool, reason string, halt bool) {
	v, ctx := b.beforeTool(ctx, callID, name, args)
	return ctx, v.Block, v.Reason, v.Halt
}

func (b *Binding) beforeTool(ctx context.Context, callID, name string, args json.RawMessage) (Verdict, context.Context) {
	if !b.Active() || !b.runner(ctx).Has(PreToolUse) {
		return Verdict{}, ctx
	}
	in := b.input(PreToolUse)
	in.ToolName = ClaudeName(name, args)
	in.ToolInput = ClaudeInput(name, args, in.Cwd)
	in.ToolUseID = callID
	o := b.runner(ctx).Run(ctx, in, name)
	b.notify(PreToolUse, name, o)
	switch {
	case o.Halt:
		return Verdict{Block: true, Halt: true, Reason: "Stopped by a PreToolUse hook" + suffix(o.StopReason)}, ctx
	case o.Block:
		return Verdict{Block: true, Reason: "Blocked by a PreToolUse hook: " + o.Reason}, ctx
	case o.Permission == Allow:
		return Verdict{}, permission.WithHookDecision(ctx, permission.HookAllow)
	case o.Permission == Ask:
		if b.Gate == nil {
			return Verdict{}, ctx
		}
		v := b.Gate.Check(permission.WithHookDecision(ctx, permission.HookAsk), gateRequest(name, args))
		if !v.Allowed {
			return Verdict{Block: true, Reason: "Error: " + v.Reason}, ctx
		}
		// Asked once: the tool's own check does not ask again.
		return Verdict{}, permission.WithHookDecision(ctx, permission.HookAllow)
	}
	return Verdict{}, ctx
}

// AfterTool runs the PostToolUse hooks of a finished call (agent.Hooks); a
// block or additional context comes back as feedback, for the model to
// read beside the result.
func (b *Binding) AfterTool(ctx context.Context, callID, name string, args json.RawMessage, content string, isError bool) (feedback string, halt bool) {
	event := PostToolUse
	if isError {
		// Claude Code's event for a call that failed.
		event = PostToolUseFailure
	}
	if !b.Active() || !b.runner(ctx).Has(event) {
		return "", false
	}
	in := b.input(event)
	in.ToolName = ClaudeName(name, args)
	in.ToolInput = ClaudeInput(name, args, in.Cwd)
	in.ToolUseID = callID
	if isError {
		in.Error = content
	} else {
		in.ToolResponse = toolResponse(in.ToolInput, content, isError)
	}
	o := b.runner(ctx).Run(ctx, in, name)
	b.notify(event, name, o)
	var parts []string
	if o.Block {
		parts = append(parts, event+" hook: "+o.Reason)
	}
	if o.Context != "" {
		parts = append(parts, o.Context)
	}
	return strings.Join(parts, "\n"), o.Halt
}

// BeforeStop runs the Stop (or SubagentStop) hooks as the agent is about
// to end its turn with answer (agent.Hooks); active says a Stop hook
// already made it go on. A block makes it go on with the hook's reason.
func (b *Binding) BeforeStop(ctx context.Context, answer string, active bool) (goOn string, halt bool) {
	if !b.Active() || !b.runner(ctx).Has(b.StopEvent) {
		return "", false
	}
	in := b.input(b.StopEvent)
	in.StopHookActive = &active
	in.AgentID, in.AgentType = b.AgentID, b.AgentType
	o := b.runner(ctx).Run(ctx, in, "")
	b.notify(b.StopEvent, "stop", o)
	if o.Halt || !o.Block {
		return "", o.Halt
	}
	return o.Reason, false
}

// toolResponse is PostToolUse's tool_response: the result the model read,
// plus Claude Code's filePath and success for file tools.
func toolResponse(input json.RawMessage, content string, isError bool) json.RawMessage {
	resp := map[string]any{"output": content, "success": !isError}
	if isError {
		resp["error"] = content
	}
	var in map[string]any
	if json.Unmarshal(input, &in) == nil {
		if p, ok := in["file_path"].(string); ok {
			resp["filePath"] = p
		}
	}
	out, _ := json.Marshal(resp)
	return out
}

// gateRequest describes a call for the question a hook's ask puts to the
// user.
func gateRequest(name string, args json.RawMessage) permission.Request {
	var m map[string]any
	_ = json.Unmarshal(args, &m)
	str := func(k string) string { s, _ := m[k].(string); return s }
	req := permission.Request{Tool: name, Args: string(args)}
	switch name {
	case toolname.Bash:
		req.Command = str("command")
	case toolname.WebFetch:
		req.URL = str("url")
	case toolname.WriteFile, toolname.EditFile, toolname.ReadFile:
		req.Path = str("path")
	}
	if strings.HasPrefix(name, toolname.MCPPrefix) {
		if srv, tool, ok := strings.Cut(strings.TrimPrefix(name, toolname.MCPPrefix), "__"); ok {
			req.Server, req.ServerTool = srv, tool
		}
	}
	return req
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}
