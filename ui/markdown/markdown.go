// Package markdown renders the assistant's markdown for the transcript,
// and finds where the blocks of a streaming answer end (Split).
package markdown

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"covey/theme"
	"covey/ui/cells"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Renderer renders markdown for the transcript's blocks: goldmark
// parses it and covey draws the tree itself with the theme's styles. It
// used to be glamour, whose imports (chroma's lexers and styles,
// bluemonday) cost some 15 ms of package init on every start, --version
// included, and whose renderer took milliseconds per kilobyte; this one
// parses a kilobyte in tens of microseconds and builds its parser on the
// first markdown block, off the start path. It is shared by every block
// and used from the UI goroutine only.
type Renderer struct {
	styles *theme.Styles // nil: no colours or attributes
	err    error
	md     goldmark.Markdown // built by the first Render
	looks  map[mdFlags]cells.Style
	// toks are the looks of code's classes (tok), set by the first
	// highlighted code block.
	toks [numToks]cells.Style
	// toksSet says toks holds the looks.
	toksSet bool
	// renders counts Render calls (Renders).
	renders int
}

// NewRenderer returns a renderer for the style "dark" or "light"
// (drawn with styles) or "notty" or "ascii" (no colours). An unknown name
// falls back to "notty" and is reported by Err. A nil styles draws plain.
func NewRenderer(styleName string, styles *theme.Styles) *Renderer {
	m := &Renderer{styles: styles}
	switch styleName {
	case "dark", "light":
	case "notty", "ascii":
		m.styles = nil
	default:
		m.styles = nil
		m.err = fmt.Errorf("unknown markdown style %q: use dark, light, notty or ascii", styleName)
	}
	return m
}

// Renders is how many times Render has run: a streaming answer must not
// render its finished blocks again on every token, and tests count.
func (m *Renderer) Renders() int { return m.renders }

// Err reports why the style name given to NewRenderer was not used.
func (m *Renderer) Err() error { return m.err }

// Render renders md as lines of at most width cells, without trailing
// spaces or leading and trailing blank lines. On failure the caller gets an
// error and should fall back to plain text.
func (m *Renderer) Render(md string, width int) ([]string, error) {
	if width < 1 {
		return nil, nil
	}
	m.renders++
	return m.draw([]byte(flattenDeep(cells.Clean(md))), width), nil
}

// draw parses src and draws it in lines of at most width cells.
func (m *Renderer) draw(src []byte, width int) []string {
	if m.md == nil {
		m.md = goldmark.New(goldmark.WithParserOptions(gfmOptions()...))
	}
	doc := m.md.Parser().Parse(text.NewReader(src))
	w := mdWriter{r: m, src: src}
	lines := w.blocks(doc, width, false)
	for i, l := range lines {
		lines[i] = cells.Fit(l, width)
	}
	return TrimBlankLines(lines)
}

// mdFlags are the inline attributes of a run of text.
type mdFlags uint16

const (
	mdBold mdFlags = 1 << iota
	mdItalic
	mdStrike
	mdCode
	mdLink
	mdURL
	mdHeading
	mdMark
	mdQuote
	mdMarker
	mdRule
	mdBorder
	mdCodeBlock
)

// look returns the escape codes for flags, computed once per set.
func (m *Renderer) look(f mdFlags) cells.Style {
	if m.styles == nil {
		return cells.Style{}
	}
	if q, ok := m.looks[f]; ok {
		return q
	}
	st := m.styles.Markdown
	base := st.Text
	switch {
	case f&mdCode != 0:
		base = st.Code
	case f&mdURL != 0:
		base = st.URL
	case f&mdLink != 0:
		base = st.Link
	case f&mdMark != 0:
		base = st.Mark
	case f&mdHeading != 0:
		base = st.Heading
	case f&mdMarker != 0:
		base = st.Marker
	case f&mdRule != 0:
		base = st.Rule
	case f&mdBorder != 0:
		base = st.Border
	case f&mdCodeBlock != 0:
		base = st.CodeBlock
	case f&mdQuote != 0:
		base = st.Quote
	}
	if f&mdBold != 0 {
		base = base.Bold(true)
	}
	if f&mdItalic != 0 {
		base = base.Italic(true)
	}
	if f&mdStrike != 0 {
		base = base.Strikethrough(true)
	}
	q := cells.NewStyle(base)
	if m.looks == nil {
		m.looks = make(map[mdFlags]cells.Style)
	}
	m.looks[f] = q
	return q
}

// mdRun is text drawn with one look.
type mdRun struct {
	text  string
	flags mdFlags
}

// mdWriter draws one parsed document.
type mdWriter struct {
	r   *Renderer
	src []byte
}

// blocks draws the block children of parent, a blank line between two
// unless tight (the items of a tight list).
func (w *mdWriter) blocks(parent gast.Node, width int, tight bool) []string {
	var out []string
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		lines := w.block(n, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func (w *mdWriter) block(n gast.Node, width int) []string {
	width = max(width, 1)
	switch n := n.(type) {
	case *gast.Paragraph, *gast.TextBlock:
		return w.wrap(w.inlines(nil, n, 0), width)
	case *gast.Heading:
		runs := []mdRun{{strings.Repeat("#", n.Level) + " ", mdMark}}
		return w.wrap(w.inlines(runs, n, mdHeading), width)
	case *gast.ThematicBreak:
		return []string{w.styled(mdRun{strings.Repeat("─", width), mdRule})}
	case *gast.FencedCodeBlock, *gast.CodeBlock:
		return w.code(n, width)
	case *gast.HTMLBlock:
		var b strings.Builder
		w.segments(&b, n.Lines())
		if n.HasClosure() {
			seg := n.ClosureLine
			b.Write(seg.Value(w.src))
		}
		return w.wrap(splitRuns(strings.TrimRight(b.String(), "\n"), mdQuote), width)
	case *gast.Blockquote:
		if width-2 < minNestWidth {
			return w.blocks(n, width, false) // nested too deep to draw another bar
		}
		bar := w.styled(mdRun{"│ ", mdQuote})
		inner := w.blocks(n, width-2, false)
		for i, l := range inner {
			inner[i] = bar + l
		}
		return inner
	case *gast.List:
		return w.list(n, width)
	case *east.Table:
		return w.table(n, width)
	}
	if n.HasChildren() {
		return w.blocks(n, width, false)
	}
	return nil
}

// minNestWidth is the narrowest a quote or a list item indents its content
// to: deeper nesting draws no further bar or marker. A model's text (or a
// hostile file it quotes) nested thousands deep would otherwise cost a
// frame the square of its depth, and leave no room for the text itself.
const minNestWidth = 12

// list draws a list's items behind their bullets or numbers.
func (w *mdWriter) list(l *gast.List, width int) []string {
	var out []string
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if l.IsOrdered() {
			marker = strconv.Itoa(num) + string(l.Marker) + " "
			num++
		}
		mw := len(marker)
		if !l.IsOrdered() {
			mw = 2
		}
		if width-mw < minNestWidth {
			// Nested too deep to indent further: the items' text goes on
			// at this width, without markers.
			if len(out) > 0 && !l.IsTight {
				out = append(out, "")
			}
			out = append(out, w.blocks(item, width, l.IsTight)...)
			continue
		}
		inner := w.blocks(item, width-mw, l.IsTight)
		if len(inner) == 0 {
			inner = []string{""}
		}
		if len(out) > 0 && !l.IsTight {
			out = append(out, "")
		}
		pad := strings.Repeat(" ", mw)
		for i, line := range inner {
			switch {
			case i == 0:
				out = append(out, w.styled(mdRun{marker, mdMarker})+line)
			case line == "":
				out = append(out, "")
			default:
				out = append(out, pad+line)
			}
		}
	}
	return out
}

// code draws a code block's lines indented, cut (not wrapped) at width;
// a fence that names a language it knows is highlighted (highlight.go).
func (w *mdWriter) code(n gast.Node, width int) []string {
	segs := n.Lines()
	out := make([]string, 0, segs.Len())
	q := w.r.look(mdCodeBlock)
	var (
		hl    lang
		ok    bool
		st    hlState
		spans []span
	)
	if f, fenced := n.(*gast.FencedCodeBlock); fenced && w.r.styles != nil {
		hl, ok = langFor(string(f.Language(w.src)))
	}
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		line := strings.TrimRight(string(seg.Value(w.src)), " \n")
		if line == "" {
			out = append(out, "")
			continue
		}
		if !ok {
			out = append(out, cells.Fit("  "+q.Render(line), width))
			continue
		}
		spans = hl.scan(&st, line, spans[:0])
		out = append(out, cells.Fit("  "+w.r.highlighted(line, spans), width))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// highlighted draws line with each span in its class's look.
func (m *Renderer) highlighted(line string, spans []span) string {
	if !m.toksSet {
		st, diff := m.styles.Markdown, m.styles.Diff
		for k, s := range [numToks]lipgloss.Style{
			tokPlain: st.CodeBlock, tokKeyword: st.CodeKeyword, tokString: st.CodeString,
			tokComment: st.CodeComment, tokNumber: st.CodeNumber, tokAdded: diff.Added,
			tokRemoved: diff.Removed, tokHunk: diff.Hunk, tokHeader: diff.Header,
		} {
			m.toks[k] = cells.NewStyle(s)
		}
		m.toksSet = true
	}
	var b strings.Builder
	b.Grow(len(line) + 16*len(spans))
	start := 0
	for _, sp := range spans {
		pre, post := m.toks[sp.kind].Codes()
		b.WriteString(pre)
		b.WriteString(line[start:sp.end])
		b.WriteString(post)
		start = sp.end
	}
	return b.String()
}

func (w *mdWriter) segments(b *strings.Builder, segs *text.Segments) {
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		b.Write(seg.Value(w.src))
	}
}

// inlines appends the runs of n's inline children, each with flags added.
func (w *mdWriter) inlines(runs []mdRun, n gast.Node, flags mdFlags) []mdRun {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *gast.Text:
			runs = append(runs, mdRun{unescape(c.Segment.Value(w.src)), flags})
			switch {
			case c.HardLineBreak():
				runs = append(runs, mdRun{"\n", flags})
			case c.SoftLineBreak():
				runs = append(runs, mdRun{" ", flags})
			}
		case *gast.String:
			runs = append(runs, mdRun{string(c.Value), flags})
		case *gast.CodeSpan:
			var b strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*gast.Text); ok {
					b.Write(t.Segment.Value(w.src))
				}
			}
			runs = append(runs, mdRun{b.String(), flags | mdCode})
		case *gast.Emphasis:
			f := mdItalic
			if c.Level >= 2 {
				f = mdBold
			}
			runs = w.inlines(runs, c, flags|f)
		case *gast.Link:
			start := len(runs)
			runs = w.inlines(runs, c, flags|mdLink)
			runs = w.url(runs, start, string(c.Destination), flags)
		case *gast.Image:
			start := len(runs)
			runs = w.inlines(runs, c, flags|mdLink)
			runs = w.url(runs, start, string(c.Destination), flags)
		case *gast.AutoLink:
			runs = append(runs, mdRun{string(c.URL(w.src)), flags | mdLink})
		case *gast.RawHTML:
			var b strings.Builder
			w.segments(&b, c.Segments)
			runs = append(runs, mdRun{b.String(), flags})
		case *east.Strikethrough:
			runs = w.inlines(runs, c, flags|mdStrike)
		case *east.TaskCheckBox:
			box := "[ ] "
			if c.IsChecked {
				box = "[x] "
			}
			runs = append(runs, mdRun{box, flags | mdMarker})
		default:
			runs = w.inlines(runs, c, flags)
		}
	}
	return runs
}

// url adds a link's destination after its text unless the text says it.
func (w *mdWriter) url(runs []mdRun, start int, dest string, flags mdFlags) []mdRun {
	if dest == "" {
		return runs
	}
	var b strings.Builder
	for _, r := range runs[start:] {
		b.WriteString(r.text)
	}
	if b.String() == dest {
		return runs
	}
	return append(runs, mdRun{" ", flags}, mdRun{dest, flags | mdURL})
}

// unescape resolves backslash escapes and character references.
func unescape(v []byte) string {
	if bytes.IndexByte(v, '\\') >= 0 {
		v = util.UnescapePunctuations(v)
	}
	if bytes.IndexByte(v, '&') >= 0 {
		v = util.ResolveEntityNames(util.ResolveNumericReferences(v))
	}
	return string(v)
}

// splitRuns is text as one run per line, joined by newline runs.
func splitRuns(s string, flags mdFlags) []mdRun {
	var runs []mdRun
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			runs = append(runs, mdRun{"\n", flags})
		}
		runs = append(runs, mdRun{line, flags})
	}
	return runs
}

func (w *mdWriter) styled(r mdRun) string { return w.r.look(r.flags).Render(r.text) }

// line joins runs, one pair of escape codes per change of look.
func (w *mdWriter) line(runs []mdRun) string {
	var b strings.Builder
	for i := 0; i < len(runs); {
		j := i + 1
		for j < len(runs) && runs[j].flags == runs[i].flags {
			j++
		}
		pre, post := w.r.look(runs[i].flags).Codes()
		b.WriteString(pre)
		for _, r := range runs[i:j] {
			b.WriteString(r.text)
		}
		b.WriteString(post)
		i = j
	}
	return b.String()
}

// wrap lays runs out in lines of at most width cells, breaking at spaces
// (and inside words longer than a line); a word made of several runs
// ("**bold**,") stays together.
func (w *mdWriter) wrap(runs []mdRun, width int) []string {
	var (
		out   []string
		cur   []mdRun // the line being filled
		curW  int
		word  []mdRun // the word being read
		wordW int
		space *mdRun // a space waiting between cur and the next word
	)
	flush := func() {
		out = append(out, w.line(cur))
		cur, curW, space = cur[:0], 0, nil
	}
	placeWord := func() {
		if len(word) == 0 {
			return
		}
		if curW > 0 {
			need := wordW
			if space != nil {
				need++
			}
			switch {
			case curW+need > width:
				flush()
			case space != nil:
				cur = append(cur, *space)
				curW++
			}
		}
		space = nil
		if curW+wordW <= width {
			cur = append(cur, word...)
			curW += wordW
		} else {
			// A word wider than the line: cut it rune by rune.
			for _, r := range word {
				for _, ch := range r.text {
					cw := cells.Width(string(ch))
					if curW+cw > width && curW > 0 {
						flush()
					}
					cur = append(cur, mdRun{string(ch), r.flags})
					curW += cw
				}
			}
		}
		word, wordW = word[:0], 0
	}
	for _, r := range runs {
		s := r.text
		for s != "" {
			i := strings.IndexAny(s, " \n")
			if i < 0 {
				word = append(word, mdRun{s, r.flags})
				wordW += cells.Width(s)
				break
			}
			if i > 0 {
				word = append(word, mdRun{s[:i], r.flags})
				wordW += cells.Width(s[:i])
			}
			placeWord()
			if s[i] == '\n' {
				flush()
			} else if curW > 0 {
				sp := mdRun{" ", r.flags}
				space = &sp
			}
			s = s[i+1:]
		}
	}
	placeWord()
	if curW > 0 || len(out) == 0 {
		flush()
	}
	return out
}

// table draws a table with columns as wide as their widest cell, shrunk
// (widest first) when the table would not fit; cells that do not fit are
// cut with an ellipsis.
func (w *mdWriter) table(t *east.Table, width int) []string {
	var rows [][][]mdRun
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cellsRuns [][]mdRun
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			flags := mdFlags(0)
			if _, head := row.(*east.TableHeader); head {
				flags = mdBold
			}
			cellsRuns = append(cellsRuns, w.inlines(nil, c, flags))
		}
		rows = append(rows, cellsRuns)
	}
	ncol := len(t.Alignments)
	for _, r := range rows {
		ncol = max(ncol, len(r))
	}
	if ncol == 0 {
		return nil
	}
	widths := make([]int, ncol)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], runsWidth(c))
		}
	}
	for sum(widths)+3*(ncol-1) > width {
		wi := 0
		for i, cw := range widths {
			if cw > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= 3 {
			break
		}
		widths[wi]--
	}
	sep := w.styled(mdRun{" │ ", mdBorder})
	out := make([]string, 0, len(rows)+1)
	for ri, r := range rows {
		var b strings.Builder
		for i := 0; i < ncol; i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			var c []mdRun
			if i < len(r) {
				c = r[i]
			}
			s := ansi.Truncate(w.line(c), widths[i], "…")
			pad := widths[i] - ansi.StringWidth(s)
			left := 0
			if i < len(t.Alignments) {
				switch t.Alignments[i] {
				case east.AlignRight:
					left = pad
				case east.AlignCenter:
					left = pad / 2
				}
			}
			b.WriteString(strings.Repeat(" ", left))
			b.WriteString(s)
			if i < ncol-1 {
				b.WriteString(strings.Repeat(" ", pad-left))
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if ri == 0 {
			parts := make([]string, ncol)
			for i, cw := range widths {
				parts[i] = strings.Repeat("─", cw)
			}
			out = append(out, w.styled(mdRun{strings.Join(parts, "─┼─"), mdBorder}))
		}
	}
	return out
}

func runsWidth(runs []mdRun) int {
	n := 0
	for _, r := range runs {
		n += cells.Width(r.text)
	}
	return n
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// TrimBlankLines drops blank lines at both ends of lines.
func TrimBlankLines(lines []string) []string {
	for len(lines) > 0 && ansi.Strip(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && ansi.Strip(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
