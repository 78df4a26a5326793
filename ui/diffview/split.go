package diffview

import (
	"strconv"
	"strings"

	"covey/theme"
	"covey/ui/cells"
)

// This file draws a View in the two forms an approval offers: the
// unified diff, and the same diff side by side (old on the left, new on the
// right), one row at a time, so an approval draws only the rows it shows.

// SplitRow is one row of the side-by-side form: a hunk header or note
// spanning both halves (Full), or an old line and a new line, either of
// which may be missing.
type SplitRow struct {
	Full        *Line
	Left, Right *Line
}

// SplitRows pairs the diff's lines: context on both sides, each run of
// removed lines beside the run of added lines that follows it.
func SplitRows(d *View) []SplitRow {
	rows := make([]SplitRow, 0, len(d.Lines))
	ls := d.Lines
	for i := 0; i < len(ls); {
		switch ls[i].Kind {
		case Context:
			rows = append(rows, SplitRow{Left: &ls[i], Right: &ls[i]})
			i++
		case Removed, Added:
			dels := i
			for i < len(ls) && ls[i].Kind == Removed {
				i++
			}
			adds := i
			for i < len(ls) && ls[i].Kind == Added {
				i++
			}
			nd, na := adds-dels, i-adds
			for k := range max(nd, na) {
				var r SplitRow
				if k < nd {
					r.Left = &ls[dels+k]
				}
				if k < na {
					r.Right = &ls[adds+k]
				}
				rows = append(rows, r)
			}
		default:
			rows = append(rows, SplitRow{Full: &ls[i]})
			i++
		}
	}
	return rows
}

// SplitSeparator divides the halves of a side-by-side row.
const SplitSeparator = " │ "

// halfWidth is the width of each half of a side-by-side row of width.
func halfWidth(width int) int { return max((width-len(SplitSeparator))/2, 1) }

// RenderSplitRow draws one side-by-side row at width.
func (d *View) RenderSplitRow(r SplitRow, width int, st *theme.Styles) string {
	if r.Full != nil {
		style := st.Diff.Hunk
		if r.Full.Kind == Note {
			style = st.Tool.Output
		}
		return style.Render(cells.Fit(r.Full.Text, width))
	}
	half := halfWidth(width)
	return d.splitCell(r.Left, true, half, st) + st.Approval.Separator.Render(SplitSeparator) + d.splitCell(r.Right, false, half, st)
}

// splitCell is one half of a row, exactly width cells: the line number on
// its side, the marker and the text; blank where the side has no line.
func (d *View) splitCell(l *Line, old bool, width int, st *theme.Styles) string {
	if l == nil {
		return strings.Repeat(" ", width)
	}
	n := l.New
	if old {
		n = l.Old
	}
	// The number is Digits wide and the body padded: the cell is exactly width.
	return st.Diff.LineNumber.Render(d.number(n)+" ") + body(l.Kind, d.shifted(l.Text), max(width-d.Digits-1, 1), true, st)
}

// OneSided reports whether the diff only adds or only removes lines, as
// for a new or a deleted file: side by side, one half would be empty.
func (d *View) OneSided() bool {
	if d.sides == 0 {
		d.sides = 2
		if d.countSides() {
			d.sides = 1
		}
	}
	return d.sides == 1
}

func (d *View) countSides() bool {
	added, removed := false, false
	for _, l := range d.Lines {
		switch l.Kind {
		case Added:
			added = true
		case Removed:
			removed = true
		case Context, File:
			return false
		}
	}
	return !(added && removed)
}

// ContentDiff is the diff of a new file holding content, for a write
// request that carries no FileChange.
func ContentDiff(content string) string {
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
