package markdown

import "strings"

// maxNesting is how many quotes and list items one line may open before
// Render flattens it. goldmark opens each container with work in the
// length of the line (text.Reader.LineOffset, a list item's check for a
// thematic break), so a line that opens n of them costs n times its
// length: 16 KB of `>` or of `- ` took 80 and 180 ms to parse, again on
// every render of a streaming answer. Drawing stops indenting at
// minNestWidth anyway, before 32 levels on a screen narrower than 76.
const maxNesting = 32

// flattenDeep returns src, whose tabs Clean has expanded, with every line
// that nests deeper than maxNesting cut back to maxNesting levels: the
// markers (and indentation) past the first maxNesting-1 levels go, except
// the line's last marker, so its text stays a quote or an item of its
// own. Lines are read once, each up to its text, so this costs linear
// time; a document without such a line comes back unchanged. A code line
// indented 64 columns or more before a list marker or ">" is cut too: telling
// it from a list needs the parse this avoids.
func flattenDeep(src string) string {
	var b strings.Builder
	done := 0 // src[:done] is in b
	for start := 0; start < len(src); {
		end := strings.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		if keep, last := deepPrefix(src[start:end]); keep >= 0 {
			b.WriteString(src[done : start+keep])
			done = start + last
		}
		start = end + 1
	}
	if done == 0 {
		return src
	}
	b.WriteString(src[done:])
	return b.String()
}

// deepPrefix reads the quote and list markers that open line, with the
// spaces before each, which count a level per two (the least a list item
// indents its content). When the line nests deeper than maxNesting, keep
// is where its first maxNesting-1 levels end and last is where its last
// marker starts; otherwise keep is -1.
func deepPrefix(line string) (keep, last int) {
	keep, last = 0, 0
	markers, spaces, depth := 0, 0, 0
	for i := 0; i < len(line); {
		if line[i] == ' ' {
			spaces++
		} else {
			n := markerLen(line[i:])
			if n == 0 {
				break // the text
			}
			markers++
			depth = markers + spaces/2
			last = i
			i += n - 1
		}
		i++
		if markers+spaces/2 < maxNesting {
			keep = i
		}
	}
	if depth <= maxNesting {
		return -1, -1
	}
	return keep, last
}

// markerLen is the length of the quote or list marker that s starts with,
// with the one space after it; 0 when s starts with none.
func markerLen(s string) int {
	n := 1
	switch s[0] {
	case '>':
		if len(s) > 1 && s[1] == ' ' {
			return 2
		}
		return 1
	case '-', '+', '*':
	default:
		n = 0
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n == len(s) || (s[n] != '.' && s[n] != ')') {
			return 0
		}
		n++
	}
	switch {
	case n == len(s):
		return n
	case s[n] == ' ':
		return n + 1
	}
	return 0 // "-5", "1.5", "**bold**": text
}
