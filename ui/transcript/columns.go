package transcript

import (
	"strings"

	"covey/ui/cells"
)

// Two-column text (/help) whose first column can be long: a namespaced
// command with its arguments. The first column is as wide as the widest
// entry that fits in a share of the width; a longer entry has its
// description on the lines below it, so one long entry does not push
// every description aside.

// NameShare is the most of a line's width, in fifths, a first column
// takes (the completion popup's too).
const NameShare = 2

// nameColumn is the width of the first column for names of these widths
// (each with the space after it), on lines of room cells.
func nameColumn(widths []int, room int) int {
	limit := max(room*NameShare/5, 1)
	col := 0
	for _, w := range widths {
		if w <= limit {
			col = max(col, w)
		}
	}
	if col == 0 {
		col = limit
	}
	return col
}

// ColumnText lays text out in width cells. Its lines that hold a tab are
// rows of two columns ("  /name args\tdescription"): the descriptions of
// all rows start in one column and wrap under it; a name too wide for the
// column has its description on the lines below it. Other lines wrap
// under their own indentation.
func ColumnText(text string, width int) []string {
	lines := strings.Split(text, "\n")
	var widths []int
	for _, l := range lines {
		if name, _, ok := strings.Cut(l, "\t"); ok {
			widths = append(widths, cells.Width(name)+1)
		}
	}
	col := nameColumn(widths, width)
	var out []string
	for _, l := range lines {
		name, desc, ok := strings.Cut(l, "\t")
		if !ok {
			out = hang(out, l, width)
			continue
		}
		if cells.Width(name) >= col {
			out = hang(out, name, width)
			name = ""
		}
		if desc == "" {
			out = hang(out, name, width)
			continue
		}
		pad := strings.Repeat(" ", col)
		for i, d := range cells.Wrap(desc, max(width-col, 1)) {
			if i == 0 && name != "" {
				out = append(out, cells.Pad(name, col)+d)
			} else {
				out = append(out, pad+d)
			}
		}
	}
	return out
}

// hang appends line wrapped to width, its wrapped lines indented as far
// as the line itself.
func hang(out []string, line string, width int) []string {
	t := strings.TrimLeft(line, " ")
	indent := len(line) - len(t)
	if indent >= width/2 {
		return append(out, cells.Wrap(line, width)...)
	}
	pad := line[:indent]
	for _, w := range cells.Wrap(t, width-indent) {
		out = append(out, pad+w)
	}
	return out
}
