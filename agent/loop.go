package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	tools "covey/tools/tool" // the tool interface alone: no tool implementation is linked
)

// CancelledResult is the tool result of every call cut off by a cancel, so
// the conversation stays valid for the next request.
const CancelledResult = "cancelled by the user"

// UnansweredNote joins a prompt whose turn was cut off before any answer
// to the next one, in the request (the history keeps both as they came).
const UnansweredNote = "[covey: the message above got no answer: its turn was interrupted]"

// Run adds prompt as a user message and runs the loop until the model
// answers without tool calls, MaxTurns is reached, the context ends or an
// error occurs. It emits events as it goes and a Done event last. The
// returned error is the run error (nil on a normal answer or max turns).
func (a *Agent) Run(ctx context.Context, prompt string) (Result, error) {
	if err := a.begin(); err != nil {
		return Result{}, err
	}
	defer a.end()
	// A turn cut off before any answer (a cancel, a failure) left its user
	// message unanswered: request() joins it to this one, so nothing the
	// model cannot use is carried.
	a.append(Message{Role: RoleUser, Content: prompt, Images: imagesOf(ctx)})
	a.halted.Store(false)
	a.takeFinal()
	res, err := a.safeLoop(ctx)
	done := Done{Source: a.cfg.Source, Answer: res.Answer, Reason: res.Reason, Usage: res.Usage, Turns: res.Turns}
	if err != nil {
		done.Error = err.Error()
	}
	a.emit(done)
	return res, err
}

// safeLoop runs the loop and turns a panic anywhere in it into a run error,
// so a bug never takes the user's terminal down with it.
func (a *Agent) safeLoop(ctx context.Context) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res.Reason = StopError
			err = fmt.Errorf("internal error: %v", p)
			// The stack goes to the user's screen and log, not to a model.
			a.emit(ErrorEvent{Source: a.cfg.Source, Message: err.Error() + "\n" + firstStackLines(debug.Stack(), 16)})
		}
	}()
	return a.loop(ctx)
}

func (a *Agent) loop(ctx context.Context) (Result, error) {
	var res Result
	stopHookActive := false
	overflowed := false // the request now being made was refused as too long once
	for {
		if ctx.Err() != nil {
			res.Reason = stopReason(ctx)
			return res, ctx.Err()
		}
		if a.overBudget() {
			res.Reason = StopBudget
			return res, nil
		}
		if a.cfg.MaxTurns > 0 && res.Turns >= a.cfg.MaxTurns {
			res.Reason = StopMaxTurns
			return res, nil
		}
		if a.cfg.Hold != nil {
			if err := a.cfg.Hold(ctx); err != nil {
				res.Reason = stopReason(ctx)
				return res, err
			}
		}
		a.deliverSteered()
		if err := a.maybeCompact(ctx); err != nil {
			res.Reason = StopError
			if isCancel(ctx, err) {
				res.Reason = stopReason(ctx)
			} else {
				a.emit(ErrorEvent{Source: a.cfg.Source, Message: err.Error()})
			}
			return res, err
		}
		res.Turns++
		req, mark := a.requestMark()
		comp, err := a.provider().Stream(ctx, req, a.streamHandler())
		if comp.Usage != (Usage{}) {
			a.notePromptUsage(comp.Usage, mark)
			res.Usage.Add(comp.Usage)
			a.addUsage(comp.Usage)
			a.emit(UsageReported{Source: a.cfg.Source, Usage: comp.Usage})
		}
		if err != nil {
			// Keep what streamed before the failure; calls from a broken
			// stream are never run.
			if comp.Message.Content != "" || comp.Message.Reasoning != "" {
				partial := comp.Message
				partial.Role, partial.ToolCalls = RoleAssistant, nil
				a.append(partial)
				res.Answer = partial.Content
			}
			if isCancel(ctx, err) {
				res.Reason = stopReason(ctx)
				return res, err
			}
			if !overflowed && comp.Message.Content == "" {
				retry, cerr := a.recoverOverflow(ctx, err)
				if retry {
					overflowed = true
					continue
				}
				if isCancel(ctx, cerr) {
					res.Reason = stopReason(ctx)
					return res, ctx.Err()
				}
				if cerr != nil {
					err = fmt.Errorf("%w (compacting the conversation failed too: %w)", err, cerr)
				}
			}
			res.Reason = StopError
			a.learnWindow(err)
			a.emit(ErrorEvent{Source: a.cfg.Source, Message: err.Error()})
			return res, err
		}
		overflowed = false
		msg := comp.Message
		msg.Role = RoleAssistant
		a.append(msg)
		res.Answer = msg.Content
		if len(msg.ToolCalls) == 0 {
			a.emit(TurnFinished{Source: a.cfg.Source, Turn: res.Turns, FinishReason: comp.FinishReason})
			// A cut-off answer is kept, but the run says it was cut off.
			if r := comp.FinishReason; CutOffNote(r) != "" {
				res.Reason = r
				return res, nil
			}
			if a.hasSteered() {
				continue // a message arrived while it answered: answer that too
			}
			if a.stopHook(ctx, res.Answer, stopHookActive) {
				stopHookActive = true
				continue // a Stop hook said to go on
			}
			res.Reason = StopOK
			return res, nil
		}
		results := a.runTools(ctx, msg.ToolCalls)
		fitToolResults(results, a.toolResultsBudget())
		res.ToolCalls += len(results)
		a.append(results...)
		a.emit(TurnFinished{Source: a.cfg.Source, Turn: res.Turns, FinishReason: comp.FinishReason})
		if a.halted.Load() {
			// A hook said continue false, or a tool ended the run with
			// its answer (a plan nobody approves here): the results are
			// kept, the model is not asked again.
			if f := a.takeFinal(); f != "" {
				res.Answer = f
			}
			res.Reason = StopOK
			return res, nil
		}
	}
}

// takeFinal returns the Final answer a tool ended the run with, and
// forgets it.
func (a *Agent) takeFinal() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.final
	a.final = ""
	return f
}

func stopReason(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return StopTimeout
	}
	return StopCancelled
}

func (a *Agent) streamHandler() StreamHandler {
	src := a.cfg.Source
	return StreamHandler{
		Text:      func(d string) { a.emit(TextDelta{Source: src, Text: d}) },
		Reasoning: func(d string) { a.emit(ReasoningDelta{Source: src, Text: d}) },
		Retry: func(attempt int, wait time.Duration, reason string) {
			a.emit(Retrying{Source: src, Attempt: attempt, Wait: wait, Reason: reason})
		},
	}
}

// runTools runs the calls of one assistant message and returns their tool
// messages in call order. Consecutive calls that may run together run
// concurrently; any other call runs alone, after everything before it.
func (a *Agent) runTools(ctx context.Context, calls []ToolCall) []Message {
	out := make([]Message, len(calls))
	var batch []int
	flush := func() {
		// The calls are announced in call order before any of them runs,
		// so their blocks (and the panes of task calls under them) are
		// drawn in the order of the message, whichever starts first.
		started := make(map[int]startedCall, len(batch))
		for _, i := range batch {
			started[i] = a.startTool(ctx, calls[i])
		}
		var wg sync.WaitGroup
		for _, i := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() {
					if p := recover(); p != nil {
						out[i] = Message{Role: RoleTool, ToolCallID: calls[i].ID, Name: calls[i].Name,
							Content: fmt.Sprintf("Error: internal error running %s: %v", calls[i].Name, p)}
					}
				}()
				out[i] = a.finishTool(ctx, calls[i], started[i])
			}()
		}
		wg.Wait()
		batch = batch[:0]
	}
	for i, c := range calls {
		if t, ok := a.cfg.Tools.Get(c.Name); ok && tools.RunsConcurrently(t) {
			batch = append(batch, i)
			continue
		}
		flush()
		out[i] = a.runTool(ctx, c)
	}
	flush()
	return out
}

// runTool runs one call and always returns its tool message, whatever
// happens: unknown tool, bad arguments, a panic or a cancel.
func (a *Agent) runTool(ctx context.Context, c ToolCall) Message {
	return a.finishTool(ctx, c, a.startTool(ctx, c))
}

// startedCall is a call announced with ToolStarted, not yet run.
type startedCall struct {
	args  json.RawMessage
	key   string
	t     tools.Tool
	known bool
	start time.Time
}

// startTool waits while the agent is paused, then announces c.
func (a *Agent) startTool(ctx context.Context, c ToolCall) startedCall {
	args := json.RawMessage(c.Arguments)
	if strings.TrimSpace(c.Arguments) == "" {
		args = json.RawMessage("{}")
	}
	if a.cfg.Hold != nil {
		_ = a.cfg.Hold(ctx) // a cancel while paused shows as ctx.Err below
	}
	key := tools.KeyArg(c.Name, args)
	t, known := a.cfg.Tools.Get(c.Name)
	a.emit(ToolStarted{Source: a.cfg.Source, CallID: c.ID, Name: c.Name, Args: validJSON(args), KeyArg: key, ReadOnly: known && t.ReadOnly()})
	return startedCall{args: args, key: key, t: t, known: known, start: time.Now()}
}

// finishTool runs an announced call and reports how it ended.
func (a *Agent) finishTool(ctx context.Context, c ToolCall, sc startedCall) Message {
	args, key, t, known, start := sc.args, sc.key, sc.t, sc.known, sc.start
	var r tools.Result
	switch {
	case ctx.Err() != nil:
		r = tools.Result{Content: CancelledResult, IsError: true, Summary: "cancelled"}
	case !known:
		r = tools.Errorf("unknown tool %q. The tools offered are: %s", c.Name, strings.Join(a.cfg.Tools.Names(), ", "))
	case !json.Valid(args):
		r = tools.Errorf("the arguments of %s are not valid JSON (%v). Send a JSON object matching the tool's schema.", c.Name, jsonError(args))
	default:
		r = a.runHooked(ctx, c, t, args)
	}
	a.emit(ToolFinished{Source: a.cfg.Source, CallID: c.ID, Name: c.Name, KeyArg: key, Duration: time.Since(start), Result: r})
	content := a.capResult(r.Content)
	if content == "" {
		content = "(no output)"
	}
	return Message{Role: RoleTool, ToolCallID: c.ID, Name: c.Name, Content: content, Images: r.Images}
}

// runHooked runs a known call with valid arguments, between its
// PreToolUse and PostToolUse hooks.
func (a *Agent) runHooked(ctx context.Context, c ToolCall, t tools.Tool, args json.RawMessage) tools.Result {
	h := a.cfg.Hooks
	if h != nil {
		var block, halt bool
		var reason string
		if ctx, block, reason, halt = h.BeforeTool(ctx, c.ID, c.Name, args); block {
			if halt {
				a.halted.Store(true)
			}
			return tools.Result{Content: reason, IsError: true, Summary: "blocked by hook"}
		}
	}
	src := a.cfg.Source
	tctx := tools.WithProgress(tools.WithCallID(ctx, c.ID), func(p tools.Progress) {
		a.emit(ToolProgress{Source: src, CallID: c.ID, Name: c.Name, Progress: p})
	})
	tctx = tools.WithResultBudget(tctx, a.toolBudget())
	r := safeRun(tctx, t, args)
	if r.Final != "" {
		a.mu.Lock()
		a.final = r.Final
		a.mu.Unlock()
		a.halted.Store(true)
	}
	// A tool that failed because of the cancel says so plainly; one that
	// finished as the cancel landed keeps its result.
	if ctx.Err() != nil && r.IsError {
		return tools.Result{Content: CancelledResult, IsError: true, Summary: "cancelled", Display: r.Display}
	}
	if h != nil && ctx.Err() == nil {
		feedback, halt := h.AfterTool(ctx, c.ID, c.Name, args, r.Content, r.IsError)
		if halt {
			a.halted.Store(true)
		}
		if feedback != "" {
			r.Content = strings.TrimRight(r.Content, "\n") + "\n\n" + feedback
		}
	}
	return r
}

// stopHook runs the Stop (SubagentStop) hooks of an agent about to end its
// run with answer; it reports whether a hook made it go on, after adding
// the hook's reason as the next user message.
func (a *Agent) stopHook(ctx context.Context, answer string, active bool) bool {
	h := a.cfg.Hooks
	if h == nil || ctx.Err() != nil {
		return false
	}
	goOn, halt := h.BeforeStop(ctx, answer, active)
	if halt || strings.TrimSpace(goOn) == "" {
		return false
	}
	a.append(Message{Role: RoleUser, Content: goOn})
	return true
}

// safeRun runs t, turning a panic into an error result.
func safeRun(ctx context.Context, t tools.Tool, args json.RawMessage) (r tools.Result) {
	defer func() {
		if p := recover(); p != nil {
			r = tools.Errorf("the %s tool crashed: %v\n%s", t.Name(), p, firstStackLines(debug.Stack(), 12))
		}
	}()
	return t.Run(ctx, args)
}

func firstStackLines(stack []byte, n int) string {
	lines := strings.SplitN(string(stack), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func jsonError(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return fmt.Errorf("unknown JSON error")
}

// validJSON returns b, or b quoted as a JSON string when it is not valid JSON,
// so events always marshal.
func validJSON(b json.RawMessage) json.RawMessage {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}
