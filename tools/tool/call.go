package tool

import "context"

// Concurrent is implemented by tools that are not read-only but may still
// run alongside other calls of the same message (the task tool: its children
// are isolated agents).
type Concurrent interface {
	Concurrent() bool
}

// RunsConcurrently reports whether calls to t may run at the same time as
// other concurrent calls of one assistant message.
func RunsConcurrently(t Tool) bool {
	if c, ok := t.(Concurrent); ok {
		return c.Concurrent()
	}
	return t.ReadOnly()
}

type callIDKey struct{}

// WithCallID returns ctx carrying the ID of the tool call being run, so a
// tool that spawns work (the task tool) can tag it with its parent call.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID returns the tool call ID carried by ctx, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// Progress is one progress report of a long-running call (an MCP server's
// progress notification): what it is doing and how far it is. A running
// command reports its latest lines of output instead.
type Progress struct {
	Message  string  `json:"message,omitempty"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"` // 0 when unknown
	// Output is the last lines a running command printed, oldest first.
	Output []string `json:"output,omitempty"`
}

type progressKey struct{}

// WithProgress returns ctx carrying fn, which a tool calls through
// ReportProgress while it runs (the agent loop turns reports into events).
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// Reports reports whether ctx carries a progress function, so a tool
// need not watch what it would report to nobody.
func Reports(ctx context.Context) bool {
	fn, ok := ctx.Value(progressKey{}).(func(Progress))
	return ok && fn != nil
}

// ReportProgress hands p to the progress function ctx carries, if any.
func ReportProgress(ctx context.Context, p Progress) {
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok && fn != nil {
		fn(p)
	}
}

type budgetKey struct{}

// HardResultCap is the most any tool result may hold, whatever the window.
const HardResultCap = 256 << 10

// WithResultBudget returns ctx carrying the most bytes one tool result may
// hold for the agent making the call: a share of its model's context
// window, so one result never crowds out the conversation (a child's window
// may differ from its parent's). bytes <= 0 leaves the tools' own caps.
func WithResultBudget(ctx context.Context, bytes int) context.Context {
	return context.WithValue(ctx, budgetKey{}, bytes)
}

// ResultBudget returns the cap a tool applies to its result: its own cap
// def, lowered to the budget ctx carries, and never above HardResultCap.
func ResultBudget(ctx context.Context, def int) int {
	if b, ok := ctx.Value(budgetKey{}).(int); ok && b > 0 && b < def {
		def = b
	}
	return min(def, HardResultCap)
}

// SizedToWindow reports whether ctx's budget lowered a cap of def bytes,
// so a cut can say that the model's window is why.
func SizedToWindow(ctx context.Context, def int) bool {
	b, ok := ctx.Value(budgetKey{}).(int)
	return ok && b > 0 && b < def
}
