package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The three GitHub extensions the renderer draws (tables, strikethrough,
// task lists), written against goldmark's parser interfaces. goldmark's
// own extension package would do, but linking it costs every covey start,
// --version included, 1.55 M instructions of package init (chiefly the
// compilation of its linkify regexps, a feature covey does not use); the
// AST node types come from extension/ast, whose init is free.

// gfmOptions are the parser options that add the three extensions.
func gfmOptions() []parser.Option {
	return []parser.Option{
		parser.WithParagraphTransformers(util.Prioritized(tableTransformer{}, 200)),
		parser.WithInlineParsers(
			util.Prioritized(strikeParser{}, 500),
			util.Prioritized(taskParser{}, 0),
		),
	}
}

// tableTransformer turns a paragraph whose line i+1 is a delimiter row
// (`|---|:--:|`) with as many cells as line i into a table: line i is the
// header, the paragraph's lines after the delimiter row are the body, and
// lines before the header stay a paragraph. A body row with too many
// cells loses the extra ones; one with too few is padded by the renderer.
type tableTransformer struct{}

// Transform implements parser.ParagraphTransformer.
func (tableTransformer) Transform(para *ast.Paragraph, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	lines := para.Lines()
	for i := 1; i < lines.Len(); i++ {
		delim := lines.At(i)
		aligns, ok := delimiterRow(src, delim)
		if !ok {
			continue
		}
		head := lines.At(i - 1)
		if !bytes.ContainsRune(head.Value(src), '|') && !bytes.ContainsRune(delim.Value(src), '|') {
			continue // "a" over "-:-" is no table: one of the two rows needs a pipe
		}
		headCells := rowCells(src, head)
		if len(headCells) != len(aligns) {
			continue
		}
		table := east.NewTable()
		table.Alignments = aligns
		table.AppendChild(table, east.NewTableHeader(tableRow(headCells, aligns)))
		for j := i + 1; j < lines.Len(); j++ {
			cells := rowCells(src, lines.At(j))
			if len(cells) > len(aligns) {
				cells = cells[:len(aligns)]
			}
			table.AppendChild(table, tableRow(cells, aligns))
		}
		parent := para.Parent()
		if i == 1 {
			parent.ReplaceChild(parent, para, table)
		} else {
			lines.SetSliced(0, i-1)
			parent.InsertAfter(parent, para, table)
		}
		return
	}
}

// tableRow makes a row of cells, each holding its text for the inline
// parser.
func tableRow(cells []text.Segment, aligns []east.Alignment) *east.TableRow {
	row := east.NewTableRow(aligns)
	for i, seg := range cells {
		cell := east.NewTableCell()
		if i < len(aligns) {
			cell.Alignment = aligns[i]
		}
		cell.Lines().Append(seg)
		row.AppendChild(row, cell)
	}
	return row
}

// rowCells splits a table row at its unescaped pipes, without the
// optional pipes at either end, each cell trimmed of spaces. An escaped
// pipe stays in its cell, where the inline parser turns `\|` into `|`.
func rowCells(src []byte, line text.Segment) []text.Segment {
	line = line.TrimLeftSpace(src)
	line = line.TrimRightSpace(src)
	v := line.Value(src)
	start, stop := 0, len(v)
	if stop > 0 && v[0] == '|' {
		start++
	}
	if stop > start && v[stop-1] == '|' && !escaped(v, stop-1) {
		stop--
	}
	var cells []text.Segment
	from := start
	for k := start; k <= stop; k++ {
		if k < stop && (v[k] != '|' || escaped(v, k)) {
			continue
		}
		cell := text.NewSegment(line.Start+from, line.Start+k)
		cell = cell.TrimLeftSpace(src)
		cell = cell.TrimRightSpace(src)
		cells = append(cells, cell)
		from = k + 1
	}
	return cells
}

// escaped reports whether v[k] follows an odd number of backslashes.
func escaped(v []byte, k int) bool {
	n := 0
	for k--; k >= 0 && v[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// delimiterRow reads a table's delimiter row: every cell dashes, with a
// colon at the left, the right or both ends for its column's alignment.
func delimiterRow(src []byte, line text.Segment) ([]east.Alignment, bool) {
	cells := rowCells(src, line)
	if len(cells) == 0 {
		return nil, false
	}
	aligns := make([]east.Alignment, len(cells))
	for i, c := range cells {
		v := c.Value(src)
		left, right := bytes.HasPrefix(v, []byte(":")), bytes.HasSuffix(v, []byte(":"))
		dashes := bytes.TrimSuffix(bytes.TrimPrefix(v, []byte(":")), []byte(":"))
		if len(dashes) == 0 || len(bytes.Trim(dashes, "-")) != 0 {
			return nil, false
		}
		switch {
		case left && right:
			aligns[i] = east.AlignCenter
		case left:
			aligns[i] = east.AlignLeft
		case right:
			aligns[i] = east.AlignRight
		default:
			aligns[i] = east.AlignNone
		}
	}
	return aligns, true
}

// strikeDelimiters are the tildes of ~~strikethrough~~ (one or two, as
// GitHub accepts), paired like emphasis.
type strikeDelimiters struct{}

func (strikeDelimiters) IsDelimiter(b byte) bool { return b == '~' }

func (strikeDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.OriginalLength == closer.OriginalLength
}

func (strikeDelimiters) OnMatch(int) ast.Node { return east.NewStrikethrough() }

// strikeParser finds the tildes.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

// Parse implements parser.InlineParser.
func (strikeParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelimiters{})
	if d == nil {
		return nil
	}
	if d.OriginalLength > 2 {
		// Three tildes or more are text, all of them (not a shorter run
		// found again one tilde further on).
		block.Advance(d.OriginalLength)
		return ast.NewTextSegment(seg.WithStop(seg.Start + d.OriginalLength))
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// taskParser reads the `[ ]` or `[x]` that opens a list item's first
// paragraph as a checkbox.
type taskParser struct{}

func (taskParser) Trigger() []byte { return []byte{'['} }

// Parse implements parser.InlineParser.
func (taskParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	if parent.HasChildren() {
		return nil // not at the start of the item's text
	}
	item, ok := parent.Parent().(*ast.ListItem)
	if !ok || item.FirstChild() != parent {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 4 || line[2] != ']' || (line[3] != ' ' && line[3] != '\t') {
		return nil
	}
	var checked bool
	switch line[1] {
	case ' ':
	case 'x', 'X':
		checked = true
	default:
		return nil
	}
	block.Advance(3)
	return east.NewTaskCheckBox(checked)
}
