package lsp

import (
	"os"
	"strings"
	"unicode/utf8"
)

// maxLineFile bounds how much of a file is read to convert columns.
const maxLineFile = 8 << 20

// lineOf returns line n (zero-based) of text, without its ending.
func lineOf(text string, n int) string {
	for i := 0; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSuffix(text, "\r")
}

// utf16Col converts a column counted in runes from 1 into the protocol's
// zero-based UTF-16 offset on line.
func utf16Col(line string, runeCol int) int {
	u := 0
	i := 1
	for _, r := range line {
		if i >= runeCol {
			break
		}
		u += utf16Len(r)
		i++
	}
	if i < runeCol { // past the end: keep going as if spaces
		u += runeCol - i
	}
	return u
}

// runeCol converts the protocol's zero-based UTF-16 offset on line into a
// column counted in runes from 1.
func runeCol(line string, u16 int) int {
	col, u := 1, 0
	for _, r := range line {
		if u >= u16 {
			return col
		}
		u += utf16Len(r)
		col++
	}
	return col + max(0, u16-u)
}

func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// fileLines reads files to convert columns, each once per lookup.
type fileLines map[string]string

// line returns line n (zero-based) of the file at abs ("" if unreadable).
func (f fileLines) line(abs string, n int) string {
	text, ok := f[abs]
	if !ok {
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxLineFile {
			b, _ := os.ReadFile(abs)
			text = string(b)
		}
		f[abs] = text
	}
	return lineOf(text, n)
}
