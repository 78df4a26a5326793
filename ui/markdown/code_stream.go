package markdown

import (
	"strings"

	"github.com/yuin/goldmark/text"

	"covey/ui/cells"
)

// CodeStream draws the code of a fence still open while an answer
// streams: line by line, highlighted as the finished block will be, each
// complete line once (its highlighting state carried to the next, so a
// string or comment open across lines stays coloured), the unfinished
// last line again on each call. Its lines are those Render draws for the
// block once the fence closes, so nothing moves when it does.
type CodeStream struct {
	r      *Renderer
	hl     lang
	ok     bool
	st     hlState
	indent int    // the opening fence's indentation: its lines lose as much
	marker string // the opening fence's marker
	spans  []span
}

// NewCodeStream starts the code of the fence that line opens (its info
// string names the language); nil when line opens no fence.
func (m *Renderer) NewCodeStream(line string) *CodeStream {
	marker := opensFence(line)
	if marker == "" {
		return nil
	}
	t := strings.TrimLeft(line, " ")
	c := &CodeStream{r: m, indent: len(line) - len(t), marker: marker}
	info := strings.Fields(t[len(marker):])
	if len(info) > 0 && m.styles != nil {
		c.hl, c.ok = langFor(info[0])
	}
	return c
}

// Line draws one complete line of the code in width cells and carries its
// highlighting state to the next line.
func (c *CodeStream) Line(line string, width int) string { return c.draw(line, width, &c.st) }

// Peek draws the unfinished last line, leaving the state as it was: the
// line is drawn again, with Line, once it is complete. A line that may be
// the closing fence on its way ("“") is no code: ok is false.
func (c *CodeStream) Peek(line string, width int) (drawn string, ok bool) {
	if t := strings.TrimSpace(line); t != "" && strings.Trim(t, c.marker[:1]) == "" {
		return "", false
	}
	st := c.st
	return c.draw(line, width, &st), true
}

// draw is one code line as Render's code block draws it: cleaned, the
// fence's indentation taken off, indented two cells, cut to width.
func (c *CodeStream) draw(line string, width int, st *hlState) string {
	line = cells.Clean(strings.TrimRight(line, "\r"))
	for i := 0; i < c.indent && strings.HasPrefix(line, " "); i++ {
		line = line[1:]
	}
	line = strings.TrimRight(line, " ")
	if line == "" {
		return ""
	}
	if !c.ok {
		return cells.Fit("  "+c.r.look(mdCodeBlock).Render(line), width)
	}
	c.spans = c.hl.scan(st, line, c.spans[:0])
	return cells.Fit("  "+c.r.highlighted(line, c.spans), width)
}

// TableStart reports whether text starts with a table: a row with a pipe,
// then a complete delimiter row ("|---|:--:|"). A streaming answer draws
// such a table's complete rows as a table while more arrive.
func TableStart(text string) bool {
	head, rest, ok := strings.Cut(text, "\n")
	if !ok || !strings.Contains(head, "|") {
		return false
	}
	delim, _, ok := strings.Cut(rest, "\n")
	return ok && isDelimiterRow(strings.TrimSpace(delim))
}

// isDelimiterRow reports whether s is a table's delimiter row, as the
// table parser reads one, with at least one pipe.
func isDelimiterRow(s string) bool {
	if !strings.Contains(s, "|") {
		return false
	}
	_, ok := delimiterRow([]byte(s), text.NewSegment(0, len(s)))
	return ok
}

// Undecided reports whether text, the open segment of a streaming answer,
// starts with what may yet open a code fence or a table and cannot be
// told yet: a fence line or a row with a pipe still without its newline,
// or a table's delimiter row still arriving under a header row. Drawn as
// text it would show its markers raw for a moment; it waits instead.
func Undecided(text string) bool {
	head, rest, ok := strings.Cut(text, "\n")
	if !ok {
		return opensFence(head) != "" || strings.HasPrefix(strings.TrimSpace(head), "|")
	}
	if !strings.Contains(head, "|") || strings.Contains(rest, "\n") {
		return false
	}
	r := strings.TrimSpace(rest)
	return r != "" && strings.Trim(r, "|:- ") == ""
}
