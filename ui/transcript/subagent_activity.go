package transcript

import (
	"time"

	"covey/theme"
	"covey/ui/cells"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// activityKind is what one line of a child's activity is.
type activityKind uint8

const (
	actText activityKind = iota
	actReasoning
	actTool
	actNote    // retries and stop reasons
	actError   // the child's error
	actSummary // the child's final summary
	actMessage // a message the user or the parent sent the child
)

// toolState is the state of a child's tool call.
type toolState uint8

const (
	toolRunning toolState = iota
	toolOK
	toolFailed
	toolStopped // the child ended before the call finished
)

// activity is one logical line of a child's activity. Text lines may wrap
// to several screen lines; tool lines are cut to one.
type activity struct {
	kind activityKind
	text string // the text, or the tool's name
	arg  string // the tool's key argument
	tool toolState
	note string // the tool's result summary, or how a message fared
	// queued marks a message sent to the child that it has not read yet.
	queued bool
	// started is when a tool call started; out is the last lines a
	// running command printed (its progress reports).
	started time.Time
	out     []string
}

// toolClock is how long a running tool call has run, as its line shows
// it: "" in its first second, as the main agent's tool blocks.
func (a *activity) toolClock(now time.Time) string {
	if a.kind != actTool || a.tool != toolRunning || a.started.IsZero() || now.Sub(a.started) < time.Second {
		return ""
	}
	return cells.Elapsed(now.Sub(a.started))
}

// render draws the last need screen lines of the activity at width cells;
// now is the time a running tool's clock shows.
func (a *activity) render(look func(lookID) cells.Style, width, need int, now time.Time) []string {
	switch a.kind {
	case actTool:
		return a.renderTool(look, width, need, now)
	case actReasoning:
		return styleLast(cells.Wrap(a.text, width), need, look(lookReasoning))
	case actNote:
		return styleLast(cells.Wrap(a.text, width), need, look(lookNote))
	case actError:
		return styleLast(cells.Wrap(a.text, width), need, look(lookError))
	case actSummary:
		return styleLast(cells.Wrap(a.text, width), need, look(lookSummary))
	case actMessage:
		return styleLast(cells.Wrap(messageText(a), width), need, look(lookMessage))
	}
	return styleLast(cells.Wrap(a.text, width), need, look(lookBody))
}

// styleLast styles and returns the last need lines; a pane shows only a
// few lines of a long paragraph.
func styleLast(lines []string, need int, q cells.Style) []string {
	if len(lines) > need {
		lines = lines[len(lines)-need:]
	}
	for i, l := range lines {
		lines[i] = q.Render(l)
	}
	return lines
}

// activityRing keeps the newest paneMemory activity lines. Lines are
// numbered by a sequence that keeps counting as old ones drop out, so a
// tool's line can be found again when it finishes.
type activityRing struct {
	buf  []activity
	next uint64 // sequence number of the next line pushed
}

// push adds a line, dropping the oldest when full, and returns its number.
func (r *activityRing) push(a activity) uint64 {
	if len(r.buf) < paneMemory {
		r.buf = append(r.buf, a)
	} else {
		r.buf[r.next%paneMemory] = a
	}
	r.next++
	return r.next - 1
}

// len is the number of lines held.
func (r *activityRing) len() int { return len(r.buf) }

// first is the sequence number of the oldest line held.
func (r *activityRing) first() uint64 { return r.next - uint64(len(r.buf)) }

// at returns the line with sequence number seq, or nil once it is gone.
func (r *activityRing) at(seq uint64) *activity {
	if seq < r.first() || seq >= r.next {
		return nil
	}
	return &r.buf[seq%paneMemory]
}

// get returns the i-th line held, oldest first.
func (r *activityRing) get(i int) *activity { return r.at(r.first() + uint64(i)) }

// last returns the newest line, or nil.
func (r *activityRing) last() *activity {
	if r.next == 0 {
		return nil
	}
	return r.at(r.next - 1)
}

// lookID names a style a pane uses.
type lookID uint8

const (
	lookRunning lookID = iota
	lookDone
	lookFailed
	lookCancelled
	lookTimedOut
	lookMaxTurns
	lookWaiting
	lookStats
	lookBorder
	lookBody
	lookReasoning
	lookNote
	lookError
	lookSummary
	lookToolRunning
	lookToolOK
	lookToolError
	lookToolName
	lookToolArg
	lookToolOutput
	lookAnswer
	lookMessage
	lookToolDuration
	lookFocused
	lookDiffAdded
	lookDiffRemoved
	lookCount
)

// paneLook holds a block's quick styles, each made on first use from the
// theme's styles (and remade if the UI switches to other styles).
type paneLook struct {
	src   *theme.Styles
	built [lookCount]bool
	q     [lookCount]cells.Style
}

func (l *paneLook) style(st *theme.Styles, id lookID) cells.Style {
	if l.src != st {
		*l = paneLook{src: st}
	}
	if !l.built[id] {
		l.q[id], l.built[id] = cells.NewStyle(themeStyle(st, id)), true
	}
	return l.q[id]
}

func themeStyle(st *theme.Styles, id lookID) lipgloss.Style {
	switch id {
	case lookRunning:
		return st.Subagent.Running
	case lookDone:
		return st.Subagent.Done
	case lookFailed:
		return st.Subagent.Failed
	case lookCancelled:
		return st.Subagent.Cancelled
	case lookTimedOut:
		return st.Subagent.TimedOut
	case lookMaxTurns:
		return st.Blocks.MaxTurns
	case lookWaiting:
		return st.Blocks.Waiting
	case lookStats:
		return st.Subagent.Stats
	case lookBorder:
		return st.Subagent.Border
	case lookReasoning:
		return st.Assistant.Reasoning
	case lookNote:
		return st.Blocks.Note
	case lookError:
		return st.App.Error
	case lookSummary:
		return st.Blocks.Summary
	case lookToolRunning:
		return st.Tool.Running
	case lookToolOK:
		return st.Tool.OK
	case lookToolError:
		return st.Tool.Error
	case lookToolName:
		return st.Tool.Name
	case lookToolArg:
		return st.Tool.Arg
	case lookToolOutput:
		return st.Tool.Output
	case lookAnswer:
		return st.Assistant.Text
	case lookMessage:
		return st.User.Text
	case lookToolDuration:
		return st.Tool.Duration
	case lookFocused:
		return st.Blocks.Focused
	case lookDiffAdded:
		return st.Diff.Added
	case lookDiffRemoved:
		return st.Diff.Removed
	}
	return st.Subagent.Body
}

// messageText is a message's line: queued until the child read it.
func messageText(a *activity) string {
	switch {
	case a.queued:
		return "✉ queued: " + a.text
	case a.note != "":
		return "✉ " + a.note + ": " + a.text
	}
	return "✉ read: " + a.text
}

// renderTool is a tool call's line: "→ bash  command · 2.3s", the
// argument cut so that the running time or the result stays in sight, and
// under a running command its latest output when need leaves room.
func (a *activity) renderTool(look func(lookID) cells.Style, width, need int, now time.Time) []string {
	glyph, style := cells.GlyphArrow, lookToolRunning
	switch a.tool {
	case toolOK:
		glyph, style = cells.GlyphOK, lookToolOK
	case toolFailed:
		glyph, style = cells.GlyphFailed, lookToolError
	case toolStopped:
		glyph, style = cells.GlyphCancelled, lookCancelled
	}
	line := look(style).Render(glyph) + " " + look(lookToolName).Render(a.text)
	var tail string
	if a.note != "" {
		tail = look(lookToolOutput).Render(" · " + a.note)
	}
	if c := a.toolClock(now); c != "" {
		tail += look(lookToolDuration).Render(" · " + c)
	}
	if a.arg != "" {
		// The clock is short: the argument gives way to it.
		room := width - ansi.StringWidth(line) - 2 - ansi.StringWidth(tail)
		if a.note != "" || room < 8 {
			room = width - ansi.StringWidth(line) - 2
		}
		line += "  " + look(lookToolArg).Render(cells.Fit(a.arg, max(room, 1)))
	}
	lines := []string{cells.Fit(line+tail, width)}
	if a.tool != toolRunning {
		return lines
	}
	out := a.out[max(len(a.out)-(need-1), 0):]
	for i, l := range out {
		mark := "    "
		if i == 0 {
			mark = "  ⎿ "
		}
		lines = append(lines, look(lookToolArg).Render(mark)+look(lookToolOutput).Render(cells.Fit(l, max(width-4, 1))))
	}
	return lines
}
