package transcript

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/ui/cells"
	"covey/ui/diffview"

	"covey/agent"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// How much of a tool's output a block shows.
const (
	outputPreview  = 3  // lines when collapsed
	outputExpanded = 40 // lines when expanded
	// outputByUser bounds the lines a command the user typed ("!cmd")
	// keeps: it shows all of its output, expanded from the start.
	outputByUser    = 5000
	diffPreview     = 20 // diff lines when collapsed
	taskToolName    = toolname.Task
	outputIndent    = "    "
	outputFirstMark = "  ⎿ "
)

// ToolBlock shows one tool call of the main agent: a header with an icon,
// the tool's name, its key argument, its state and duration, and below it a
// short preview of the output that expands. Edits show a coloured diff and
// todo_write the task list. A task call is only a header: its children are
// SubagentBlocks of their own, placed after it.
type ToolBlock struct {
	start    agent.ToolStarted
	look     paneLook // the header's styles as escape codes
	keyArg   string
	started  time.Time
	finished bool
	end      agent.ToolFinished

	// Parsed once at Finish, so drawing never parses.
	change   *tool.FileChange
	diff     *diffview.View
	todos    []tool.Todo
	hasTodos bool
	output   []string // the first outputExpanded lines of the output
	more     int      // lines of output beyond those
	// progress is the latest progress report of the running call (an MCP
	// server's notification); hasProgress once one came.
	progress    tool.Progress
	hasProgress bool

	expanded bool
	Changes
	cache     LineCache
	recompute int
}

// NewToolBlock returns the block of a tool call that just started.
func NewToolBlock(ev agent.ToolStarted) *ToolBlock {
	b := &ToolBlock{start: ev, keyArg: ev.KeyArg, expanded: ev.ByUser}
	if b.keyArg == "" {
		b.keyArg = tool.KeyArg(ev.Name, ev.Args)
	}
	return b
}

// SetStarted sets when the call started, for its running time. Without it
// the time of the first Lines call is used.
func (b *ToolBlock) SetStarted(t time.Time) { b.started = t }

// SetProgress shows a running call's latest progress report; reports after
// the call finished are ignored.
func (b *ToolBlock) SetProgress(p tool.Progress) {
	if b.finished {
		return
	}
	b.progress, b.hasProgress = p, true
	b.Changed()
}

// progressText is "2/3 · indexing files" or "40% · …" or the message.
func progressText(p tool.Progress) string {
	var count string
	switch {
	case p.Total > 0 && p.Total == float64(int64(p.Total)) && p.Progress == float64(int64(p.Progress)):
		count = fmt.Sprintf("%d/%d", int64(p.Progress), int64(p.Total))
	case p.Total > 0:
		count = fmt.Sprintf("%.0f%%", 100*p.Progress/p.Total)
	case p.Progress > 0:
		count = strconv.FormatFloat(p.Progress, 'f', -1, 64)
	}
	msg := cells.OneLine(p.Message)
	switch {
	case count == "":
		return msg
	case msg == "":
		return count
	}
	return count + " · " + msg
}

// Finish records the call's outcome and prepares what the block shows.
// Only the first call counts.
func (b *ToolBlock) Finish(ev agent.ToolFinished) {
	if b.finished {
		return
	}
	b.finished, b.end = true, ev
	if b.keyArg == "" {
		b.keyArg = ev.KeyArg
	}
	switch d := ev.Result.Display.(type) {
	case *tool.FileChange:
		b.change = d
	case tool.FileChange:
		b.change = &d
	case []tool.Todo:
		b.todos, b.hasTodos = d, true
	}
	if b.change != nil && !ev.Result.IsError {
		b.diff = diffview.New(b.change.Diff)
	}
	text := ev.Result.Content
	if strings.TrimSpace(text) == "" {
		text = ev.Result.Summary
	}
	keep := outputExpanded
	if b.start.ByUser {
		keep = outputByUser
	}
	b.output, b.more = headLines(strings.TrimRight(text, "\n"), keep)
	b.Changed()
}

// headLines returns the first n lines of s and how many lines follow them,
// without splitting all of a large output.
func headLines(s string, n int) ([]string, int) {
	if s == "" {
		return nil, 0
	}
	var out []string
	for len(out) < n {
		line, rest, found := strings.Cut(s, "\n")
		out = append(out, cells.Clean(line))
		if !found {
			return out, 0
		}
		s = rest
	}
	return out, strings.Count(s, "\n") + 1
}

// CallID is the tool call's ID.
func (b *ToolBlock) CallID() string { return b.start.CallID }

// Name is the tool's name.
func (b *ToolBlock) Name() string { return b.start.Name }

// Running reports whether the call has not finished yet.
func (b *ToolBlock) Running() bool { return !b.finished }

// Lines implements Block. The returned slice must not be modified.
func (b *ToolBlock) Lines(ctx RenderContext) []string {
	if b.started.IsZero() {
		b.started = ctx.Now
	}
	key := CacheKey{Styles: ctx.Styles, Width: ctx.Width, Version: b.version, Expanded: b.expanded, Focused: ctx.Focused}
	if !b.finished {
		key.Frame, key.Tick = ctx.Frame, b.runningFor(ctx.Now)
	}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	b.recompute++
	width := max(ctx.Width, 1)
	lines := []string{b.header(ctx, width)}
	if b.finished {
		lines = append(lines, b.body(ctx, width)...)
	} else if out := b.progress.Output; b.hasProgress && len(out) > 0 {
		// A running command's latest lines, as its output will show.
		inner := max(width-len(outputFirstMark), 1)
		for i, l := range out[max(len(out)-outputPreview, 0):] {
			mark := outputIndent
			if i == 0 {
				mark = outputFirstMark
			}
			lines = append(lines, cells.Fit(ctx.Styles.Tool.Arg.Render(mark)+ctx.Styles.Tool.Output.Render(cells.Fit(cells.OneLine(l), inner)), width))
		}
	} else if b.hasProgress {
		if text := progressText(b.progress); text != "" {
			inner := max(width-len(outputFirstMark), 1)
			lines = append(lines, cells.Fit(ctx.Styles.Tool.Arg.Render(outputFirstMark)+ctx.Styles.Tool.Output.Render(cells.Fit(text, inner)), width))
		}
	}
	b.cache.Put(key, lines)
	return lines
}

// runningFor is the running time as shown, none in the first second. It
// is written as a subagent's is ("6.3s"): cut to whole seconds it read
// "6.0s" beside its own children's "6.3s".
func (b *ToolBlock) runningFor(now time.Time) string {
	d := now.Sub(b.started)
	if d < time.Second {
		return ""
	}
	return cells.Elapsed(d)
}

// header is "⏺ name  key-arg  state", the argument cut to fit.
func (b *ToolBlock) header(ctx RenderContext, width int) string {
	// A running call redraws its header on every spinner frame, so the
	// header is styled with cached escape codes (lipgloss converts each
	// colour anew on every Render, costly in a 256-colour terminal).
	st := ctx.Styles
	look := func(id lookID) cells.Style { return b.look.style(st, id) }
	icon, state := look(lookToolRunning).Render(cells.GlyphTool), look(lookToolRunning).Render(cells.Spinner(ctx.Frame))
	if t := b.runningFor(ctx.Now); !b.finished && t != "" {
		state += " " + look(lookToolDuration).Render(t)
	}
	if b.finished {
		iconStyle, s := b.outcome(ctx)
		icon, state = iconStyle.Render(cells.GlyphTool), s
	}
	name := lookToolName
	if ctx.Focused {
		name = lookFocused
	}
	left := icon + " " + look(name).Render(cells.OneLine(b.start.Name))
	if b.change != nil {
		state = look(lookDiffAdded).Render("+"+strconv.Itoa(b.change.Added)) + " " +
			look(lookDiffRemoved).Render("-"+strconv.Itoa(b.change.Removed)) + "  " + state
	}
	room := width - ansi.StringWidth(left) - ansi.StringWidth(state) - 4
	arg := cells.OneLine(b.keyArg)
	if b.change != nil && b.change.Path != "" {
		arg = b.change.Path
	}
	if arg != "" && room >= 3 {
		left += "  " + look(lookToolArg).Render(cells.Fit(arg, room))
	}
	return cells.Fit(left+"  "+state, width)
}

// outcome is the icon style and the state text of a finished call.
func (b *ToolBlock) outcome(ctx RenderContext) (lipgloss.Style, string) {
	st := ctx.Styles
	res := b.end.Result
	style, glyph := st.Tool.OK, cells.GlyphOK
	switch {
	case tool.Failed(res):
		// A command's non-zero exit gets no tick: "✗ exit 1".
		style, glyph = st.Tool.Error, cells.GlyphFailed
	case b.start.Name == taskToolName && strings.Contains(res.Summary, "failed call"):
		// Its children finished, but calls of theirs failed.
		style, glyph = st.Blocks.MaxTurns, cells.GlyphPartly
	}
	state := style.Render(glyph)
	summary := cells.OneLine(res.Summary)
	if b.hasTodos {
		done, total := todoCounts(b.todos)
		summary = fmt.Sprintf("%d/%d done", done, total)
	}
	// The body already shows an error and a diff its counts; a task's
	// children show how they ended, but not that calls of theirs failed.
	if summary != "" && (b.start.Name != taskToolName || strings.Contains(summary, "failed call")) && !res.IsError && b.change == nil {
		state += " " + st.Tool.Output.Render(cells.Fit(summary, 40))
	}
	return style, state + " " + st.Tool.Duration.Render("· "+cells.Elapsed(b.end.Duration))
}

// body is the diff, the task list or the output preview.
func (b *ToolBlock) body(ctx RenderContext, width int) []string {
	st := ctx.Styles
	switch {
	case b.start.Name == taskToolName && !b.end.Result.IsError:
		return nil
	case b.diff != nil:
		limit := diffPreview
		if b.expanded {
			limit = 0
		}
		return indentLines(b.diff.Render(max(width-2, 1), limit, st), "  ", width)
	case b.hasTodos && !b.end.Result.IsError:
		return indentLines(renderTodos(b.todos, max(width-2, 1), st), "  ", width)
	}
	style := st.Tool.Output
	if b.end.Result.IsError {
		style = st.Tool.Error
	}
	shown := b.previewLen()
	if b.expanded {
		shown = len(b.output)
	}
	lines := make([]string, 0, shown+1)
	inner := max(width-len(outputIndent), 1)
	for i, l := range b.output[:shown] {
		mark := outputIndent
		if i == 0 {
			mark = outputFirstMark
		}
		if strings.TrimSpace(l) == "" {
			mark, l = strings.TrimRight(mark, " "), ""
		}
		lines = append(lines, cells.Fit(st.Tool.Arg.Render(mark)+style.Render(cells.Fit(l, inner)), width))
	}
	if hidden := len(b.output) - shown + b.more; hidden > 0 {
		lines = append(lines, cells.Fit(outputIndent+st.Tool.Output.Render("… "+CountNoun(hidden, "more line", "more lines")), width))
	}
	return lines
}

// expandable reports whether the expanded form shows more.
func (b *ToolBlock) expandable() bool {
	switch {
	case !b.finished:
		return false
	case b.diff != nil:
		return b.diff.Len() > diffPreview
	case b.hasTodos || b.start.Name == taskToolName:
		return false
	}
	return len(b.output) > b.previewLen()
}

// previewLen is how many output lines the collapsed call shows: the
// preview, or every line when only one more would be left, since its "…
// 1 more line" note would take the row the line itself needs.
func (b *ToolBlock) previewLen() int {
	if len(b.output) == outputPreview+1 && b.more == 0 {
		return len(b.output)
	}
	return min(len(b.output), outputPreview)
}

// Focusable implements Block: a call can take the focus when expanding it
// would show more.
func (b *ToolBlock) Focusable() bool { return b.expandable() }

// Expanded implements Block.
func (b *ToolBlock) Expanded() bool { return b.expanded }

// SetExpanded implements Block.
func (b *ToolBlock) SetExpanded(v bool) {
	if b.expanded != v {
		b.expanded = v
		b.Changed()
	}
}

// KeyArg is the call's main argument (a path, a command), as shown.
func (b *ToolBlock) KeyArg() string { return b.keyArg }

// Live implements Block: a running call shows a spinner and its time.
func (b *ToolBlock) Live() bool { return !b.finished }

// indentLines puts indent before each line, keeping it within width.
func indentLines(lines []string, indent string, width int) []string {
	for i, l := range lines {
		lines[i] = cells.Fit(indent+l, width)
	}
	return lines
}
