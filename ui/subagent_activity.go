package ui

import "github.com/charmbracelet/lipgloss"

// activityKind is what one line of a child's activity is.
type activityKind uint8

const (
	actText activityKind = iota
	actReasoning
	actTool
	actNote    // retries and stop reasons
	actError   // the child's error
	actSummary // the child's final summary
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
	note string // the tool's result summary
}

// render draws the last need screen lines of the activity at width cells.
func (a *activity) render(ctx RenderContext, width, need int) []string {
	st := ctx.Styles
	switch a.kind {
	case actTool:
		glyph, style := glyphArrow, st.Tool.Running
		switch a.tool {
		case toolOK:
			glyph, style = glyphOK, st.Tool.OK
		case toolFailed:
			glyph, style = glyphFailed, st.Tool.Error
		case toolStopped:
			glyph, style = glyphCancelled, st.Subagent.Cancelled
		}
		line := style.Render(glyph) + " " + st.Tool.Name.Render(a.text)
		if a.arg != "" {
			line += "  " + st.Tool.Arg.Render(a.arg)
		}
		if a.note != "" {
			line += st.Tool.Output.Render(" · " + a.note)
		}
		return []string{fitLine(line, width)}
	case actReasoning:
		return styleLast(wrapText(a.text, width), need, st.Assistant.Reasoning)
	case actNote:
		return styleLast(wrapText(a.text, width), need, st.Blocks.Note)
	case actError:
		return styleLast(wrapText(a.text, width), need, st.App.Error)
	case actSummary:
		return styleLast(wrapText(a.text, width), need, st.Blocks.Summary)
	}
	return styleLast(wrapText(a.text, width), need, st.Subagent.Body)
}

// styleLast styles and returns the last need lines; styling is the costly
// part, and a pane shows only a few lines of a long paragraph.
func styleLast(lines []string, need int, style lipgloss.Style) []string {
	if len(lines) > need {
		lines = lines[len(lines)-need:]
	}
	return styleLines(lines, style)
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
