package ui

import (
	"context"
	"regexp"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/statusline"
	"covey/ui/cells"
	"covey/ui/transcript"
)

// StatusLiner runs the status line of Claude Code's settings (the
// session implements it).
type StatusLiner interface {
	// StatusLines are the status line and the subagent one (nil: none).
	StatusLines() (main, subagent *statusline.Setting)
	// RunStatusLine runs st with in (the session's fields filled in) and
	// returns its first line.
	RunStatusLine(ctx context.Context, st statusline.Setting, in statusline.Input) (string, error)
}

// statusLineEvery is how often the status line may run at most, as in
// Claude Code (300 ms).
const statusLineEvery = 300 * time.Millisecond

// statusLineRetry is how long a failed run first waits before the same
// state runs it again.
const statusLineRetry = 2 * time.Second

// statusLine is the line under the status bar that the user's statusLine
// command prints. It runs when the state it is given changes: one run at
// a time (a change during a run runs it again after), at most every
// statusLineEvery, each bounded by statusline.Timeout.
type statusLine struct {
	run     StatusLiner
	setting *statusline.Setting
	line    string // the last line, cleaned (colours kept)
	running bool
	pending bool             // the state changed during a run
	sent    statusline.Input // the state of the last run started
	want    statusline.Input // the state now
	lastRun time.Time        // when the last run started
	// sub is the subagentStatusLine and children its run per pane, by
	// AgentID (the main line's component only).
	sub      *statusline.Setting
	children map[string]*statusLine
	// agent is the AgentID a pane's line runs for ("" for the main line).
	agent string
	// backoff is the wait before a failed run (a timeout, a project's
	// line not trusted yet) runs again on the same state: doubled at each
	// failure up to a minute, zero after a success.
	backoff time.Duration
	started time.Time // the session's start, for total_duration_ms
}

// statusLineMsg is a run's outcome, or the end of a wait between runs
// (wait); agent is the pane's AgentID ("" for the main line).
type statusLineMsg struct {
	agent string
	line  string
	err   error
	wait  bool
}

// newStatusLine is the status line of run, inactive when it has none.
func newStatusLine(run StatusLiner, now time.Time) statusLine {
	sl := statusLine{run: run, started: now}
	if run != nil {
		sl.setting, sl.sub = run.StatusLines()
	}
	return sl
}

// active reports whether a status line is configured.
func (sl *statusLine) active() bool { return sl.setting != nil }

// height is the rows the line takes: one when configured.
func (sl *statusLine) height() int {
	if sl.active() {
		return 1
	}
	return 0
}

// set records the state now; cmd starts a run when it changed and none
// is running (a run in progress marks it pending instead).
func (sl *statusLine) set(in statusline.Input, now time.Time) tea.Cmd {
	if !sl.active() {
		return nil
	}
	sl.want = in
	if sl.running {
		if !sameState(in, sl.sent) {
			sl.pending = true
		}
		return nil
	}
	if !sl.lastRun.IsZero() && sameState(in, sl.sent) {
		return nil
	}
	if wait := statusLineEvery - now.Sub(sl.lastRun); !sl.lastRun.IsZero() && wait > 0 {
		sl.pending = true
		sl.running = true // the wait holds the one slot
		agent := sl.agent
		return tea.Tick(wait, func(time.Time) tea.Msg { return statusLineMsg{agent: agent, wait: true} })
	}
	return sl.start(now)
}

// start runs the command on sl.want.
func (sl *statusLine) start(now time.Time) tea.Cmd {
	in := sl.want
	in.Cost.TotalDurationMS = now.Sub(sl.started).Milliseconds()
	sl.sent, sl.lastRun, sl.running, sl.pending = sl.want, now, true, false
	run, st, agent := sl.run, *sl.setting, sl.agent
	return func() tea.Msg {
		line, err := run.RunStatusLine(context.Background(), st, in)
		return statusLineMsg{agent: agent, line: line, err: err}
	}
}

// done takes a run's outcome, and runs again when the state changed
// meanwhile. A failed run keeps the last line.
func (sl *statusLine) done(msg statusLineMsg, now time.Time) tea.Cmd {
	sl.running = false
	switch {
	case msg.wait:
	case msg.err == nil:
		sl.line, sl.backoff = keepColours(msg.line), 0
	case !sl.pending:
		// Run again after a while though nothing changed: the one slot
		// is held by the wait.
		sl.backoff = min(max(2*sl.backoff, statusLineRetry), time.Minute)
		sl.running, sl.pending = true, true
		agent := sl.agent
		return tea.Tick(sl.backoff, func(time.Time) tea.Msg { return statusLineMsg{agent: agent, wait: true} })
	}
	if sl.pending || (msg.wait && !sameState(sl.want, sl.sent)) {
		return sl.start(now)
	}
	return nil
}

// view is the line cut to width.
func (sl *statusLine) view(width int) string {
	if sl.line == "" {
		return ""
	}
	return cells.Fit(sl.line, width)
}

// sameState compares two states, the duration aside: it changes every
// moment and alone is no reason to run.
func sameState(a, b statusline.Input) bool {
	a.Cost.TotalDurationMS, b.Cost.TotalDurationMS = 0, 0
	if (a.ContextWindow.UsedPercentage == nil) != (b.ContextWindow.UsedPercentage == nil) {
		return false
	}
	if a.ContextWindow.UsedPercentage != nil && *a.ContextWindow.UsedPercentage != *b.ContextWindow.UsedPercentage {
		return false
	}
	a.ContextWindow.UsedPercentage, b.ContextWindow.UsedPercentage = nil, nil
	a.ContextWindow.RemainingPercentage, b.ContextWindow.RemainingPercentage = nil, nil
	a.ContextWindow.CurrentUsage, b.ContextWindow.CurrentUsage = nil, nil
	if (a.Agent == nil) != (b.Agent == nil) || (a.Agent != nil && *a.Agent != *b.Agent) {
		return false
	}
	return a.Model == b.Model && a.Cost == b.Cost && a.ContextWindow.ContextWindowSize == b.ContextWindow.ContextWindowSize &&
		a.ContextWindow.TotalInputTokens == b.ContextWindow.TotalInputTokens && a.ContextWindow.TotalOutputTokens == b.ContextWindow.TotalOutputTokens &&
		a.Exceeds200K == b.Exceeds200K
}

// sgr matches one SGR sequence (colours, bold, ...): the only escapes a
// status line keeps.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// keepColours cleans a line of the command's output as every outside
// text is cleaned (cells.Clean), its colours aside, and ends it reset.
func keepColours(s string) string {
	var b strings.Builder
	last, coloured := 0, false
	for _, loc := range sgr.FindAllStringIndex(s, -1) {
		b.WriteString(cells.Clean(s[last:loc[0]]))
		b.WriteString(s[loc[0]:loc[1]])
		last, coloured = loc[1], true
	}
	b.WriteString(cells.Clean(s[last:]))
	out := strings.ReplaceAll(b.String(), "\n", " ")
	if coloured {
		out += "\x1b[0m"
	}
	return out
}

// statusInput is the state the status line is told: the main agent's
// model, the session's cost and tokens, the context's fill.
func (m *Model) statusInput() statusline.Input {
	var in statusline.Input
	model := m.status.Model()
	in.Model = statusline.Model{ID: model, DisplayName: model}
	in.Cost.TotalCostUSD = m.sessionCost()
	in.ContextWindow.TotalInputTokens = m.rt.usage.InputTokens
	in.ContextWindow.TotalOutputTokens = m.rt.usage.OutputTokens
	in.ContextWindow.Fill(m.rt.fill.Tokens, m.rt.fill.Window)
	in.Exceeds200K = m.rt.fill.Tokens > 200_000
	return in
}

// sessionCost is what the main agent and every child spent (0 unpriced).
func (m *Model) sessionCost() float64 {
	total := m.rt.mainCost
	for _, c := range m.rt.order {
		if v, ok := c.Cost(); ok {
			total += v
		}
	}
	return total
}

// statusLineCmd runs the status line, and each pane's, when its state
// changed.
func (m *Model) statusLineCmd() tea.Cmd {
	var cmds []tea.Cmd
	if m.sl.active() {
		cmds = append(cmds, m.sl.set(m.statusInput(), m.clock()))
	}
	if m.sl.sub != nil {
		for _, b := range m.rt.order {
			if b.IsShell() {
				continue
			}
			c := m.sl.children[b.AgentID()]
			if c == nil {
				if m.sl.children == nil {
					m.sl.children = map[string]*statusLine{}
				}
				c = &statusLine{run: m.sl.run, setting: m.sl.sub, started: m.clock(), agent: b.AgentID()}
				m.sl.children[b.AgentID()] = c
			}
			cmds = append(cmds, c.set(childStatusInput(b), m.clock()))
		}
	}
	return tea.Batch(cmds...)
}

// childStatusInput is the state a pane's status line is told: the
// child's own model, identity, state, tokens and cost.
func childStatusInput(b *transcript.SubagentBlock) statusline.Input {
	var in statusline.Input
	in.Model = statusline.Model{ID: b.Model(), DisplayName: b.Model()}
	in.Agent = &statusline.Agent{ID: b.AgentID(), Name: b.Name(), Type: b.TypeName(), Description: b.Description(), State: b.StateName()}
	u := b.Usage()
	in.ContextWindow.TotalInputTokens, in.ContextWindow.TotalOutputTokens = u.InputTokens, u.OutputTokens
	if v, ok := b.Cost(); ok {
		in.Cost.TotalCostUSD = v
	}
	return in
}

// statusLineDone takes a run's outcome: the main line's, or a pane's,
// whose header then shows it.
func (m *Model) statusLineDone(msg statusLineMsg) tea.Cmd {
	if msg.agent == "" {
		return m.sl.done(msg, m.clock())
	}
	c := m.sl.children[msg.agent]
	if c == nil {
		return nil
	}
	cmd := c.done(msg, m.clock())
	if b := m.rt.children[msg.agent]; b != nil {
		b.SetStatusLine(c.line)
	}
	return cmd
}
