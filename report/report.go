// Package report builds the crew report of a session from its session
// file: for the session and each child, what it was asked, what it did,
// what it cost and what became of its changes, and a timeline of the crew.
// It reads only the journal (agent/sessionfile), so a finished session is
// reported as well as a live one; a child's transcript is named, never
// inlined, so the report stays small however much a child logged.
package report

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// Bounds that keep a report small: a child that made ten thousand calls
// still gives a few hundred marks and files.
const (
	maxMarks = 300
	maxFiles = 100
	maxText  = 300
)

// Report is one session's crew report.
type Report struct {
	Session Session  `json:"session"`
	Agents  []*Agent `json:"agents"` // the main agent first, then children in start order
	// Timed says the session file carries event times, so the timeline
	// and the spans are real; files from before then have none.
	Timed bool `json:"timed"`
}

// Session is the session as a whole.
type Session struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Model     string    `json:"model"`
	Started   time.Time `json:"started"`
	// Span is from the first to the last timed event.
	Span       Seconds `json:"span_s"`
	UserTurns  int     `json:"user_turns"`
	Subagents  int     `json:"subagents"`
	Totals     Usage   `json:"totals"`
	Cost       float64 `json:"cost,omitempty"`
	Priced     bool    `json:"priced"`
	Transcript string  `json:"transcript"`
}

// Usage is tokens as the report shows them.
type Usage struct {
	In         int `json:"in"`
	Out        int `json:"out"`
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
}

func (u *Usage) add(a agent.Usage) {
	u.In += a.InputTokens
	u.Out += a.OutputTokens
	u.CacheRead += a.CachedTokens
	u.CacheWrite += a.CacheWriteTokens
}

// Seconds is a duration written as seconds in JSON.
type Seconds float64

func secondsOf(d time.Duration) Seconds { return Seconds(float64(d.Milliseconds()) / 1000) }

// Agent is one agent of the crew: the main agent or a child.
type Agent struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"`
	Model    string `json:"model,omitempty"`
	Task     string `json:"task,omitempty"`
	ParentID string `json:"parent_id,omitempty"`
	Depth    int    `json:"depth"`
	State    string `json:"state"`
	Summary  string `json:"summary,omitempty"`
	Error    string `json:"error,omitempty"`

	Turns       int     `json:"turns"`
	ToolCalls   int     `json:"tool_calls"`
	FailedCalls int     `json:"failed_calls,omitempty"`
	Usage       Usage   `json:"usage"`
	Cost        float64 `json:"cost,omitempty"`
	Elapsed     Seconds `json:"elapsed_s"`
	Paused      Seconds `json:"paused_s,omitempty"`
	// Asked counts the approvals and questions put to the user for it;
	// Waited is the time it waited for the answers.
	Asked      int     `json:"asked,omitempty"`
	Waited     Seconds `json:"waited_s,omitempty"`
	Background bool    `json:"background,omitempty"`

	Files      []File   `json:"files,omitempty"`
	MoreFiles  int      `json:"more_files,omitempty"`
	Review     string   `json:"review,omitempty"`
	Collisions []string `json:"collisions,omitempty"`
	Transcript string   `json:"transcript"`
	Spans      []Span   `json:"spans,omitempty"`
	Marks      []Mark   `json:"marks,omitempty"`
	MoreMarks  int      `json:"more_marks,omitempty"`
	worktree   *agent.WorktreeInfo
	open       map[string]time.Time // tool calls started, by call ID
	usage      agent.Usage
	finished   bool
}

// File is one file an agent changed, with its diffstat.
type File struct {
	Path    string `json:"path"`
	Status  string `json:"status,omitempty"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Span is a stretch of an agent's life on the timeline, in seconds from
// the session's first timed event.
type Span struct {
	Kind  string  `json:"kind"` // running, paused, background; approval, question: waiting for the user (a gap)
	Start Seconds `json:"start_s"`
	End   Seconds `json:"end_s"`
}

// Mark is a moment on an agent's timeline: a tool call (failed or not), a
// collision, an error.
type Mark struct {
	At    Seconds `json:"at_s"`
	Kind  string  `json:"kind"` // tool, failed, collision, error
	Label string  `json:"label"`
}

// Options are what the session file does not hold.
type Options struct {
	// Path is the session file, named as the place of every transcript.
	Path string
	// Cost prices a model's usage; nil, or false, means no price.
	Cost func(model string, u agent.Usage) (float64, bool)
}

// Build makes the report of a loaded session.
func Build(l *sessionfile.Loaded, o Options) *Report {
	b := &builder{r: &Report{Session: Session{ID: l.Header.ID, Workspace: l.Header.Workspace, Model: l.Model,
		Started: l.Header.Created, Transcript: o.Path}}, byID: map[string]*Agent{}, opts: o}
	main := b.agentOf(agent.Source{AgentID: agent.MainAgentID})
	main.Name, main.Model, main.State = "main", l.Model, "done"
	// The user's prompts, as the TUI shows them on resume: not the
	// messages that delivered background children's outcomes.
	for _, e := range l.Events() {
		if _, ok := e.(agent.UserMessage); ok {
			b.r.Session.UserTurns++
		}
	}
	for _, rec := range l.Replay {
		if rec.Event != nil {
			b.event(rec.Event, rec.At)
		}
	}
	b.finish()
	return b.r
}

type builder struct {
	r           *Report
	byID        map[string]*Agent
	opts        Options
	first, last time.Time
	// state is each child's current stretch: its kind and start.
	state map[string]stretch
	// asks are the questions waiting for an answer, by the journal's ID:
	// the stretch to go back to, and when it was asked.
	asks map[int64]ask
}

type ask struct {
	resume string
	at     time.Time
}

type stretch struct {
	kind  string
	start time.Time
}

func (b *builder) agentOf(src agent.Source) *Agent {
	if a, ok := b.byID[src.AgentID]; ok {
		return a
	}
	a := &Agent{ID: src.AgentID, Name: src.Name, Type: src.AgentType, Task: clip(src.Description), ParentID: src.ParentID,
		Depth: src.Depth, State: "running", open: map[string]time.Time{}}
	if src.AgentID == agent.MainAgentID {
		a.Depth = 0
	}
	a.Transcript = b.opts.Path + "#" + src.AgentID
	b.byID[src.AgentID] = a
	b.r.Agents = append(b.r.Agents, a)
	return a
}

// at is t in seconds from the first timed event.
func (b *builder) at(t time.Time) Seconds {
	if t.IsZero() || b.first.IsZero() {
		return 0
	}
	return secondsOf(t.Sub(b.first))
}

func (b *builder) event(e agent.Event, at time.Time) {
	if !at.IsZero() {
		b.r.Timed = true
		if b.first.IsZero() {
			b.first = at
		}
		b.last = at
	}
	src := e.From()
	if src.AgentID == "" || src.AgentType == agent.ShellType {
		return
	}
	a := b.agentOf(src)
	switch e := e.(type) {
	case agent.ChildStarted:
		a.Name, a.Type, a.Model, a.Task, a.Depth = e.Name, e.AgentType, e.Model, clip(e.Description), e.Depth
		a.Background, a.worktree, a.State, a.finished = e.Background, e.Worktree, "running", false
		b.setStretch(a, "running", at)
	case agent.ChildState:
		a.Background = a.Background || e.Background
		switch {
		case e.Paused || e.State == agent.StatePaused:
			b.setStretch(a, "paused", at)
		case e.State == agent.StateRunning && e.Background:
			b.setStretch(a, "background", at)
		case e.State == agent.StateRunning:
			b.setStretch(a, "running", at)
		}
	case agent.ChildFinished:
		a.State, a.Error, a.Summary = stateOf(e.Reason), clip(e.Error), clip(e.Summary)
		a.Elapsed, a.finished = secondsOf(e.Elapsed), true
		a.usage = e.Usage
		b.setStretch(a, "", at)
	case agent.ToolStarted:
		a.ToolCalls++
		a.open[e.CallID] = at
	case agent.ToolFinished:
		kind := "tool"
		if e.Result.IsError {
			a.FailedCalls++
			kind = "failed"
		}
		start := a.open[e.CallID]
		delete(a.open, e.CallID)
		if start.IsZero() {
			start = at
		}
		b.mark(a, start, kind, e.Name+" "+e.KeyArg)
		if fc, ok := e.Result.Display.(*tool.FileChange); ok && fc != nil && !e.Result.IsError {
			status := "modified"
			if fc.Created {
				status = "added"
			}
			a.addFile(File{Path: fc.Path, Status: status, Added: fc.Added, Removed: fc.Removed})
		}
	case agent.ChildFiles:
		for _, f := range e.Files {
			a.addFile(File{Path: f.Path, Status: f.Status, Added: f.Added, Removed: f.Removed})
		}
	case agent.TurnFinished:
		a.Turns++
	case agent.UsageReported:
		if !a.finished {
			a.usage.Add(e.Usage)
		}
	case agent.WorktreeResult:
		a.Review = reviewOf(e)
	case agent.Collision:
		c := clip(e.Action + " " + e.Path + " with " + e.WithName)
		if len(a.Collisions) < maxFiles {
			a.Collisions = append(a.Collisions, c)
		}
		b.mark(a, at, "collision", c)
	case agent.ErrorEvent:
		b.mark(a, at, "error", e.Message)
	case agent.ApprovalAsked:
		b.asked(a, e, at)
	case agent.ApprovalAnswered:
		b.answered(a, e, at)
	}
}

// asked starts a gap in the agent's timeline: it waits for the user.
func (b *builder) asked(a *Agent, e agent.ApprovalAsked, at time.Time) {
	a.Asked++
	if b.asks == nil {
		b.asks = map[int64]ask{}
	}
	kind := "approval"
	if e.Question {
		kind = "question"
	}
	resume := "running"
	if cur, ok := b.state[a.ID]; ok && cur.kind != "" {
		resume = cur.kind
	}
	b.asks[e.ID] = ask{resume: resume, at: at}
	if a.ID == agent.MainAgentID {
		return // the main agent's spans are made at the end, around its gaps
	}
	b.setStretch(a, kind, at)
}

// answered ends the gap its question started.
func (b *builder) answered(a *Agent, e agent.ApprovalAnswered, at time.Time) {
	q, ok := b.asks[e.ID]
	if !ok {
		return
	}
	delete(b.asks, e.ID)
	if !q.at.IsZero() && !at.IsZero() {
		a.Waited += secondsOf(at.Sub(q.at))
	}
	if a.ID == agent.MainAgentID {
		kind := "approval"
		if e.Tool == toolname.AskUser || e.Tool == toolname.ExitPlanMode {
			kind = "question"
		}
		if !q.at.IsZero() && !at.IsZero() {
			a.Spans = append(a.Spans, Span{Kind: kind, Start: b.at(q.at), End: b.at(at)})
		}
		return
	}
	if cur, ok := b.state[a.ID]; ok && (cur.kind == "approval" || cur.kind == "question") {
		b.setStretch(a, q.resume, at)
	}
}

// setStretch ends an agent's current stretch at at and starts one of kind
// ("" starts none).
func (b *builder) setStretch(a *Agent, kind string, at time.Time) {
	if b.state == nil {
		b.state = map[string]stretch{}
	}
	if at.IsZero() {
		return
	}
	cur, ok := b.state[a.ID]
	if ok && cur.kind == kind {
		return
	}
	if ok && cur.kind != "" {
		a.Spans = append(a.Spans, Span{Kind: cur.kind, Start: b.at(cur.start), End: b.at(at)})
		if cur.kind == "paused" {
			a.Paused += secondsOf(at.Sub(cur.start))
		}
	}
	b.state[a.ID] = stretch{kind: kind, start: at}
}

func (b *builder) mark(a *Agent, at time.Time, kind, label string) {
	if at.IsZero() {
		return
	}
	if len(a.Marks) >= maxMarks {
		a.MoreMarks++
		return
	}
	a.Marks = append(a.Marks, Mark{At: b.at(at), Kind: kind, Label: clip(label)})
}

func (a *Agent) addFile(f File) {
	for i := range a.Files {
		if a.Files[i].Path == f.Path {
			a.Files[i].Added += f.Added
			a.Files[i].Removed += f.Removed
			return
		}
	}
	if len(a.Files) >= maxFiles {
		a.MoreFiles++
		return
	}
	a.Files = append(a.Files, f)
}

// finish closes the open stretches at the last event, fills the usage and
// costs, and orders the agents: the main agent, then each child under its
// parent in start order.
func (b *builder) finish() {
	s := &b.r.Session
	s.Span = b.at(b.last)
	for _, a := range b.r.Agents {
		if cur, ok := b.state[a.ID]; ok && cur.kind != "" {
			b.setStretch(a, "", b.last)
		}
		a.Usage.add(a.usage)
		s.Totals.add(a.usage)
		if b.opts.Cost != nil {
			if c, ok := b.opts.Cost(cmp.Or(a.Model, s.Model), a.usage); ok {
				a.Cost, s.Cost, s.Priced = c, s.Cost+c, true
			}
		}
		if a.ID != agent.MainAgentID {
			s.Subagents++
		} else if b.r.Timed {
			a.Spans = aroundGaps(a.Spans, s.Span)
			a.Elapsed = s.Span
		}
		slices.SortFunc(a.Files, func(x, y File) int { return cmp.Compare(x.Path, y.Path) })
	}
	b.r.Agents = treeOrder(b.r.Agents)
}

// aroundGaps is the main agent's timeline: running from the first event
// to the last but in its gaps (the waits for the user, in order).
func aroundGaps(gaps []Span, end Seconds) []Span {
	out := make([]Span, 0, 2*len(gaps)+1)
	from := Seconds(0)
	for _, g := range gaps {
		if g.Start > from {
			out = append(out, Span{Kind: "running", Start: from, End: g.Start})
		}
		out = append(out, g)
		from = max(from, g.End)
	}
	if end > from || len(out) == 0 {
		out = append(out, Span{Kind: "running", Start: from, End: end})
	}
	return out
}

// treeOrder puts each child right after its parent (and its parent's
// earlier children), keeping start order among siblings.
func treeOrder(list []*Agent) []*Agent {
	children := map[string][]*Agent{}
	var roots []*Agent
	for _, a := range list {
		if a.ID == agent.MainAgentID || a.ParentID == "" {
			roots = append(roots, a)
			continue
		}
		children[a.ParentID] = append(children[a.ParentID], a)
	}
	out := make([]*Agent, 0, len(list))
	seen := map[string]bool{}
	var walk func(a *Agent)
	walk = func(a *Agent) {
		if seen[a.ID] {
			return
		}
		seen[a.ID] = true
		out = append(out, a)
		for _, c := range children[a.ID] {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	for _, a := range list { // a child whose parent never showed
		walk(a)
	}
	return out
}

// stateOf is a stop reason in the words the panes use.
func stateOf(reason string) string {
	switch reason {
	case agent.StopOK:
		return "done"
	case agent.StopCancelled:
		return "cancelled"
	case agent.StopTimeout, agent.StopMaxTurns, agent.StopBudget, agent.StopLength, agent.StopContentFilter:
		return "cut short"
	case "":
		return "running"
	}
	return "failed"
}

// reviewOf says what became of an isolated child's changes.
func reviewOf(e agent.WorktreeResult) string {
	switch e.Status {
	case agent.WorktreeApplied:
		if len(e.Skipped) > 0 {
			return "applied, trimmed by hunk or file (" + itoa(len(e.Skipped)) + " skipped)"
		}
		return "applied"
	case agent.WorktreeDiscarded:
		return "rejected"
	case agent.WorktreeKept:
		return "kept on branch " + e.Branch
	case agent.WorktreeConflict:
		return "conflict: kept on branch " + e.Branch
	case agent.WorktreeUnchanged:
		return "no changes"
	}
	return e.Status
}

func itoa(n int) string { return strconv.Itoa(n) }

func clip(s string) string {
	r := []rune(s)
	if len(r) <= maxText {
		return s
	}
	return string(r[:maxText-1]) + "…"
}
