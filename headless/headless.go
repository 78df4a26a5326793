// Package headless is covey's non-interactive consumer (covey -p): it runs
// one prompt on a session and prints the answer on stdout and progress on
// stderr (text), or JSON for scripts (json, stream-json).
package headless

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/agentdefs"
	"covey/config"
	"covey/internal/excerpt"
	"covey/internal/plural"
	"covey/session"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/worktree"
)

// ReasonPlan is the reason of a run that ended presenting a plan
// (exit_plan_mode in plan mode): the plan is the answer, for the user to
// approve by running again in another mode.
const ReasonPlan = "plan"

// Exit codes of a headless run.
const (
	ExitOK  = 0 // the agent answered
	ExitRun = 1 // the run failed, was cancelled or was cut short
)

// CheckFormat returns an error naming the choices unless format is one Run
// accepts: text, json or stream-json.
func CheckFormat(format string) error {
	switch format {
	case "text", "json", "stream-json":
		return nil
	}
	return fmt.Errorf("unknown --output-format %q: use text, json or stream-json", format)
}

// Run runs prompt on s without the TUI: the answer on stdout, progress on
// stderr (text), or JSON for scripts. It drains s's events, ends the stream
// when the run is over, and returns the process exit code.
func Run(ctx context.Context, s *session.Session, prompt, format string, stdout, stderr io.Writer) int {
	tty := isTerminal(stdout)
	// The configured keys never reach stdout or stderr (stream-json
	// carries tool output, where a command could print one).
	secrets := config.Secrets(s.Config(), s.Endpoint(), os.Getenv)
	stdout, stderr = sessionfile.NewRedactingWriter(stdout, secrets), sessionfile.NewRedactingWriter(stderr, secrets)
	// The agent files' problems, once, before anything else: a headless
	// run has no /agents to show them later.
	if err := agentdefs.WriteProblems(stderr, s.Problems(), "covey: "); err != nil {
		return ExitRun
	}
	for _, w := range s.Warnings() {
		fmt.Fprintln(stderr, "covey:", w)
	}
	// What loading the resumed session skipped or repaired, as the TUI
	// shows it.
	for _, w := range s.ResumeWarnings() {
		fmt.Fprintln(stderr, "covey: warning:", w)
	}
	// Worktrees of isolated children that a crash left behind, as the TUI
	// says at its start.
	if n, err := worktree.NewCommands(s.Workspace()).OrphansCLI(ctx); err == nil && n != "" {
		fmt.Fprintln(stderr, "covey:", n)
	}
	out := newHeadlessOutput(format, stdout, stderr)
	out.tty = tty
	out.prices, out.model = s.Prices(), s.Model()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range s.Events() {
			out.event(e)
		}
	}()
	res, runErr := s.Prompt(ctx, prompt)
	if runErr == nil {
		// Background children still running: wait for them, let the main
		// agent answer their outcomes, and end after its last answer.
		last, err, ok := s.Wait(ctx)
		if ok {
			res, runErr = last, err
		} else if err != nil {
			runErr = err
		}
	}
	s.EndEvents() // every child has finished and no turn runs: nothing emits
	<-done
	res.Usage, res.Turns = out.mainUsage, out.mainTurns
	return out.finish(res, runErr)
}

// headlessOutput renders events for one output format.
type headlessOutput struct {
	format         string
	stdout, stderr io.Writer
	tty            bool // stdout is a terminal
	start          time.Time

	calls    []callRecord
	children []childRecord
	lastLine map[string]time.Time // per child, to throttle live lines
	started  map[string]time.Time // per child
	tools    map[string]int       // per child, tool calls so far

	// the main agent's turns: the user's and those background results
	// started
	mainUsage agent.Usage
	mainTurns int
	// compactions counts the compactions of every agent of the run.
	compactions int
	// planned: the main agent presented a plan (exit_plan_mode) that
	// nobody here can approve; the run ended with it.
	planned bool
	// prices price the run's tokens for the json result's cost; model is
	// the main agent's.
	prices agent.PriceBook
	model  string
}

type callRecord struct {
	AgentID    string          `json:"agent_id"`
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Args       json.RawMessage `json:"args,omitempty"`
	KeyArg     string          `json:"key_arg,omitempty"`
	IsError    bool            `json:"is_error"`
	Summary    string          `json:"summary,omitempty"`
	DurationMS int64           `json:"duration_ms"`
}

type childRecord struct {
	AgentID     string `json:"agent_id"`
	Name        string `json:"name,omitempty"`
	Background  bool   `json:"background,omitempty"`
	Type        string `json:"type"`
	Description string `json:"description"`
	// Attempt and Attempts number an attempt of a best-of-N task.
	Attempt   int         `json:"attempt,omitempty"`
	Attempts  int         `json:"attempts,omitempty"`
	Reason    string      `json:"reason"`
	Error     string      `json:"error,omitempty"`
	ToolCalls int         `json:"tool_calls"`
	ElapsedMS int64       `json:"elapsed_ms"`
	Usage     agent.Usage `json:"usage"`
	// Cost is what its tokens cost (cache reads and writes at their
	// prices), when its model has a price.
	Cost  float64 `json:"cost,omitempty"`
	model string
	// Worktree is what became of an isolated child's changes.
	Worktree *agent.WorktreeResult `json:"worktree,omitempty"`
	// Files are the files it changed: by write and edit calls, and by bash
	// calls as git status saw them.
	Files []string `json:"files,omitempty"`
}

// addFiles notes files a child changed.
func (o *headlessOutput) addFiles(agentID string, paths ...string) {
	for i := range o.children {
		c := &o.children[i]
		if c.AgentID != agentID {
			continue
		}
		for _, p := range paths {
			if p != "" && !slices.Contains(c.Files, p) {
				c.Files = append(c.Files, p)
			}
		}
	}
}

func newHeadlessOutput(format string, stdout, stderr io.Writer) *headlessOutput {
	return &headlessOutput{format: format, stdout: stdout, stderr: stderr, start: time.Now(),
		lastLine: map[string]time.Time{}, started: map[string]time.Time{}, tools: map[string]int{}}
}

// liveLineEvery throttles a child's live progress line on stderr.
const liveLineEvery = 500 * time.Millisecond

func (o *headlessOutput) event(e agent.Event) {
	if o.format == "stream-json" {
		if b, err := agent.MarshalEvent(e); err == nil {
			fmt.Fprintf(o.stdout, "%s\n", b)
		}
	}
	src := e.From()
	switch ev := e.(type) {
	case agent.Notice:
		// Whatever the format: stdout is for the answer.
		fmt.Fprintln(o.stderr, "covey:", excerpt.TermSafe(ev.Message))
	case agent.Done:
		if !src.IsChild() {
			o.mainUsage.Add(ev.Usage)
			o.mainTurns += ev.Turns
		}
	case agent.ChildState:
		o.childState(src, ev)
	case agent.BackgroundResult:
		o.progress("← %s (%s) %s in the background", ev.Name, ev.ChildID, agent.EndVerb(ev.Status))
	case agent.ChildMessage:
		o.progress("→ %s: %s", childLabel(src), excerpt.LineMore(ev.Text))
	case agent.ToolStarted:
		if src.IsChild() {
			return
		}
		o.calls = append(o.calls, callRecord{AgentID: src.AgentID, ID: ev.CallID, Name: ev.Name, Args: ev.Args, KeyArg: ev.KeyArg})
	case agent.ChildFiles:
		paths := make([]string, len(ev.Files))
		for i, f := range ev.Files {
			paths[i] = f.Path
		}
		o.addFiles(src.AgentID, paths...)
		o.progress("[%s] %s changed %s", src.AgentType, childLabel(src), strings.Join(paths, ", "))
	case agent.ToolFinished:
		o.toolFinished(src, ev)
	case agent.ChildStarted:
		o.childStarted(src, ev)
	case agent.ChildFinished:
		o.childFinished(src, ev)
	case agent.WorktreeResult:
		o.worktreeResult(src, ev)
	case agent.Collision:
		o.collision(src, ev)
	case agent.Retrying:
		o.progress("%sretrying in %s: %s", childPrefix(src), seconds(ev.Wait), ev.Reason)
	case agent.HookRan:
		// What a hook blocked or said is the user's to see: always on
		// stderr.
		fmt.Fprintf(o.stderr, "covey: %s%s\n", childPrefix(src), HookLine(ev))
	case agent.Compacting:
		o.progress("%scompacting the conversation (%d tokens)…", childPrefix(src), ev.TokensBefore)
	case agent.Compacted:
		if ev.Error == "" {
			o.compactions++
		}
		o.progress("%s%s", childPrefix(src), agent.CompactionNote(ev))
	case agent.MCPStatus:
		// A server that failed costs the run its tools: always on stderr.
		if ev.State == "failed" {
			fmt.Fprintf(o.stderr, "covey: MCP server %s failed: %s\n", ev.Server, ev.Error)
		}
		for _, n := range ev.Notes {
			o.progress("MCP server %s: %s", ev.Server, n)
		}
	}
}

// childState records a child moved to the background and reports its state's detail.
func (o *headlessOutput) childState(src agent.Source, ev agent.ChildState) {
	for i := range o.children {
		if o.children[i].AgentID == src.AgentID && ev.Background {
			o.children[i].Background = true
		}
	}
	if ev.Detail != "" && src.AgentType != agent.ShellType { // a shell's end has its own line
		o.progress("[%s] %s: %s", src.AgentType, childLabel(src), ev.Detail)
	}
}

// toolFinished records the main agent's finished call (and reports it), or counts a child's.
func (o *headlessOutput) toolFinished(src agent.Source, ev agent.ToolFinished) {
	if !src.IsChild() && ev.Name == toolname.ExitPlanMode && ev.Result.Final != "" {
		o.planned = true
	}
	if src.IsChild() {
		if !ev.Result.IsError && (ev.Name == toolname.WriteFile || ev.Name == toolname.EditFile) {
			o.addFiles(src.AgentID, ev.KeyArg)
		}
		o.tools[src.AgentID]++
		if time.Since(o.lastLine[src.AgentID]) >= liveLineEvery {
			o.lastLine[src.AgentID] = time.Now()
			o.progress("[%s] %s … %s, %s", src.AgentType, src.Description, toolCount(o.tools[src.AgentID]), seconds(time.Since(o.started[src.AgentID])))
		}
		return
	}
	for i := range o.calls {
		if o.calls[i].ID == ev.CallID {
			o.calls[i].IsError, o.calls[i].Summary, o.calls[i].DurationMS = ev.Result.IsError, ev.Result.Summary, ev.Duration.Milliseconds()
		}
	}
	mark := "✓"
	if ev.Result.IsError {
		mark = "✗"
	}
	o.progress("%s %s %s (%s) %s", mark, ev.Name, ev.KeyArg, seconds(ev.Duration), ev.Result.Summary)
}

// childStarted records a child (or a background shell) and reports its start.
func (o *headlessOutput) childStarted(src agent.Source, ev agent.ChildStarted) {
	o.children = append(o.children, childRecord{AgentID: src.AgentID, Name: src.Name, Background: ev.Background, Type: src.AgentType, Description: src.Description,
		Attempt: ev.Attempt, Attempts: ev.Attempts, model: ev.Model})
	o.lastLine[src.AgentID], o.started[src.AgentID] = time.Now(), time.Now()
	if src.AgentType == agent.ShellType {
		o.progress("[shell] %s … started: %s", src.Name, src.Description)
		return
	}
	o.progress("[%s] %s … started (%s)", src.AgentType, src.Description, ev.Model)
}

// cost is what the run's tokens cost, the main agent's (main) and every
// child's, and whether any of their models has a price.
func (o *headlessOutput) cost(main agent.Usage) (float64, bool) {
	total, priced := o.prices.Cost(o.model, main)
	for _, c := range o.children {
		if _, ok := o.prices.Price(c.model); ok && c.model != "" {
			total, priced = total+c.Cost, true
		}
	}
	return total, priced
}

// childFinished records a child's outcome and reports its end.
func (o *headlessOutput) childFinished(src agent.Source, ev agent.ChildFinished) {
	for i := range o.children {
		if o.children[i].AgentID == src.AgentID {
			c := &o.children[i]
			c.Reason, c.Error, c.ToolCalls, c.ElapsedMS, c.Usage = ev.Reason, ev.Error, ev.ToolCalls, ev.Elapsed.Milliseconds(), ev.Usage
			c.Cost, _ = o.prices.Cost(c.model, ev.Usage)
		}
	}
	if src.AgentType == agent.ShellType {
		o.progress("[shell] %s: %s (%s)", src.Name, ev.Summary, seconds(ev.Elapsed))
		return
	}
	word := map[string]string{agent.StopOK: "done", agent.StopMaxTurns: "cut short (max turns)", agent.StopTimeout: "timed out"}[ev.Reason]
	if word == "" {
		word = ev.Reason
	}
	o.progress("[%s] %s: %s (%s, %s, %s tokens)", src.AgentType, src.Description, word, toolCount(ev.ToolCalls), seconds(ev.Elapsed), agent.FormatTokens(ev.Usage.Total()))
}

// collision says on stderr that an agent wrote a file another agent at
// work in the same tree had touched, or that declared paths overlap.
func (o *headlessOutput) collision(src agent.Source, ev agent.Collision) {
	who := childPrefix(src)
	if who == "" {
		who = "main: "
	}
	if ev.Action == "declared" {
		o.progress("%s⚠ overlap: its declared paths meet those of %s (%s)", who, ev.WithName, ev.Path)
		return
	}
	o.progress("%s⚠ collision: wrote %s, which %s %s %s ago", who, ev.Path, ev.WithName, ev.Action, seconds(ev.Ago))
}

// worktreeResult records what became of a child's worktree and says it on stderr.
func (o *headlessOutput) worktreeResult(src agent.Source, ev agent.WorktreeResult) {
	for i := range o.children {
		if o.children[i].AgentID == src.AgentID {
			o.children[i].Worktree = &ev
		}
	}
	// Always on stderr, whatever the format: a kept change must not
	// go unnoticed.
	fmt.Fprintf(o.stderr, "[%s] %s: worktree %s: %s\n", src.AgentType, src.Description, ev.Status, ev.Message)
	if c := ev.Check; c != nil {
		fmt.Fprintf(o.stderr, "[%s] %s: attempt %s: %s\n", src.AgentType, src.Description, childLabel(src), checkText(c))
	}
}

// checkText says an attempt's check in a line: the command and its
// outcome, the language servers' counts, the output's last line.
func checkText(c *tool.AttemptCheck) string {
	var parts []string
	switch {
	case c.Command == "":
	case c.Error != "":
		parts = append(parts, fmt.Sprintf("check %q %s", c.Command, c.Error))
	case c.TimedOut:
		parts = append(parts, fmt.Sprintf("check %q timed out", c.Command))
	case c.Passed:
		parts = append(parts, fmt.Sprintf("check %q passed", c.Command))
	default:
		last := strings.TrimSpace(c.Output)
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		parts = append(parts, fmt.Sprintf("check %q failed (exit %d): %s", c.Command, c.ExitCode, last))
	}
	if c.Diagnosed {
		parts = append(parts, plural.Count(c.Errors, "error")+", "+plural.Count(c.Warnings, "warning")+" from the language server")
	}
	return strings.Join(parts, "; ")
}

// childLabel names a child by its handle, else its description.
func childLabel(src agent.Source) string {
	if src.Name != "" {
		return src.Name
	}
	return src.Description
}

func childPrefix(src agent.Source) string {
	if !src.IsChild() {
		return ""
	}
	return fmt.Sprintf("[%s] %s: ", src.AgentType, src.Description)
}

// progress writes a progress line on stderr (text mode only).
func (o *headlessOutput) progress(format string, a ...any) {
	if o.format != "text" {
		return
	}
	fmt.Fprintln(o.stderr, excerpt.TermSafe(fmt.Sprintf(format, a...)))
}

func (o *headlessOutput) finish(res agent.Result, runErr error) int {
	code := ExitOK
	var msg string
	switch {
	case runErr != nil && errors.Is(runErr, context.Canceled):
		code, msg = ExitRun, "cancelled"
	case runErr != nil:
		code, msg = ExitRun, runErr.Error()
	case agent.CutOffNote(res.Reason) != "":
		code, msg = ExitRun, agent.CutOffNote(res.Reason)
	case o.planned && res.Reason == agent.StopOK:
		res.Reason = ReasonPlan
	case res.Reason == agent.StopMaxTurns:
		turns := "turns"
		if res.Turns == 1 {
			turns = "turn"
		}
		code, msg = ExitRun, fmt.Sprintf("stopped after %d %s (--max-turns); the answer may be incomplete", res.Turns, turns)
	}
	switch o.format {
	case "text":
		if res.Answer != "" {
			answer := strings.TrimRight(res.Answer, "\n")
			if o.tty {
				// Piped, the answer is passed on exactly; on a screen,
				// escape sequences in it could hide the cursor or clear
				// the screen (a file the model read can carry them).
				answer = excerpt.TermSafe(answer)
			}
			fmt.Fprintln(o.stdout, answer)
		}
	case "json":
		out := map[string]any{
			"answer": res.Answer, "reason": res.Reason, "turns": res.Turns, "usage": res.Usage,
			"tool_calls": nonNil(o.calls), "children": nonNil(o.children), "duration_ms": time.Since(o.start).Milliseconds(),
			"compactions": o.compactions,
		}
		if msg != "" {
			out["error"] = msg
		}
		if cost, ok := o.cost(res.Usage); ok {
			out["cost"] = cost
		}
		enc := json.NewEncoder(o.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
	case "stream-json":
		// The run's Done event carried the reason; a failed or cut-off
		// run ends with one line that says why, for scripts that only
		// read the last line.
		if msg != "" {
			b, _ := json.Marshal(map[string]string{"type": "error", "reason": res.Reason, "message": msg})
			fmt.Fprintf(o.stdout, "%s\n", b)
		}
		if res.Reason == ReasonPlan {
			b, _ := json.Marshal(map[string]string{"type": "plan", "plan": res.Answer})
			fmt.Fprintf(o.stdout, "%s\n", b)
		}
	}
	if msg != "" {
		fmt.Fprintln(o.stderr, "covey:", msg)
	} else if res.Reason == ReasonPlan {
		fmt.Fprintln(o.stderr, "covey: plan ready for approval (the run ends here): "+
			"rerun with --permission-mode default or acceptEdits to carry it out")
	} else if strings.TrimSpace(res.Answer) == "" {
		// An empty stdout and exit 0 would look like covey lost the answer.
		fmt.Fprintln(o.stderr, "covey: the model's answer was empty")
	}
	return code
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// HookLine is one line saying what a hook did: "PreToolUse hook blocked
// bash: reason".
func HookLine(e agent.HookRan) string {
	subject := ""
	if e.Subject != "" {
		subject = " " + e.Subject
	}
	switch {
	case e.Blocked:
		return fmt.Sprintf("%s hook blocked%s: %s", e.Event, subject, e.Message)
	case e.Halted:
		return fmt.Sprintf("%s hook stopped the agent: %s", e.Event, e.Message)
	case e.Error:
		return fmt.Sprintf("%s hook failed: %s", e.Event, e.Message)
	}
	return fmt.Sprintf("%s hook: %s", e.Event, e.Message)
}

// toolCount is "1 tool" or "N tools".
func toolCount(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return strconv.Itoa(n) + " tools"
}
