package ui

import (
	"strconv"
	"strings"

	"covey/theme"
)

// This file draws a diffView in the two forms an approval offers: a window
// of the unified diff, and the same diff side by side (old on the left, new
// on the right). Both draw only the rows in the window, so a long diff costs
// a screenful per frame.

// splitRow is one row of the side-by-side form: a hunk header or note
// spanning both halves (full), or an old line and a new line, either of
// which may be missing.
type splitRow struct {
	full        *diffLine
	left, right *diffLine
}

// splitRows pairs the diff's lines: context on both sides, each run of
// removed lines beside the run of added lines that follows it.
func splitRows(d *diffView) []splitRow {
	rows := make([]splitRow, 0, len(d.lines))
	ls := d.lines
	for i := 0; i < len(ls); {
		switch ls[i].kind {
		case diffContext:
			rows = append(rows, splitRow{left: &ls[i], right: &ls[i]})
			i++
		case diffRemoved, diffAdded:
			dels := i
			for i < len(ls) && ls[i].kind == diffRemoved {
				i++
			}
			adds := i
			for i < len(ls) && ls[i].kind == diffAdded {
				i++
			}
			nd, na := adds-dels, i-adds
			for k := range max(nd, na) {
				var r splitRow
				if k < nd {
					r.left = &ls[dels+k]
				}
				if k < na {
					r.right = &ls[adds+k]
				}
				rows = append(rows, r)
			}
		default:
			rows = append(rows, splitRow{full: &ls[i]})
			i++
		}
	}
	return rows
}

// renderWindow draws lines [from, from+n) of the unified diff at width.
func (d *diffView) renderWindow(from, n, width int, st *theme.Styles) []string {
	from = min(max(from, 0), len(d.lines))
	to := min(from+max(n, 0), len(d.lines))
	gutter := 2*d.digits + 2
	out := make([]string, 0, to-from)
	for _, l := range d.lines[from:to] {
		out = append(out, d.renderLine(l, width, gutter, st))
	}
	return out
}

// splitSeparator divides the halves of a side-by-side row.
const splitSeparator = " │ "

// renderSplitWindow draws rows [from, from+n) of the side-by-side form at
// width.
func (d *diffView) renderSplitWindow(rows []splitRow, from, n, width int, st *theme.Styles) []string {
	from = min(max(from, 0), len(rows))
	to := min(from+max(n, 0), len(rows))
	half := max((width-len(splitSeparator))/2, 1)
	sep := st.Approval.Separator.Render(splitSeparator)
	out := make([]string, 0, to-from)
	for _, r := range rows[from:to] {
		if r.full != nil {
			style := st.Diff.Hunk
			if r.full.kind == diffNote {
				style = st.Tool.Output
			}
			out = append(out, fitLine(style.Render(fitLine(r.full.text, width)), width))
			continue
		}
		out = append(out, fitLine(d.splitCell(r.left, true, half, st)+sep+d.splitCell(r.right, false, half, st), width))
	}
	return out
}

// splitCell is one half of a row, exactly width cells: the line number on
// its side, the marker and the text; blank where the side has no line.
func (d *diffView) splitCell(l *diffLine, old bool, width int, st *theme.Styles) string {
	if l == nil {
		return strings.Repeat(" ", width)
	}
	n := l.new
	if old {
		n = l.old
	}
	num := strings.Repeat(" ", d.digits)
	if n > 0 {
		s := strconv.Itoa(n)
		num = strings.Repeat(" ", max(d.digits-len(s), 0)) + s
	}
	textWidth := max(width-d.digits-1, 1)
	var body string
	switch l.kind {
	case diffAdded:
		body = st.Diff.Added.Render(padTo("+"+l.text, textWidth))
	case diffRemoved:
		body = st.Diff.Removed.Render(padTo("-"+l.text, textWidth))
	default:
		body = st.Diff.Context.Render(padTo(" "+l.text, textWidth))
	}
	return fitLine(st.Diff.LineNumber.Render(num+" ")+body, width)
}

// contentDiff is the diff of a new file holding content, for a write
// request that carries no FileChange.
func contentDiff(content string) string {
	content = strings.TrimSuffix(content, "\n")
	if content == "" {
		return ""
	}
	lines := strings.Split(content, "\n")
	var b strings.Builder
	b.WriteString("@@ -0,0 +1," + strconv.Itoa(len(lines)) + " @@\n")
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}
