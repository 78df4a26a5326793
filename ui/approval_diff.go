package ui

import (
	"strconv"
	"strings"

	"covey/theme"
	"covey/ui/cells"
)

// This file draws a diffView in the two forms an approval offers: the
// unified diff, and the same diff side by side (old on the left, new on the
// right), one row at a time, so an approval draws only the rows it shows.

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

// renderRow draws line i of the unified diff at width.
func (d *diffView) renderRow(i, width int, st *theme.Styles) string {
	return d.renderLine(d.lines[i], width, 2*d.digits+2, st)
}

// splitSeparator divides the halves of a side-by-side row.
const splitSeparator = " │ "

// renderSplitRow draws one side-by-side row at width.
func (d *diffView) renderSplitRow(r splitRow, width int, st *theme.Styles) string {
	if r.full != nil {
		style := st.Diff.Hunk
		if r.full.kind == diffNote {
			style = st.Tool.Output
		}
		return style.Render(cells.Fit(r.full.text, width))
	}
	half := max((width-len(splitSeparator))/2, 1)
	return d.splitCell(r.left, true, half, st) + st.Approval.Separator.Render(splitSeparator) + d.splitCell(r.right, false, half, st)
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
	text := d.shifted(l.text)
	var body string
	switch l.kind {
	case diffAdded:
		body = st.Diff.Added.Render(cells.Pad("+"+text, textWidth))
	case diffRemoved:
		body = st.Diff.Removed.Render(cells.Pad("-"+text, textWidth))
	default:
		body = st.Diff.Context.Render(cells.Pad(" "+text, textWidth))
	}
	// num is digits wide and body padded: the cell is exactly width.
	return st.Diff.LineNumber.Render(num+" ") + body
}

// oneSided reports whether the diff only adds or only removes lines, as
// for a new or a deleted file: side by side, one half would be empty.
func (d *diffView) oneSided() bool {
	if d.sides == 0 {
		d.sides = 2
		if d.countSides() {
			d.sides = 1
		}
	}
	return d.sides == 1
}

func (d *diffView) countSides() bool {
	added, removed := false, false
	for _, l := range d.lines {
		switch l.kind {
		case diffAdded:
			added = true
		case diffRemoved:
			removed = true
		case diffContext, diffFile:
			return false
		}
	}
	return !(added && removed)
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
