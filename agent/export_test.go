package agent

import "context"

// RunToolForBench runs one call through the loop's tool path (hooks
// included), for the benchmarks of package agent_test.
func RunToolForBench(ctx context.Context, a *Agent, c ToolCall) Message { return a.runTool(ctx, c) }
