package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"covey/internal/excerpt"
	"covey/internal/plural"
	"covey/tools/toolname"

	"covey/agent"
	"covey/tools/tool"
)

// TaskArgs are the arguments of the task tool: one task, or a batch.
type TaskArgs struct {
	TaskSpec
	Tasks []TaskSpec `json:"tasks,omitempty" items:"object" jsonschema:"Several tasks at once, each an object of the single-task fields"`
}

// TaskSpec is one child to run. Its fields are the task tool's schema
// (tool.ArgsSchema); none is required there, since a batch sends them
// under tasks instead, so parseTaskArgs checks them.
type TaskSpec struct {
	Description  string `json:"description,omitempty" jsonschema:"3-6 words, shown to the user"`
	Prompt       string `json:"prompt,omitempty"`
	SubagentType string `json:"subagent_type,omitempty"`
	// Name is the child's handle, unique in the session; covey makes one
	// up when it is empty.
	Name string `json:"name,omitempty" jsonschema:"Unique handle, e.g. \"scout\""`
	// Background returns the call at once; the outcome comes back later
	// as a user-role message.
	Background bool `json:"run_in_background,omitempty"`
	// Isolation "worktree" runs the child in its own git worktree.
	Isolation string `json:"isolation,omitempty" enum:"worktree" jsonschema:"For children that edit in parallel: each writes in its own git worktree, its changes come back for review"`
	// Fork starts the child from its parent's conversation so far (the
	// same messages, so a provider's prompt cache serves them) instead of
	// a clean history; the prompt follows as its brief.
	Fork bool `json:"fork,omitempty" jsonschema:"Start from this conversation"`
	// Attempts (2 to 4) runs the brief in that many isolated children at
	// once, and one of them is applied (best of N).
	Attempts int `json:"attempts,omitempty" minimum:"2" maximum:"4" jsonschema:"Best of N"`
	// Check is a command run in each attempt's worktree when it ends
	// (best of N only); its outcome is shown beside each attempt.
	Check string `json:"check,omitempty" jsonschema:"Best of N: a command each attempt must pass, e.g. go build ./..."`
	// Attempt numbers one child of a best-of-N task, from 1; set by
	// covey, not the model.
	Attempt int `json:"-"`
	// Touches declares the paths or globs the child means to change; an
	// overlap with a running sibling's is warned before it writes.
	Touches []string `json:"touches,omitempty" jsonschema:"Paths or globs it will change (overlaps with siblings are warned)"`
}

// reasonBackground stands in a task result's summary for a child that went
// on in the background.
const reasonBackground = "background"

// taskTool is the task tool of one agent.
type taskTool struct {
	m      *Manager
	parent agent.Source
	spawn  []string // the only types it may start; nil: any
}

func (t *taskTool) Name() string { return toolname.Task }

// ReadOnly is false: a child may write if its type allows. Concurrent is true:
// children are isolated agents, so task calls of one message run together.
func (t *taskTool) ReadOnly() bool   { return false }
func (t *taskTool) Concurrent() bool { return true }

func (t *taskTool) Description() string {
	var b strings.Builder
	b.WriteString(`Hand focused work to subagents: agents that see only your prompt (a complete brief: goal, where to look, what to report) and the tools of their type. Run several at once with several calls in ONE message or one call with tasks. Reports come back in call order; with run_in_background, as a message later (send_message steers, stop_agent stops). With fork, a child starts from this conversation instead (costlier; for work that needs what it established). attempts (2-4) runs one brief in that many worktree children; the best is applied.

subagent_type:
`)
	b.WriteString(t.catalog())
	return b.String()
}

// catalog lists the types this tool may start.
func (t *taskTool) catalog() string {
	if t.spawn == nil {
		return t.m.cfg.Defs.Catalog()
	}
	only := t.m.cfg.Defs.Only(t.spawn)
	if len(only.All()) == 0 {
		return "(none: no type this agent may start exists)"
	}
	return only.Catalog()
}

func (t *taskTool) Schema() map[string]any { return taskSchema() }

var taskSchema = tool.ArgsSchema[TaskArgs](tool.SchemaOpen)

// Run starts the requested children, waits for all of them, and returns
// their reports in order. It never returns before every child has stopped.
func (t *taskTool) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	specs, err := parseTaskArgs(raw)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	parentCall := tool.CallID(ctx)
	outcomes := make([]outcome, len(specs))
	children := make([]*child, len(specs))
	for i, spec := range specs {
		if spec.Attempts > 0 {
			continue // run below, each group on its own
		}
		c, failed := t.m.spawn(ctx, t.parent, parentCall, t.spawn, spec)
		if failed != nil {
			outcomes[i] = *failed
			continue
		}
		children[i] = c
		t.m.start(c)
	}
	var groups sync.WaitGroup
	for i, spec := range specs {
		if spec.Attempts == 0 {
			continue
		}
		groups.Add(1)
		go func() {
			defer groups.Done()
			outcomes[i] = t.runAttempts(ctx, parentCall, spec)
		}()
	}
	var inBackground []int
	for i, c := range children {
		if c == nil {
			continue
		}
		out, bg := c.wait()
		if bg {
			inBackground = append(inBackground, i)
			continue
		}
		outcomes[i] = out
	}
	groups.Wait()
	// Said once the call returns, not when the child left: one moved to
	// the background may have ended (been cancelled) since, and the
	// parent must not read it as still working.
	for _, i := range inBackground {
		how := "started in the background"
		if !specs[i].Background {
			how = "moved to the background by the user"
		}
		outcomes[i] = children[i].backgroundOutcome(how)
	}
	for i, c := range children {
		if c != nil && c.overlap != "" {
			outcomes[i].text = c.overlap + "\n" + outcomes[i].text
		}
	}
	return t.m.report(specs, outcomes)
}

// backgroundOutcome is what the task call says of a child in the
// background: still running, or ended since (its report arrives as a
// message either way).
func (c *child) backgroundOutcome(how string) outcome {
	c.mu.Lock()
	ended, reason := c.state != agent.StateQueued && c.state != agent.StateRunning, c.out.reason
	c.mu.Unlock()
	if ended {
		if reason == agent.StopOK {
			reason = "finished"
		}
		return outcome{reason: reasonBackground, text: fmt.Sprintf("[%s, and has ended since (%s): name %q, id %s. Its report will arrive as a message.]", how, reason, c.src.Name, c.src.AgentID)}
	}
	return outcome{reason: reasonBackground, text: fmt.Sprintf("[%s: name %q, id %s. Its report will arrive as a message when it finishes; send_message reaches it meanwhile, stop_agent stops it.]", how, c.src.Name, c.src.AgentID)}
}

func parseTaskArgs(raw json.RawMessage) ([]TaskSpec, error) {
	var a TaskArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("invalid task arguments: %w. Send {description, prompt, subagent_type} or {tasks: [...]}", err)
	}
	specs := a.Tasks
	if len(specs) == 0 {
		specs = []TaskSpec{a.TaskSpec}
	} else if a.Prompt != "" {
		specs = append([]TaskSpec{a.TaskSpec}, specs...)
	}
	for i := range specs {
		s := &specs[i]
		s.Background = s.Background || a.Background
		s.Fork = s.Fork || a.Fork
		if strings.TrimSpace(s.Prompt) == "" {
			return nil, fmt.Errorf("task %d has no prompt: every task needs description, prompt and subagent_type", i+1)
		}
		if strings.TrimSpace(s.SubagentType) == "" {
			return nil, fmt.Errorf("task %d has no subagent_type: every task needs description, prompt and subagent_type", i+1)
		}
		if s.Isolation = strings.ToLower(strings.TrimSpace(s.Isolation)); s.Isolation != "" && s.Isolation != IsolationWorktree {
			return nil, fmt.Errorf("task %d: isolation must be %q or left out, not %q", i+1, IsolationWorktree, s.Isolation)
		}
		if s.Attempts == 0 && a.Attempts != 0 && len(a.Tasks) > 0 {
			s.Attempts = a.Attempts
		}
		if s.Check == "" && len(a.Tasks) > 0 {
			s.Check = a.Check
		}
		switch {
		case s.Attempts == 1:
			s.Attempts = 0 // one attempt is a plain task
		case s.Attempts != 0 && (s.Attempts < MinAttempts || s.Attempts > MaxAttempts):
			return nil, fmt.Errorf("task %d: attempts must be %d to %d, not %d", i+1, MinAttempts, MaxAttempts, s.Attempts)
		case s.Attempts != 0 && s.Background:
			return nil, fmt.Errorf("task %d: attempts cannot run in the background: the user reviews them side by side when all have ended", i+1)
		case s.Attempts != 0:
			s.Isolation = IsolationWorktree
		case strings.TrimSpace(s.Check) != "":
			return nil, fmt.Errorf("task %d: check is for best of N: give attempts (2 to 4) too, or leave check out", i+1)
		}
		if strings.TrimSpace(s.Description) == "" {
			s.Description = excerpt.Cut(excerpt.Line(s.Prompt), 40)
		}
	}
	return specs, nil
}

// report joins the children's outcomes into the tool result, in call order.
func (m *Manager) report(specs []TaskSpec, outs []outcome) tool.Result {
	var b strings.Builder
	failed, failedCalls := 0, 0
	var summary []string
	for i, o := range outs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "## [%s] %s", specs[i].SubagentType, specs[i].Description)
		if n := specs[i].Attempts; n > 0 {
			fmt.Fprintf(&b, " (best of %d)", n)
		}
		b.WriteString("\n")
		if o.reason != agent.StopOK && o.reason != reasonBackground {
			failed++
		}
		b.WriteString(capText(o.text, m.cfg.ResultCap))
		summary = append(summary, o.reason)
		failedCalls += o.failedCalls
	}
	r := tool.Result{Content: b.String(), Summary: summarize(summary)}
	if failedCalls > 0 {
		// Shown on the task call's line: its children finished, not all
		// they tried worked.
		r.Summary += " · " + plural.Count(failedCalls, "failed call")
	}
	if len(outs) == 1 && outs[0].reason == agent.StopError {
		// One failed child: its summary line says why, not just "error".
		r.Summary += ": " + failureLine(outs[0].text)
	}
	if failed == len(outs) {
		r.IsError = true
	}
	return r
}

func summarize(reasons []string) string {
	counts := map[string]int{}
	for _, r := range reasons {
		counts[r]++
	}
	if len(reasons) == 1 {
		return reasons[0]
	}
	var parts []string
	for _, r := range []string{agent.StopOK, agent.StopError, agent.StopCancelled, agent.StopTimeout, agent.StopMaxTurns, agent.StopBudget, reasonBackground} {
		if counts[r] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[r], r))
		}
	}
	return fmt.Sprintf("%d children: %s", len(reasons), strings.Join(parts, ", "))
}

// failureLine is the first sentence of a failed child's report, on one
// short line ("unknown subagent_type \"Explorer\"").
func failureLine(text string) string {
	line := strings.TrimPrefix(excerpt.Line(text), "Error: ")
	if i := strings.Index(line, ". "); i > 0 {
		line = line[:i]
	}
	return excerpt.Cut(line, 80)
}

// capText cuts s to at most n bytes on a rune boundary, with a note.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… result cut: %d of %d bytes shown]", cut, len(s))
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
