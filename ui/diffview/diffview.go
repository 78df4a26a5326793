// Package diffview parses unified diffs and draws them: wrapped, in the
// transcript (tool calls, /diff, a child's view), or a row at a time,
// unified or side by side, in an approval, which scrolls them sideways.
package diffview

import (
	"fmt"
	"strconv"
	"strings"

	"covey/theme"
	"covey/ui/cells"

	"github.com/charmbracelet/x/ansi"
)

// Kind is what one line of a unified diff is.
type Kind uint8

// The kinds of lines.
const (
	Context Kind = iota // unchanged, on both sides
	Added
	Removed
	Hunk // an @@ header
	Note // "\ No newline at end of file" and anything unparsable
	File // a file's header in a multi-file diff; Old holds the file's index
)

// Line is one parsed line of a unified diff with its line numbers in
// the old and the new file (0 where the line has none).
type Line struct {
	Kind     Kind
	Old, New int
	Text     string
	// Hunk is the 1-based number of the choosable hunk the line belongs
	// to in an approval; 0 outside any.
	Hunk int
}

// View is a parsed unified diff, ready to draw at any width with old
// and new line numbers in a gutter. It is parsed once, when the tool call
// finishes; drawing it does no parsing.
type View struct {
	Lines  []Line
	Digits int // width of the widest line number
	sides  int // 0: not counted yet; 1: only added or only removed lines; 2: both
	// Shift is how many cells of each line's text an approval scrolled
	// off to the left.
	Shift int
	// widest is the widest text in cells plus one, 0 until measured.
	widest int
}

// New parses a unified diff as tool.FileChange carries it. It is
// lenient: file headers and git extended headers are skipped, and lines it
// cannot place are kept as notes rather than rejected, since a diff shown
// a little plainly beats no diff.
func New(diff string) *View {
	d := &View{}
	oldN, newN, inHunk, maxN := 0, 0, false, 0
	diff = strings.TrimSuffix(cells.Clean(diff), "\n")
	if diff == "" {
		return d
	}
	for _, l := range strings.Split(diff, "\n") {
		if o, n, ok := parseHunkHeader(l); ok {
			oldN, newN, inHunk = o, n, true
			d.Lines = append(d.Lines, Line{Kind: Hunk, Text: l})
			continue
		}
		if !inHunk {
			continue // ---/+++ headers, "diff --git", "index ..."
		}
		switch {
		case strings.HasPrefix(l, "+"):
			d.Lines = append(d.Lines, Line{Kind: Added, New: newN, Text: l[1:]})
			maxN = max(maxN, newN)
			newN++
		case strings.HasPrefix(l, "-"):
			d.Lines = append(d.Lines, Line{Kind: Removed, Old: oldN, Text: l[1:]})
			maxN = max(maxN, oldN)
			oldN++
		case strings.HasPrefix(l, " ") || l == "":
			d.Lines = append(d.Lines, Line{Kind: Context, Old: oldN, New: newN, Text: strings.TrimPrefix(l, " ")})
			maxN = max(maxN, oldN, newN)
			oldN++
			newN++
		default:
			d.Lines = append(d.Lines, Line{Kind: Note, Text: l})
		}
	}
	d.Digits = len(strconv.Itoa(maxN))
	return d
}

// parseHunkHeader reads "@@ -l[,n] +l[,n] @@ ...", returning the first
// old and new line numbers.
func parseHunkHeader(l string) (oldStart, newStart int, ok bool) {
	rest, found := strings.CutPrefix(l, "@@ -")
	if !found {
		return 0, 0, false
	}
	oldPart, rest, found := strings.Cut(rest, " +")
	if !found {
		return 0, 0, false
	}
	newPart, _, found := strings.Cut(rest, " @@")
	if !found {
		return 0, 0, false
	}
	o, err1 := strconv.Atoi(strings.SplitN(oldPart, ",", 2)[0])
	n, err2 := strconv.Atoi(strings.SplitN(newPart, ",", 2)[0])
	if err1 != nil || err2 != nil || o < 0 || n < 0 {
		return 0, 0, false
	}
	return o, n, true
}

// Len is the number of lines the whole diff takes.
func (d *View) Len() int { return len(d.Lines) }

// Render draws at most limit lines of the diff (all when limit <= 0) at
// width, ending with a "… N more lines" note when it cut some.
func (d *View) Render(width, limit int, st *theme.Styles) []string {
	n := len(d.Lines)
	if limit > 0 && n > limit {
		n = limit
	}
	out := make([]string, 0, n+1)
	for _, l := range d.Lines[:n] {
		out = d.appendWrapped(out, l, width, st)
	}
	if n < len(d.Lines) {
		more := "… 1 more line"
		if left := len(d.Lines) - n; left != 1 {
			more = fmt.Sprintf("… %d more lines", left)
		}
		out = append(out, cells.Fit(st.Tool.Output.Render(more), width))
	}
	return out
}

// RenderRow draws line i of the unified diff at width, unwrapped: an
// approval keeps one row per line and scrolls sideways (Shift).
func (d *View) RenderRow(i, width int, st *theme.Styles) string {
	return d.renderLine(d.Lines[i], width, st)
}

// gutter is the width of "old new " before a line's marker.
func (d *View) gutter() int { return 2*d.Digits + 2 }

// TextWidth is how many cells of a line's text show in a row of width:
// unified, after both line numbers and the marker; side by side, in a
// half, after its line number and the marker.
func (d *View) TextWidth(width int, split bool) int {
	if split {
		return max(halfWidth(width)-d.Digits-2, 1)
	}
	return max(width-d.gutter()-1, 1)
}

// number is line number v right-aligned in the digits of the gutter,
// blank for 0 (no line on that side).
func (d *View) number(v int) string {
	if v == 0 {
		return strings.Repeat(" ", d.Digits)
	}
	s := strconv.Itoa(v)
	return strings.Repeat(" ", max(d.Digits-len(s), 0)) + s
}

// body is a line's marker and text in its colour, at most width cells.
// An added or removed line is padded to width, so its colour spans the
// row; a context line is padded only when fill is set (a side-by-side
// half, whose width the separator after it needs).
func body(kind Kind, text string, width int, fill bool, st *theme.Styles) string {
	switch kind {
	case Added:
		return st.Diff.Added.Render(cells.Pad("+"+text, width))
	case Removed:
		return st.Diff.Removed.Render(cells.Pad("-"+text, width))
	}
	if fill {
		return st.Diff.Context.Render(cells.Pad(" "+text, width))
	}
	return st.Diff.Context.Render(cells.Fit(" "+text, width))
}

// renderLine draws one line of the unified diff at width: the line
// numbers and the body, or a header or note across the row.
func (d *View) renderLine(l Line, width int, st *theme.Styles) string {
	gutter := d.gutter()
	switch l.Kind {
	case Hunk:
		return cells.Fit(strings.Repeat(" ", gutter)+st.Diff.Hunk.Render(cells.Fit(l.Text, max(width-gutter, 1))), width)
	case Note:
		return cells.Fit(strings.Repeat(" ", gutter)+st.Tool.Output.Render(cells.Fit(l.Text, max(width-gutter, 1))), width)
	case File:
		return cells.Fit(st.Approval.Target.Render(l.Text), width)
	}
	nums := st.Diff.LineNumber.Render(d.number(l.Old) + " " + d.number(l.New) + " ")
	return cells.Fit(nums+body(l.Kind, d.shifted(l.Text), max(width-gutter, 1), false, st), width)
}

// shifted is text with the cells scrolled off to the left dropped, "…"
// in their place.
func (d *View) shifted(text string) string {
	if d.Shift <= 0 || text == "" {
		return text
	}
	if cells.Width(text) <= d.Shift {
		return "…"
	}
	return ansi.TruncateLeft(text, d.Shift, "…")
}

// WidestText is the width in cells of the widest line's text.
func (d *View) WidestText() int {
	if d.widest == 0 {
		w := 0
		for _, l := range d.Lines {
			if l.Kind == Added || l.Kind == Removed || l.Kind == Context {
				w = max(w, cells.Width(l.Text))
			}
		}
		d.widest = w + 1
	}
	return d.widest - 1
}

// appendWrapped appends line l drawn at width, wrapped: the text a line
// has past the screen's edge goes on in continuation rows, marked "↪" in
// the gutter, with the line's marker and colour. The transcript's diffs
// (a tool call's, /diff's, a child's view) take no keys, so they wrap
// rather than scroll sideways; nothing of a change is hidden.
func (d *View) appendWrapped(out []string, l Line, width int, st *theme.Styles) []string {
	gutter := d.gutter()
	textWidth := max(width-gutter, 1)
	if l.Kind != Added && l.Kind != Removed && l.Kind != Context || textWidth < 8 ||
		cells.Width(l.Text) <= textWidth-1 {
		return append(out, d.renderLine(l, width, st))
	}
	parts := diffChunks(l.Text, textWidth-1)
	first := l
	first.Text = parts[0]
	out = append(out, d.renderLine(first, width, st))
	cont := st.Diff.LineNumber.Render(strings.Repeat(" ", max(gutter-2, 0)) + "↪ ")
	for _, p := range parts[1:] {
		out = append(out, cells.Fit(cont+body(l.Kind, p, textWidth, false, st), width))
	}
	return out
}

// diffChunks cuts s into pieces of at most w cells (w >= 2), at any rune:
// code is wrapped where the screen ends, not at words.
func diffChunks(s string, w int) []string {
	var out []string
	start, n := 0, 0
	for i, r := range s {
		c := cells.RuneWidth(r)
		if n+c > w && n > 0 {
			out = append(out, s[start:i])
			start, n = i, 0
		}
		n += c
	}
	return append(out, s[start:])
}
