package markdown

import "strings"

// Split finds, in markdown that grows at its end, where blocks end for
// certain, so a streaming answer can render them while the last, open
// block still streams as text. A block is certain to have ended at a blank
// line (outside a list item, which may go on after one), before a
// top-level list item (the previous item is finished), before and after
// an ATX heading, before a code fence opens and after it closes. Only
// complete lines are read, each once: a token costs a scan of itself.
type Split struct {
	scanned int     // bytes of text read, up to the end of a line
	bounds  []Bound // the ends of the finished segments, in order
	fence   string  // the marker of the open code fence, "" outside one
	inItem  bool    // the open fence belongs to a list item
	filled  bool    // the open segment has a non-blank line
	list    byte    // the open segment is a list item with this marker ('-', '*', '+', '.', ')'); 0 otherwise
	pending int     // > 0: blank lines after a list item end here; the next line decides
}

// Bound is the end of a finished segment, which is also the start of the
// next; tight says the next segment continues the same tight list, so no
// blank line goes between their renderings.
type Bound struct {
	At    int
	Tight bool
}

// Bounds are the ends of the finished segments, in order.
func (s *Split) Bounds() []Bound { return s.bounds }

// InFence reports whether the open segment is inside a code fence.
func (s *Split) InFence() bool { return s.fence != "" }

// Last is where the open segment starts.
func (s *Split) Last() int {
	if len(s.bounds) == 0 {
		return 0
	}
	return s.bounds[len(s.bounds)-1].At
}

// OpenTight reports whether the open segment continues the previous
// segment's tight list.
func (s *Split) OpenTight() bool {
	return len(s.bounds) > 0 && s.bounds[len(s.bounds)-1].Tight
}

// bound ends the open segment at offset at, unless it is still empty.
func (s *Split) bound(at int, tight bool) {
	if !s.filled {
		return
	}
	s.bounds = append(s.bounds, Bound{At: at, Tight: tight})
	s.filled, s.list = false, 0
}

// Feed reads the complete lines of text not read yet; text must extend
// the text of the previous call.
func (s *Split) Feed(text string) {
	for {
		nl := strings.IndexByte(text[s.scanned:], '\n')
		if nl < 0 {
			s.peek(text[s.scanned:], s.scanned)
			return
		}
		start, end := s.scanned, s.scanned+nl+1
		s.scanned = end
		s.line(strings.TrimRight(text[start:end-1], "\r"), start, end)
	}
}

// peek reads the unfinished last line, which starts at start: once it
// shows a top-level list item ("- x", "2. x"), or text at the margin after
// a blank line in a list, the block before it is finished, and need not wait for the new item's end to be rendered. The
// line is read again, in full, when its newline comes.
func (s *Split) peek(line string, start int) {
	if s.fence != "" {
		return
	}
	m, num := listMarker(line)
	switch {
	case m == 0 && s.pending > 0 && line != "" && line[0] != ' ':
		// Text at the margin after a blank line ends the list: its last
		// item renders while the paragraph after it streams.
		at := s.pending
		s.pending = 0
		s.bound(at, false)
	case m == 0:
	case s.pending > 0:
		at := s.pending
		s.pending = 0
		s.bound(at, false)
	case !s.filled:
	case s.list == m:
		s.bound(start, true)
	case s.list == 0 && (m == '.' || m == ')') && num != 1:
	default:
		s.bound(start, false)
	}
}

// line reads one complete line that spans [start, end) of the text.
func (s *Split) line(line string, start, end int) {
	if s.fence != "" {
		if closesFence(line, s.fence) {
			s.fence = ""
			if !s.inItem {
				s.bound(end, false)
			}
		}
		return
	}
	trimmed := strings.TrimLeft(line, " ")
	if strings.TrimSpace(trimmed) == "" {
		switch {
		case !s.filled:
		case s.list != 0:
			s.pending = end // an indented line may still continue the item
		default:
			s.bound(end, false)
		}
		return
	}
	indent := len(line) - len(trimmed)
	if s.pending > 0 {
		at := s.pending
		s.pending = 0
		if indent < 2 {
			s.bound(at, false)
		}
	}
	if f := opensFence(line); f != "" {
		if s.list != 0 && indent > 0 {
			s.fence, s.inItem = f, true
			return
		}
		s.bound(start, false)
		s.fence, s.inItem, s.filled = f, false, true
		return
	}
	if indent == 0 {
		if atxHeading(line) {
			s.bound(start, false)
			s.filled = true
			s.bound(end, false)
			return
		}
		if m, num := listMarker(line); m != 0 {
			switch {
			case !s.filled:
			case s.list == m:
				s.bound(start, true)
			case s.list == 0 && (m == '.' || m == ')') && num != 1:
				return // only a list starting at 1 interrupts a paragraph
			default:
				s.bound(start, false)
			}
			s.filled, s.list = true, m
			return
		}
	}
	s.filled = true
}

// atxHeading reports whether line is an ATX heading ("## Title").
func atxHeading(line string) bool {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(line) || line[n] == ' ')
}

// listMarker returns the marker of a list item line with content ('-',
// '*' or '+' for a bullet, '.' or ')' after an ordered item's number, and
// the number), or 0. A thematic break ("- - -", "***") is no item.
func listMarker(line string) (marker byte, num int) {
	if len(line) < 3 {
		return 0, 0
	}
	switch c := line[0]; c {
	case '-', '*', '+':
		if line[1] != ' ' || strings.TrimSpace(line[2:]) == "" || thematicBreak(line) {
			return 0, 0
		}
		return c, 0
	}
	i := 0
	for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
		num = num*10 + int(line[i]-'0')
		i++
	}
	if i == 0 || i+1 >= len(line) || (line[i] != '.' && line[i] != ')') || line[i+1] != ' ' || strings.TrimSpace(line[i+2:]) == "" {
		return 0, 0
	}
	return line[i], num
}

// thematicBreak reports whether line is three or more of one of -, * or _
// with only spaces between.
func thematicBreak(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case t[0]:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// ListPrefix returns how many bytes of line are its indentation and list
// marker with the space after it ("- ", "  12. "), and the prefix to draw
// instead ("• " for a bullet, as rendered markdown draws it); 0 when line
// is no list item. It lets the open block of a stream hang the wrapped
// lines of an item under its text.
func ListPrefix(line string) (n int, draw string) {
	t := strings.TrimLeft(line, " ")
	indent := len(line) - len(t)
	m, _ := listMarker(t)
	switch m {
	case 0:
		return 0, ""
	case '-', '*', '+':
		return indent + 2, line[:indent] + "• "
	}
	dot := strings.IndexAny(t, ".)")
	return indent + dot + 2, line[:indent+dot+2]
}

// opensFence returns the fence marker (``` or ~~~, as long as written) a
// line opens, or "".
func opensFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes a fence opened with marker.
func closesFence(line, marker string) bool {
	t := strings.TrimSpace(line)
	if len(t) < len(marker) || t[0] != marker[0] {
		return false
	}
	return strings.Trim(t, t[:1]) == ""
}
