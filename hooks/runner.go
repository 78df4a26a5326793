package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Input is the JSON a hook reads on stdin: Claude Code's common fields
// plus the event's own. Empty fields are left out.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`

	// Tool events.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	// PostToolUseFailure: what went wrong.
	Error string `json:"error,omitempty"`

	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// Stop and SubagentStop: true when the agent goes on because a Stop
	// hook said so already (a hook checks it to avoid looping forever).
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// PreCompact: manual or auto, and the user's /compact instructions.
	Trigger            string  `json:"trigger,omitempty"`
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	// SessionStart: startup, resume, clear or compact.
	Source string `json:"source,omitempty"`
	// SessionEnd: why the session ended.
	Reason string `json:"reason,omitempty"`
	// Notification.
	Message          string `json:"message,omitempty"`
	Title            string `json:"title,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	// SubagentStart and SubagentStop: which child.
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
}

// subject is what a matcher of the event is compared with.
func (in Input) subjects(coveyTool string) []string {
	switch in.HookEventName {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return []string{in.ToolName, coveyTool}
	case SessionStart:
		return []string{in.Source}
	case SessionEnd:
		return []string{in.Reason}
	case PreCompact:
		return []string{in.Trigger}
	case SubagentStart, SubagentStop:
		return []string{in.AgentType}
	case Notification:
		return []string{in.NotificationType}
	}
	return nil // UserPromptSubmit, Stop: matchers do not apply
}

// output is the JSON a hook may print on stdout (exit 0).
type output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	Specific       struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
		// PermissionRequest's answer on the user's behalf.
		Decision struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// ErrPromptBlocked is the error of a turn whose prompt a UserPromptSubmit
// hook blocked; the error wrapping it says why. Nothing was sent, so there
// is nothing to retry.
var ErrPromptBlocked = errors.New("prompt blocked by a UserPromptSubmit hook")

// Permission decisions of PreToolUse hooks.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)

// Outcome is what the hooks of one event said together.
type Outcome struct {
	// Block: a hook exited 2, or said decision "block" (or, for
	// PreToolUse, permissionDecision "deny"). Reason says why, for the
	// model (PreToolUse, PostToolUse, Stop) or the user (UserPromptSubmit).
	Block  bool
	Reason string
	// Permission is PreToolUse's strongest permissionDecision: deny over
	// ask over allow; "" when none gave one. PermissionReason says why.
	Permission       string
	PermissionReason string
	// Context is text for the model: UserPromptSubmit's and SessionStart's
	// stdout, and every additionalContext.
	Context string
	// Halt: a hook said continue false; the agent stops, and StopReason
	// is shown to the user.
	Halt       bool
	StopReason string
	// Notes are for the user: failures (other exit codes, timeouts) and
	// systemMessages, one per hook.
	Notes []Note
	// Ran counts the hooks that ran.
	Ran int
}

// Note is one thing a hook run tells the user.
type Note struct {
	Command string
	Text    string
	// Error: the hook failed (exit code other than 0 and 2, a timeout, it
	// could not start); otherwise it is a message the hook chose to show.
	Error bool
}

// Report is one hook run, for the debug log and the UI.
type Report struct {
	Event    string
	Command  string
	Source   string
	Exit     int // -1: it did not exit by itself
	Stdout   string
	Stderr   string
	Elapsed  time.Duration
	TimedOut bool
	Err      string
	// Blocked: this run blocked the event.
	Blocked bool
}

// Runner runs a set of hooks. It is safe for concurrent use; a nil Runner
// runs nothing.
type Runner struct {
	hooks []Hook
	// byEvent indexes hooks by event, so an event nobody hooks costs a map
	// lookup.
	byEvent map[string][]Hook
	dir     string
	env     []string
	scrub   []string // variables hooks do not get
	// OnRun, when set, is called after each hook runs (the --debug log).
	onRun func(Report)
	// trusted says whether project hooks run; shared with the runners
	// made from this one (With), so trusting them later reaches all.
	trusted *atomic.Bool
}

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	// Dir is where hooks run (the project root).
	Dir string
	// OnRun receives a report of each run.
	OnRun func(Report)
	// ProjectTrusted says whether project hooks run from the start (see
	// SetProjectTrusted).
	ProjectTrusted bool
	// Scrub names the environment variables hooks do not get (covey's own
	// API keys; see Environ).
	Scrub []string
}

// NewRunner returns a runner of hs; nil when hs is empty, so callers pay
// nothing when no hook is configured.
func NewRunner(hs []Hook, opts RunnerOptions) *Runner {
	if len(hs) == 0 {
		return nil
	}
	hs = Pin(hs, opts.Dir)
	r := &Runner{hooks: hs, byEvent: map[string][]Hook{}, dir: opts.Dir, onRun: opts.OnRun,
		env:     []string{"CLAUDE_PROJECT_DIR=" + opts.Dir, "COVEY_PROJECT_DIR=" + opts.Dir},
		scrub:   opts.Scrub,
		trusted: &atomic.Bool{}}
	r.trusted.Store(opts.ProjectTrusted)
	for _, h := range hs {
		r.byEvent[h.Event] = append(r.byEvent[h.Event], h)
	}
	return r
}

// With returns a runner of r's hooks plus more (an agent file's own); r
// itself is unchanged.
func (r *Runner) With(more []Hook, opts RunnerOptions) *Runner {
	if len(more) == 0 {
		return r
	}
	var all []Hook
	if r != nil {
		all = append(all, r.hooks...)
		if opts.Dir == "" {
			opts.Dir = r.dir
		}
		if opts.OnRun == nil {
			opts.OnRun = r.onRun
		}
		if opts.Scrub == nil {
			opts.Scrub = r.scrub
		}
	}
	out := NewRunner(append(all, more...), opts)
	if r != nil {
		out.trusted = r.trusted
	}
	return out
}

// SetProjectTrusted lets the project hooks run (or not) from now on, in r
// and every runner made from it.
func (r *Runner) SetProjectTrusted(ok bool) {
	if r != nil {
		r.trusted.Store(ok)
	}
}

// ProjectTrusted reports whether project hooks run.
func (r *Runner) ProjectTrusted() bool { return r != nil && r.trusted.Load() }

// Skipped returns the project hooks that do not run because the user has
// not trusted them.
func (r *Runner) Skipped() []Hook {
	if r == nil || r.trusted.Load() {
		return nil
	}
	var out []Hook
	for _, h := range r.hooks {
		if h.Scope == ScopeProject {
			out = append(out, h)
		}
	}
	return out
}

// runs reports whether h may run now.
func (r *Runner) runs(h Hook) bool { return h.Scope != ScopeProject || r.trusted.Load() }

// Hooks returns the runner's hooks.
func (r *Runner) Hooks() []Hook {
	if r == nil {
		return nil
	}
	return r.hooks
}

// Has reports whether any hook is configured for event.
func (r *Runner) Has(event string) bool {
	if r == nil {
		return false
	}
	for _, h := range r.byEvent[event] {
		if r.runs(h) {
			return true
		}
	}
	return false
}

// matching returns the hooks of in's event that match it, each command
// once (identical commands are deduplicated, as in Claude Code).
func (r *Runner) matching(in Input, coveyTool string) []Hook {
	if r == nil {
		return nil
	}
	subjects := in.subjects(coveyTool)
	var out []Hook
	seen := map[string]bool{}
	for _, h := range r.byEvent[in.HookEventName] {
		if !r.runs(h) || subjects != nil && !h.matches(subjects...) {
			continue
		}
		if seen[h.Command] {
			continue
		}
		seen[h.Command] = true
		out = append(out, h)
	}
	return out
}

// Run runs the hooks matching in (coveyTool is the tool's covey name, for
// matchers that use it) in parallel and returns what they said together.
// It returns when every hook has ended or been killed at its timeout.
func (r *Runner) Run(ctx context.Context, in Input, coveyTool string) Outcome {
	hs, changed := r.unchanged(r.matching(in, coveyTool))
	if len(hs) == 0 {
		return Outcome{Notes: changed}
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		return Outcome{Notes: []Note{{Text: fmt.Sprintf("hook input: %v", err), Error: true}}}
	}
	runs := make([]run, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = execHook(ctx, h, stdin, r.dir, Environ(r.scrub, r.env...))
		}()
	}
	wg.Wait()
	o := r.combine(in.HookEventName, runs)
	o.Notes = append(changed, o.Notes...)
	return o
}

// unchanged keeps the hooks whose workspace scripts are as they were when
// read, and notes each one left out.
func (r *Runner) unchanged(hs []Hook) ([]Hook, []Note) {
	var keep []Hook
	var notes []Note
	for _, h := range hs {
		if p := changedScript(h, r.dir); p != "" {
			notes = append(notes, Note{Command: h.Command, Error: true,
				Text: fmt.Sprintf("not run: %s changed since the project's hooks were read, and trusting a hook trusts its script as it was; restart covey to be asked about it again", p)})
			continue
		}
		keep = append(keep, h)
	}
	return keep, notes
}

// combine reads every run as Claude Code defines exit codes and output.
func (r *Runner) combine(event string, runs []run) Outcome {
	var o Outcome
	var reasons, contexts, permReasons, stops []string
	rank := map[string]int{"": 0, Allow: 1, Ask: 2, Deny: 3}
	for _, x := range runs {
		o.Ran++
		blocked := false
		switch {
		case x.err != nil:
			o.Notes = append(o.Notes, Note{Command: x.hook.Command, Text: x.err.Error(), Error: true})
		case x.exit == 2:
			blocked = true
			msg := strings.TrimSpace(x.stderr)
			if msg == "" {
				msg = "blocked by hook: " + x.hook.Command
			}
			reasons = append(reasons, msg)
		case x.exit != 0:
			msg := strings.TrimSpace(x.stderr)
			if msg == "" {
				msg = strings.TrimSpace(x.stdout)
			}
			o.Notes = append(o.Notes, Note{Command: x.hook.Command, Text: fmt.Sprintf("exit %d: %s", x.exit, msg), Error: true})
		default:
			out, isJSON := parseOutput(x.stdout)
			if !isJSON {
				if (event == UserPromptSubmit || event == SessionStart) && strings.TrimSpace(x.stdout) != "" {
					contexts = append(contexts, strings.TrimSpace(x.stdout))
				}
				break
			}
			if out.Continue != nil && !*out.Continue {
				o.Halt = true
				if out.StopReason != "" {
					stops = append(stops, out.StopReason)
				}
			}
			if out.SystemMessage != "" {
				o.Notes = append(o.Notes, Note{Command: x.hook.Command, Text: out.SystemMessage})
			}
			if c := strings.TrimSpace(out.Specific.AdditionalContext); c != "" {
				contexts = append(contexts, c)
			}
			switch strings.ToLower(out.Decision) {
			case "block":
				blocked = true
				reasons = append(reasons, firstNonEmpty(out.Reason, "blocked by hook: "+x.hook.Command))
			case "approve": // the old spelling of allow
				if event == PreToolUse && rank[Allow] > rank[o.Permission] {
					o.Permission = Allow
				}
			}
			if b := strings.ToLower(out.Specific.Decision.Behavior); event == PermissionRequest && (b == Allow || b == Deny) {
				if rank[b] > rank[o.Permission] {
					o.Permission = b
				}
				if b == Deny {
					blocked = true
					reasons = append(reasons, firstNonEmpty(out.Specific.Decision.Message, "denied by hook: "+x.hook.Command))
				}
			}
			if d := strings.ToLower(out.Specific.PermissionDecision); event == PreToolUse && rank[d] > 0 {
				if rank[d] > rank[o.Permission] {
					o.Permission = d
				}
				if why := firstNonEmpty(out.Specific.PermissionDecisionReason, out.Reason); why != "" {
					permReasons = append(permReasons, why)
				}
				if d == Deny {
					blocked = true
					reasons = append(reasons, firstNonEmpty(out.Specific.PermissionDecisionReason, out.Reason, "denied by hook: "+x.hook.Command))
				}
			}
		}
		if blocked {
			o.Block = true
		}
		if r != nil && r.onRun != nil {
			rep := Report{Event: event, Command: x.hook.Command, Source: x.hook.Source, Exit: x.exit, Stdout: x.stdout,
				Stderr: x.stderr, Elapsed: x.elapsed, TimedOut: x.timedOut, Blocked: blocked}
			if x.err != nil {
				rep.Err = x.err.Error()
			}
			r.onRun(rep)
		}
	}
	o.Reason = strings.Join(reasons, "\n")
	o.Context = strings.Join(contexts, "\n\n")
	o.PermissionReason = strings.Join(permReasons, "\n")
	o.StopReason = strings.Join(stops, "\n")
	return o
}

// parseOutput reads stdout as the hook's JSON output when it is a JSON
// object.
func parseOutput(stdout string) (output, bool) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return output{}, false
	}
	var out output
	if json.Unmarshal([]byte(s), &out) != nil {
		return output{}, false
	}
	return out, true
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}
