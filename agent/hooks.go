package agent

import (
	"context"
	"encoding/json"
)

// Hooks are the user's hook commands at the loop's moments (package hooks
// runs them; the session binds them to an agent). The loop knows only this
// interface, in plain types, so it links no hook runner nor the permission
// gate behind it.
type Hooks interface {
	// BeforeTool runs before a call. It returns the context to run the
	// call in (carrying a hook's allow or ask to the permission gate);
	// block keeps the call from running, with reason as its result; halt
	// ends the run after this step.
	BeforeTool(ctx context.Context, callID, name string, args json.RawMessage) (_ context.Context, block bool, reason string, halt bool)
	// AfterTool runs after a call; feedback, when not empty, is added to
	// the result the model reads.
	AfterTool(ctx context.Context, callID, name string, args json.RawMessage, content string, isError bool) (feedback string, halt bool)
	// BeforeStop runs as the agent is about to end its run with answer
	// (active: a Stop hook made it go on already); goOn, when not empty,
	// makes it go on with that as its next instruction.
	BeforeStop(ctx context.Context, answer string, active bool) (goOn string, halt bool)
}
