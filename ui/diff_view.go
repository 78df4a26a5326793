package ui

import (
	"strconv"
	"strings"

	"covey/theme"
	"covey/ui/cells"

	"github.com/charmbracelet/x/ansi"
)

// diffKind is what one line of a unified diff is.
type diffKind uint8

const (
	diffContext diffKind = iota
	diffAdded
	diffRemoved
	diffHunk // an @@ header
	diffNote // "\ No newline at end of file" and anything unparsable
	diffFile // a file's header in a multi-file diff; old holds the file's index
)

// diffLine is one parsed line of a unified diff with its line numbers in
// the old and the new file (0 where the line has none).
type diffLine struct {
	kind     diffKind
	old, new int
	text     string
	// hunk is the 1-based number of the choosable hunk the line belongs
	// to in an approval (see hunkState); 0 outside any.
	hunk int
}

// diffView is a parsed unified diff, ready to draw at any width with old
// and new line numbers in a gutter. It is parsed once, when the tool call
// finishes; drawing it does no parsing.
type diffView struct {
	lines  []diffLine
	digits int // width of the widest line number
	sides  int // 0: not counted yet; 1: only added or only removed lines; 2: both
	// shift is how many cells of each line's text an approval scrolled
	// off to the left; widest is the widest text in cells plus one, 0
	// until measured.
	shift, widest int
}

// newDiffView parses a unified diff as tools.FileChange carries it. It is
// lenient: file headers and git extended headers are skipped, and lines it
// cannot place are kept as notes rather than rejected, since a diff shown
// a little plainly beats no diff.
func newDiffView(diff string) *diffView {
	d := &diffView{}
	oldN, newN, inHunk, maxN := 0, 0, false, 0
	diff = strings.TrimSuffix(cells.Clean(diff), "\n")
	if diff == "" {
		return d
	}
	for _, l := range strings.Split(diff, "\n") {
		if o, n, ok := parseHunkHeader(l); ok {
			oldN, newN, inHunk = o, n, true
			d.lines = append(d.lines, diffLine{kind: diffHunk, text: l})
			continue
		}
		if !inHunk {
			continue // ---/+++ headers, "diff --git", "index ..."
		}
		switch {
		case strings.HasPrefix(l, "+"):
			d.lines = append(d.lines, diffLine{kind: diffAdded, new: newN, text: l[1:]})
			maxN = max(maxN, newN)
			newN++
		case strings.HasPrefix(l, "-"):
			d.lines = append(d.lines, diffLine{kind: diffRemoved, old: oldN, text: l[1:]})
			maxN = max(maxN, oldN)
			oldN++
		case strings.HasPrefix(l, " ") || l == "":
			d.lines = append(d.lines, diffLine{kind: diffContext, old: oldN, new: newN, text: strings.TrimPrefix(l, " ")})
			maxN = max(maxN, oldN, newN)
			oldN++
			newN++
		default:
			d.lines = append(d.lines, diffLine{kind: diffNote, text: l})
		}
	}
	d.digits = len(strconv.Itoa(maxN))
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
func (d *diffView) Len() int { return len(d.lines) }

// render draws at most limit lines of the diff (all when limit <= 0) at
// width, ending with a "… N more lines" note when it cut some.
func (d *diffView) render(width, limit int, st *theme.Styles) []string {
	n := len(d.lines)
	if limit > 0 && n > limit {
		n = limit
	}
	gutter := 2*d.digits + 2 // "old new " before the marker
	out := make([]string, 0, n+1)
	for _, l := range d.lines[:n] {
		out = d.appendWrapped(out, l, width, gutter, st)
	}
	if n < len(d.lines) {
		out = append(out, cells.Fit(st.Tool.Output.Render("… "+countNoun(len(d.lines)-n, "more line", "more lines")), width))
	}
	return out
}

func (d *diffView) renderLine(l diffLine, width, gutter int, st *theme.Styles) string {
	num := func(v int) string {
		if v == 0 {
			return strings.Repeat(" ", d.digits)
		}
		s := strconv.Itoa(v)
		return strings.Repeat(" ", max(d.digits-len(s), 0)) + s
	}
	switch l.kind {
	case diffHunk:
		return cells.Fit(strings.Repeat(" ", gutter)+st.Diff.Hunk.Render(cells.Fit(l.text, max(width-gutter, 1))), width)
	case diffNote:
		return cells.Fit(strings.Repeat(" ", gutter)+st.Tool.Output.Render(cells.Fit(l.text, max(width-gutter, 1))), width)
	case diffFile:
		return cells.Fit(st.Approval.Target.Render(l.text), width)
	}
	nums := st.Diff.LineNumber.Render(num(l.old) + " " + num(l.new) + " ")
	textWidth := max(width-gutter, 1)
	l.text = d.shifted(l.text)
	var body string
	switch l.kind {
	case diffAdded:
		body = st.Diff.Added.Render(cells.Pad("+"+l.text, textWidth))
	case diffRemoved:
		body = st.Diff.Removed.Render(cells.Pad("-"+l.text, textWidth))
	default:
		body = st.Diff.Context.Render(cells.Fit(" "+l.text, textWidth))
	}
	return cells.Fit(nums+body, width)
}

// shifted is text with the cells scrolled off to the left dropped, "…"
// in their place.
func (d *diffView) shifted(text string) string {
	if d.shift <= 0 || text == "" {
		return text
	}
	if cells.Width(text) <= d.shift {
		return "…"
	}
	return ansi.TruncateLeft(text, d.shift, "…")
}

// widestText is the width in cells of the widest line's text.
func (d *diffView) widestText() int {
	if d.widest == 0 {
		w := 0
		for _, l := range d.lines {
			if l.kind == diffAdded || l.kind == diffRemoved || l.kind == diffContext {
				w = max(w, cells.Width(l.text))
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
func (d *diffView) appendWrapped(out []string, l diffLine, width, gutter int, st *theme.Styles) []string {
	textWidth := max(width-gutter, 1)
	if l.kind != diffAdded && l.kind != diffRemoved && l.kind != diffContext || textWidth < 8 ||
		cells.Width(l.text) <= textWidth-1 {
		return append(out, d.renderLine(l, width, gutter, st))
	}
	parts := diffChunks(l.text, textWidth-1)
	first := l
	first.text = parts[0]
	out = append(out, d.renderLine(first, width, gutter, st))
	cont := st.Diff.LineNumber.Render(strings.Repeat(" ", max(gutter-2, 0)) + "↪ ")
	for _, p := range parts[1:] {
		var body string
		switch l.kind {
		case diffAdded:
			body = st.Diff.Added.Render(cells.Pad("+"+p, textWidth))
		case diffRemoved:
			body = st.Diff.Removed.Render(cells.Pad("-"+p, textWidth))
		default:
			body = st.Diff.Context.Render(" " + p)
		}
		out = append(out, cells.Fit(cont+body, width))
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
