package transcript

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"covey/agent"
	"covey/tools/tool"
	"covey/ui/cells"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// How many body lines a pane shows, and how much activity it remembers.
const (
	paneCollapsed = 2
	paneExpanded  = 10
	paneMemory    = 200 // activity lines kept; older ones are dropped
	paneBorder    = "│ "
	// paneLineMemory bounds one line of a child's text: a pane shows at
	// most 10 screen lines, and a child streaming a long paragraph must
	// not make every event re-wrap all of it.
	paneLineMemory = 1536
)

// childState is where a child agent is in its life.
type childState uint8

const (
	childRunning childState = iota
	childDone
	childFailed
	childCancelled
	childTimedOut
	childMaxTurns
	childBudget // stopped at its token or cost budget
)

// SubagentBlock is the live pane of one child agent: a header with a state
// glyph, the child's type and description, its tool count, elapsed time and
// tokens, and a body with its latest activity (tool calls, updated in place
// when they finish, and its text), the last 2 lines when collapsed and the
// last 10 when expanded. A finished pane keeps its summary; a failed one
// shows its error. The caller routes the child's events to Apply.
type SubagentBlock struct {
	src     agent.Source
	model   string
	color   string // the agent file's colour for the type, "" for the theme's
	started time.Time
	lastNow time.Time
	state   childState
	waiting bool
	// asking says what the child waits for when it is not an approval:
	// "your answer" (its question), "plan approval".
	asking string
	// ahead is how many requests are shown or queued before the child's
	// own, while its request waits in the approval queue; 0 otherwise.
	ahead   int
	elapsed time.Duration // frozen when the child finishes
	tools   int
	// failed counts its tool calls that failed (an error, a command's
	// non-zero exit): the header says "1 failed", so a child's upbeat
	// report is not all the user sees.
	failed int
	usage  agent.Usage
	crew   paneCrew // background, pause, budget, files: see subagent_crew.go
	// ctxTokens and ctxWindow are the child's own context fill and window.
	ctxTokens, ctxWindow int

	acts     activityRing
	openTool map[string]uint64 // call ID → sequence of its line, until it finishes
	openText bool              // the newest line is text still being written

	expanded bool
	Changes
	body      LineCache // body lines, keyed without the clock
	left      LineCache // the header's styled left part, see header
	leftW     int       // the header's left part in cells, unstyled; 0 until measured
	look      paneLook
	cache     LineCache
	recompute int
	// worktree says where an isolated child works and from which base,
	// and that a forked child started from its parent's conversation; it
	// heads the body for the pane's whole life.
	worktree string
	// shellBytes is what a background shell printed so far.
	shellBytes int64
	// attempt is "attempt 2/3" for a child of a best-of-N task: its
	// header and overview row say which of the group it is.
	attempt string
	// root is an isolated child's worktree; diagErrs the errors the
	// language servers report there (subagent_diag.go).
	root     string
	diagErrs int
	// collide is what the collision radar reported of the pane's child.
	collide collisions

	// statusLine is what the user's subagentStatusLine printed for this
	// child: the header shows it after the glyph, in place of its own.
	statusLine string
}

// NewSubagentBlock returns the pane of a child that just started.
func NewSubagentBlock(ev agent.ChildStarted) *SubagentBlock {
	b := &SubagentBlock{src: ev.Source, model: ev.Model, color: ev.Color, openTool: map[string]uint64{}}
	b.crew.background = ev.Background
	b.crew.maxTokens, b.crew.maxCost = ev.MaxTokens, ev.MaxCost
	if w := ev.Worktree; w != nil {
		b.worktree = fmt.Sprintf("in its own worktree (%s), from %s", w.Branch, w.Base)
		b.root = w.Path
	}
	if ev.Forked {
		b.worktree = strings.TrimSuffix("forked from its parent's conversation; "+b.worktree, "; ")
	}
	if ev.Attempts > 0 {
		b.attempt = fmt.Sprintf("attempt %d/%d", ev.Attempt, ev.Attempts)
		if b.worktree != "" {
			b.worktree = fmt.Sprintf("attempt %d of %d, %s", ev.Attempt, ev.Attempts, b.worktree)
		}
	}
	return b
}

// SetStarted sets when the child started, for its elapsed time. Without it
// the time of the first Lines call is used.
func (b *SubagentBlock) SetStarted(t time.Time) { b.started = t }

// Apply updates the pane with one event of its child: TextDelta,
// ReasoningDelta, ToolStarted, ToolFinished, UsageReported, Retrying,
// ErrorEvent and ChildFinished change it; other events and anything after
// ChildFinished are ignored.
func (b *SubagentBlock) Apply(ev agent.Event) {
	if b.applyCrew(ev) {
		b.Changed()
		return
	}
	if b.state != childRunning {
		return
	}
	switch e := ev.(type) {
	case agent.TextDelta:
		b.appendText(actText, e.Text)
	case agent.ReasoningDelta:
		b.appendText(actReasoning, e.Text)
	case agent.ToolStarted:
		b.tools++
		arg := e.KeyArg
		if arg == "" {
			arg = tool.KeyArg(e.Name, e.Args)
		}
		b.openTool[e.CallID] = b.push(activity{kind: actTool, text: cells.OneLine(e.Name), arg: cells.OneLine(arg), started: b.eventTime()})
	case agent.ToolProgress:
		// A long MCP call shows how far it is on its line; a running
		// command, its latest output under it.
		seq, ok := b.openTool[e.CallID]
		a := b.acts.at(seq)
		if !ok || a == nil {
			return
		}
		if out := e.Progress.Output; len(out) > 0 {
			a.out = a.out[:0]
			for _, l := range out {
				a.out = append(a.out, keepTail(cells.OneLine(l), paneLineMemory))
			}
			break
		}
		a.note = progressText(e.Progress)
	case agent.ToolFinished:
		b.finishTool(e)
		b.crew.files.addEdit(fileChangeOf(e.Result))
	case agent.UsageReported:
		b.usage.Add(e.Usage)
	case agent.Retrying:
		reason := cells.OneLine(e.Reason)
		if reason == "" {
			reason = "request failed"
		}
		b.push(activity{kind: actNote, text: fmt.Sprintf("%s, retrying in %s", reason, WaitText(e.Wait))})
	case agent.ErrorEvent:
		b.push(activity{kind: actError, text: cells.OneLine(e.Message)})
	case agent.Compacted:
		b.push(activity{kind: actNote, text: agent.CompactionNote(e)})
	case agent.ShellOutput:
		// A shell's pane shows its last lines as they are now.
		b.acts = activityRing{}
		b.openText = false
		for _, l := range e.Lines {
			if l = cells.Clean(l); strings.TrimSpace(l) != "" {
				b.push(activity{kind: actText, text: keepTail(l, paneLineMemory)})
			}
		}
		b.shellBytes = e.Bytes
	case agent.ChildFinished:
		if b.IsShell() {
			b.model = cells.OneLine(e.Summary) // "exit 0", "killed": the overview's model column
		}
		b.finish(e)
	default:
		return
	}
	b.Changed()
}

// appendText adds streamed text, one activity line per line of text.
// Blank lines are dropped: the pane's few lines are for content.
func (b *SubagentBlock) appendText(kind activityKind, s string) {
	for i, piece := range strings.Split(s, "\n") {
		if i > 0 {
			b.openText = false
		}
		piece = cells.Clean(piece)
		if last := b.acts.last(); b.openText && last != nil && last.kind == kind {
			last.text = keepTail(last.text+piece, paneLineMemory)
			continue
		}
		if strings.TrimSpace(piece) == "" {
			continue
		}
		b.push(activity{kind: kind, text: keepTail(strings.TrimLeft(piece, " "), paneLineMemory)})
		b.openText = true
	}
}

func (b *SubagentBlock) push(a activity) uint64 {
	b.openText = false
	return b.acts.push(a)
}

// finishTool updates the tool's line in place, or adds one if it has
// already scrolled out of memory.
func (b *SubagentBlock) finishTool(e agent.ToolFinished) {
	st := toolOK
	if tool.Failed(e.Result) {
		st = toolFailed
		b.failed++
	}
	note := cells.OneLine(e.Result.Summary)
	if seq, ok := b.openTool[e.CallID]; ok {
		delete(b.openTool, e.CallID)
		if a := b.acts.at(seq); a != nil {
			a.tool, a.note, a.out = st, note, nil
			return
		}
	}
	// The start has scrolled out of memory: add the finished line anew.
	b.push(activity{kind: actTool, text: cells.OneLine(e.Name), arg: cells.OneLine(e.KeyArg), tool: st, note: note})
}

// finish freezes the pane with the child's outcome.
func (b *SubagentBlock) finish(e agent.ChildFinished) {
	switch e.Reason {
	case agent.StopOK:
		b.state = childDone
	case agent.StopCancelled:
		b.state = childCancelled
	case agent.StopTimeout:
		b.state = childTimedOut
	case agent.StopMaxTurns:
		b.state = childMaxTurns
	case agent.StopBudget:
		b.state = childBudget
	default:
		b.state = childFailed
		if e.Reason == "" && e.Error == "" {
			b.state = childDone
		}
	}
	b.elapsed = e.Elapsed
	if b.elapsed <= 0 {
		b.elapsed = b.runningElapsed(b.eventTime())
	}
	b.endPause(b.eventTime())
	b.crew.paused, b.crew.queued = false, false
	b.tools = max(b.tools, e.ToolCalls)
	if e.Usage.Total() > 0 {
		b.usage = e.Usage // the child's own total is authoritative
	}
	b.waiting, b.ahead = false, 0
	for _, seq := range b.openTool {
		if a := b.acts.at(seq); a != nil {
			a.tool = toolStopped
		}
	}
	clear(b.openTool)
	if b.IsShell() {
		return // its last lines stay; the header says how it ended
	}
	switch b.state {
	case childCancelled:
		b.push(activity{kind: actNote, text: "cancelled"})
	case childTimedOut:
		b.push(activity{kind: actNote, text: "timed out after " + cells.Elapsed(b.elapsed)})
	case childMaxTurns:
		b.push(activity{kind: actNote, text: "stopped at its turn limit"})
	case childBudget:
		b.push(activity{kind: actNote, text: "stopped at its budget"})
	}
	errLine := cells.OneLine(e.Error)
	// A failed child's summary is its report, "Error: " and the error the
	// pane shows on its own line: one line says it.
	// A cancelled child's summary that only says so repeats the note.
	if s := cells.OneLine(e.Summary); strings.TrimSpace(s) != "" && !b.saidLately(s) && (errLine == "" || strings.TrimPrefix(s, "Error: ") != errLine) &&
		(b.state != childCancelled || s != agent.CancelledResult) {
		b.push(activity{kind: actSummary, text: s})
	}
	if errLine != "" && b.state == childFailed && !b.saidError(errLine) {
		b.push(activity{kind: actError, text: errLine})
	}
}

// saidError reports whether the pane's latest lines already show the error
// (the child's ErrorEvent comes before its ChildFinished).
func (b *SubagentBlock) saidError(line string) bool {
	for i := b.acts.len() - 1; i >= 0 && i >= b.acts.len()-3; i-- {
		if a := b.acts.get(i); a != nil && a.kind == actError && a.text == line {
			return true
		}
	}
	return false
}

// saidLately reports whether the child's latest text already holds s, so a
// finished pane does not show its one-line answer twice.
func (b *SubagentBlock) saidLately(s string) bool {
	s = strings.TrimSpace(s)
	for i := b.acts.len() - 1; i >= 0; i-- {
		if a := b.acts.get(i); a != nil && a.kind == actText {
			return strings.Contains(a.text, s)
		}
	}
	return false
}

// SetWaiting marks the child as waiting for the user's approval.
func (b *SubagentBlock) SetWaiting(v bool) { b.SetWaitingFor(v, "") }

// SetWaitingFor marks the child as waiting for the user: for what
// ("your answer" to its question; "" for an approval).
func (b *SubagentBlock) SetWaitingFor(v bool, what string) {
	if !v {
		what = ""
	}
	if (b.waiting != v || b.asking != what) && b.state == childRunning {
		b.waiting, b.asking = v, what
		b.Changed()
	}
}

// SetApprovalQueued marks the child's request as waiting in the approval
// queue with ahead requests before it (0: not queued), so its pane says it
// waits instead of spinning.
func (b *SubagentBlock) SetApprovalQueued(ahead int) {
	if b.state != childRunning {
		ahead = 0
	}
	if b.ahead != ahead {
		b.ahead = ahead
		b.Changed()
	}
}

// ApprovalQueued is how many requests are before the child's own in the
// approval queue; 0 when it has none queued.
func (b *SubagentBlock) ApprovalQueued() int { return b.ahead }

// AgentID is the child's agent ID.
func (b *SubagentBlock) AgentID() string { return b.src.AgentID }

// ParentCallID is the task call that spawned the child.
func (b *SubagentBlock) ParentCallID() string { return b.src.ParentCallID }

// Running reports whether the child has not finished.
func (b *SubagentBlock) Running() bool { return b.state == childRunning }

// Usage is the child's token usage so far.
func (b *SubagentBlock) Usage() agent.Usage { return b.usage }

// Type is the child's agent type.
func (b *SubagentBlock) Type() string { return b.src.AgentType }

// Description is the child's task description.
func (b *SubagentBlock) Description() string {
	if b.attempt != "" {
		return b.src.Description + " · " + b.attempt
	}
	return b.src.Description
}

// TypeName is the type shown in the header; a child always has one, but
// an empty pair of brackets would look like a bug.
func (b *SubagentBlock) TypeName() string {
	if b.src.AgentType == "" {
		return "agent"
	}
	return cells.OneLine(b.src.AgentType)
}

// SetStatusLine sets the line the user's subagentStatusLine printed for
// the child (cleaned, colours kept); "" gives the header its own back.
func (b *SubagentBlock) SetStatusLine(line string) {
	if b.statusLine != line {
		b.statusLine = line
		b.Changed()
	}
}

// Model is the model the child runs on.
func (b *SubagentBlock) Model() string { return b.model }

// FailedCalls is how many of its tool calls failed (an error, or a
// command's non-zero exit).
func (b *SubagentBlock) FailedCalls() int { return b.failed }

// ToolCalls is how many tool calls the child has made.
func (b *SubagentBlock) ToolCalls() int { return b.tools }

// Focusable implements Block.
func (b *SubagentBlock) Focusable() bool { return true }

// Expanded implements Block.
func (b *SubagentBlock) Expanded() bool { return b.expanded }

// SetExpanded implements Block.
func (b *SubagentBlock) SetExpanded(v bool) { b.expanded = v }

// Live implements Block: a running pane has a spinner and a clock; a
// paused one counts its time paused; a queued one stands still.
func (b *SubagentBlock) Live() bool {
	return b.state == childRunning && !b.crew.queued
}

// Working reports whether the child runs: not paused, not queued.
func (b *SubagentBlock) Working() bool { return b.Live() && !b.crew.paused }

// Lines implements Block. The returned slice must not be modified.
func (b *SubagentBlock) Lines(ctx RenderContext) []string {
	if b.started.IsZero() {
		b.started = ctx.Now
	}
	b.lastNow = ctx.Now
	key := CacheKey{Styles: ctx.Styles, Width: ctx.Width, Version: b.version, Expanded: b.expanded, Focused: ctx.Focused}
	if b.Live() {
		key.Tick = b.ClockText(ctx.Now)
		if b.Working() {
			key.Frame = ctx.Frame
		}
	}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	b.recompute++
	width := max(ctx.Width, 1)
	body := b.bodyLines(ctx, width)
	lines := make([]string, 0, len(body)+1)
	lines = append(lines, b.Header(ctx, width))
	lines = append(lines, body...)
	b.cache.Put(key, lines)
	return lines
}

// Header is "glyph [type] description ... N tools · 3.2s · 12.4k tok · ctx 41%",
// the stats right-aligned and the description cut to make room. It runs on
// every tick of a running pane, so the styled left part is cached until the
// content, the width or the stats' width change.
func (b *SubagentBlock) Header(ctx RenderContext, width int) string {
	glyph, glyphLook := b.glyph(ctx)
	glyph = b.look.style(ctx.Styles, glyphLook).Render(glyph)
	if b.statusLine != "" {
		return glyph + " " + cells.Fit(b.statusLine, max(width-2, 0))
	}
	stats := b.Stats(ctx.Now)
	// Right-aligned within a readable width on a wide terminal.
	width = b.headerWidth(ctx, width, utf8.RuneCountInString(stats))
	left := b.cachedLeft(ctx, width, stats)
	if g, _ := ContextGauge(b.ctxTokens, b.ctxWindow); left == "" && g != "" {
		// Narrow: the context gauge gives way first, the other stats stay.
		stats = strings.TrimSuffix(stats, " · "+g)
		left = b.cachedLeft(ctx, width, stats)
	}
	if left == "" {
		// Too narrow for the stats: the state and the clock stay, when
		// they fit.
		stats = b.shortStats(ctx.Now)
		left = b.headerLeft(ctx, width, utf8.RuneCountInString(stats))
	}
	if left == "" { // too narrow even for those: they give way
		return cells.Fit(glyph+" "+b.leftText(ctx), width)
	}
	return glyph + " " + left + b.look.style(ctx.Styles, lookStats).Render(stats)
}

// cachedLeft is headerLeft for stats, cached: the left part depends on
// none of the pane's content but the stats' width (the type and
// description never change).
func (b *SubagentBlock) cachedLeft(ctx RenderContext, width int, stats string) string {
	// Every rune of the stats is one cell wide (digits, letters, "·").
	statsW := utf8.RuneCountInString(stats)
	key := CacheKey{Width: width, Focused: ctx.Focused, Frame: statsW, Styles: ctx.Styles}
	if !b.left.valid || b.left.key != key {
		b.left.Put(key, []string{b.headerLeft(ctx, width, statsW)})
	}
	return b.left.lines[0]
}

// Header widths: on a wide terminal the stats are right-aligned within
// headerReadable columns, so they stay in sight of the pane's name (at 200
// columns they sat some 130 columns from it); a longer name and
// description may push them out to headerWidest.
const (
	headerReadable = 100
	headerWidest   = 120
)

// headerWidth is the width the header's stats are right-aligned in: the
// pane's width up to headerReadable, more when the name and description
// need it, never more than headerWidest or width.
func (b *SubagentBlock) headerWidth(ctx RenderContext, width, statsW int) int {
	if width <= headerReadable {
		return width
	}
	// The name, type and description never change: measured once, on
	// the plain text (this runs on every tick of a running pane).
	if b.leftW == 0 {
		typW := ansi.StringWidth(b.TypeName()) + 2
		if n := cells.OneLine(b.src.Name); n != "" {
			typW += ansi.StringWidth(n) + 1
		}
		if d := b.src.Depth; d > 1 {
			typW += 2*(d-2) + 2
		}
		const glyphW = 2
		b.leftW = glyphW + typW + 1 + ansi.StringWidth(b.headerDescription())
	}
	natural := b.leftW + 2 + statsW
	return min(width, max(headerReadable, min(natural, headerWidest)))
}

// Stats is "N tools · elapsed · tokens" (and the approval wait); a
// shell's is "elapsed · bytes printed · exit code".
func (b *SubagentBlock) Stats(now time.Time) string {
	if b.IsShell() {
		stats := b.ClockText(now) + " · " + ByteText(b.shellBytes)
		if b.state != childRunning && b.model != "" {
			stats += " · " + b.model
		}
		return stats
	}
	tools := strconv.Itoa(b.tools) + " tools"
	if b.tools == 1 {
		tools = "1 tool"
	}
	stats := tools
	if f := b.crew.files.summary(); f != "" {
		stats += " · " + f
	}
	if d := b.diagText(); d != "" {
		stats += " · " + d
	}
	stats += " · " + b.ClockText(now) + " · " + b.tokenText()
	if c := b.costText(); c != "" {
		stats += " · " + c
	}
	// Last, so a narrow header can drop it alone (see header).
	if g, _ := ContextGauge(b.ctxTokens, b.ctxWindow); g != "" {
		stats += " · " + g
	}
	return b.statePrefix() + stats
}

// shortStats is the stats a narrow header keeps: the state and the
// clock.
func (b *SubagentBlock) shortStats(now time.Time) string {
	if b.IsShell() {
		return cells.Elapsed(b.ElapsedAt(now))
	}
	return b.statePrefix() + b.ClockText(now)
}

// statePrefix is what the stats say first: the approval wait, the
// messages queued, the paused child waited on, and the crew state, each
// followed by " · ".
func (b *SubagentBlock) statePrefix() string {
	var p string
	switch {
	case b.waiting && b.asking != "":
		p += "needs " + b.asking + " · "
	case b.waiting:
		p += "awaiting approval · "
	case b.ahead > 0:
		p += "approval queued (" + strconv.Itoa(b.ahead) + " ahead) · "
	}
	if n := len(b.crew.sent); n > 0 && b.state == childRunning {
		p += "✉ " + strconv.Itoa(n) + " queued · "
	}
	if w := b.crew.waitingOn; w != "" && b.state == childRunning && !b.crew.paused {
		p += w + " · "
	}
	if l := b.crew.label(b.state == childRunning); l != "" {
		p += l + " · "
	}
	if c := b.collide.badge(); c != "" && b.state == childRunning {
		p += c + " · "
	}
	if b.failed > 0 {
		p += strconv.Itoa(b.failed) + " failed · "
	}
	return p
}

// leftText is "[type] description", styled and uncut.
func (b *SubagentBlock) leftText(ctx RenderContext) string {
	desc := ctx.Styles.Subagent.Description
	if ctx.Focused {
		desc = ctx.Styles.Blocks.Focused
	}
	return b.typeLabel(ctx) + " " + desc.Render(b.headerDescription())
}

// headerDescription is the description the header shows: none when the
// child's name was made from all of it, which would say it twice.
func (b *SubagentBlock) headerDescription() string {
	if b.src.NameIsDescription && b.src.Name != "" {
		return b.attempt
	}
	if b.attempt != "" {
		return cells.OneLine(b.src.Description) + " · " + b.attempt
	}
	return cells.OneLine(b.src.Description)
}

// headerLeft is "[type] description" cut and padded so that the glyph, it
// and statsW cells of stats fill width exactly; "" when they cannot fit.
func (b *SubagentBlock) headerLeft(ctx RenderContext, width, statsW int) string {
	typ := b.typeLabel(ctx)
	typW := ansi.StringWidth(typ)
	const glyphW = 2 // the glyph and a space
	room := width - glyphW - typW - 1 - statsW - 2
	if room < 8 && (room < 0 || b.headerDescription() != "") {
		return "" // no room for the stats and some of the description
	}
	desc := ctx.Styles.Subagent.Description
	if ctx.Focused {
		desc = ctx.Styles.Blocks.Focused
	}
	d := cells.Fit(b.headerDescription(), room)
	gap := width - glyphW - typW - 1 - ansi.StringWidth(d) - statsW
	return typ + " " + desc.Render(d) + strings.Repeat(" ", max(gap, 1))
}

// typeLabel is "name [type]", or "[type]" for a child without a name; a
// child of a child is marked "↳" (indented further per level), since its
// pane sits among its parent's siblings.
func (b *SubagentBlock) typeLabel(ctx RenderContext) string {
	typ := b.typeStyle(ctx).Render("[" + b.TypeName() + "]")
	if n := cells.OneLine(b.src.Name); n != "" {
		typ = ctx.Styles.Crew.Selected.Render(n) + " " + typ
	}
	if d := b.src.Depth; d > 1 {
		typ = ctx.Styles.Crew.Tree.Render(strings.Repeat("  ", d-2)+"↳") + " " + typ
	}
	return typ
}

// typeStyle is the style of "[type]": the agent file's colour when it
// names one the theme maps, else the theme's.
func (b *SubagentBlock) typeStyle(ctx RenderContext) lipgloss.Style {
	if st, ok := ctx.Styles.Subagent.TypeByColor[b.color]; ok && b.color != "" {
		return st
	}
	return ctx.Styles.Subagent.Type
}

// glyph is the state glyph and its style.
func (b *SubagentBlock) glyph(ctx RenderContext) (string, lookID) {
	switch {
	case b.waiting, b.ahead > 0 && b.state == childRunning:
		return cells.GlyphWaiting, lookWaiting
	case b.state == childDone && b.failed > 0:
		// It finished, but not everything it tried worked: no tick.
		return cells.GlyphPartly, lookMaxTurns
	case b.state == childDone:
		return cells.GlyphOK, lookDone
	case b.state == childFailed:
		return cells.GlyphFailed, lookFailed
	case b.state == childCancelled:
		return cells.GlyphCancelled, lookCancelled
	case b.state == childTimedOut:
		return cells.GlyphTimeout, lookTimedOut
	case b.state == childMaxTurns, b.state == childBudget:
		return cells.GlyphMaxTurns, lookMaxTurns
	case b.crew.paused:
		return cells.GlyphPaused, lookWaiting
	case b.crew.queued:
		return cells.GlyphQueued, lookStats
	}
	return cells.Spinner(ctx.Frame), lookRunning
}

// bodyLines is the last lines of activity under a border. It depends on
// the content and width only, so the clock's ticks reuse it.
func (b *SubagentBlock) bodyLines(ctx RenderContext, width int) []string {
	key := CacheKey{Width: width, Version: b.version, Expanded: b.expanded, Styles: ctx.Styles, Tick: b.toolClocks(ctx.Now)}
	if lines, ok := b.body.Get(key); ok {
		return lines
	}
	limit := paneCollapsed
	if b.expanded {
		limit = paneExpanded
	}
	inner := max(width-ansi.StringWidth(paneBorder), 1)
	look := func(id lookID) cells.Style { return b.look.style(ctx.Styles, id) }
	border := look(lookBorder).Render(paneBorder)
	// Walk back from the newest activity until the pane is full, so a
	// chatty child costs only what is shown.
	var rev []string
	for i := b.acts.len() - 1; i >= 0 && len(rev) < limit; i-- {
		lines := b.acts.get(i).render(look, inner, limit-len(rev), ctx.Now)
		for j := len(lines) - 1; j >= 0; j-- {
			line := border + lines[j] // render kept it within inner
			if width <= len(paneBorder) {
				line = cells.Fit(line, width) // no room even for the border
			}
			rev = append(rev, line)
		}
	}
	out := make([]string, 0, len(rev)+1+len(b.crew.sent))
	if b.worktree != "" {
		out = append(out, cells.Fit(border+look(lookNote).Render(cells.Fit(b.worktree, inner)), width))
	}
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	// Messages the child has not read yet stay in view under its
	// activity, one line each.
	for _, m := range b.crew.sent {
		a := activity{kind: actMessage, text: cells.OneLine(m.text), queued: true}
		out = append(out, cells.Fit(border+cells.Fit(a.render(look, inner, 1, ctx.Now)[0], inner), width))
	}
	b.body.Put(key, out)
	return out
}

// toolClocks is what the running tool calls' clocks show, for the body's
// cache key: "" when none shows one.
func (b *SubagentBlock) toolClocks(now time.Time) string {
	var clocks []string
	for _, seq := range b.openTool {
		if a := b.acts.at(seq); a != nil {
			if c := a.toolClock(now); c != "" {
				clocks = append(clocks, c)
			}
		}
	}
	slices.Sort(clocks)
	return strings.Join(clocks, " ")
}

// keepTail returns the last n bytes of s (cut at a rune boundary, with
// "..." in front; ASCII keeps the text on the fast wrapping path) or s
// itself when it is short enough.
func keepTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return "..." + s[cut:]
}

// WaitText formats a retry wait in whole seconds (or milliseconds).
func WaitText(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", max(d.Milliseconds(), 0))
	}
	return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
}

// IsShell reports whether the pane is a background shell's.
func (b *SubagentBlock) IsShell() bool { return b.src.AgentType == agent.ShellType }
