// Package excerpt shortens text to one line, for labels, summaries,
// progress lines and lists: the one helper every package uses for it.
package excerpt

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// Line is the first line of s with surrounding whitespace (and a \r)
// trimmed; leading blank lines are skipped.
func Line(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// LineMore is Line followed by " …" when more text follows the first line.
func LineMore(s string) string {
	t := strings.TrimSpace(s)
	l := Line(t)
	if len(l) < len(t) {
		return l + " " + Ellipsis
	}
	return l
}

// Cut puts s on one line of at most n runes: every run of whitespace
// (newlines included) becomes one space, and a cut ends with "…".
func Cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + Ellipsis
}

// Clip keeps the first n runes of s as they are (whitespace, newlines and
// all) and marks a cut with "…": for text quoted whole, such as a line
// whose indentation matters or a server's error body.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + Ellipsis
		}
		count++
	}
	return s
}

// TermSafe drops terminal escape sequences and control characters (but
// newlines and tabs) from text bound for a terminal: text from a model, a
// file or a pipe could otherwise hide the cursor, clear the screen or set
// the window title.
func TermSafe(s string) string {
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
}
