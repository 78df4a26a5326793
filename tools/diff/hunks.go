package diff

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// This file lets a user take part of a proposed change: the hunks of
// UnifiedDiff(path, old, new) are numbered from 0 in the order the diff
// shows them, and KeepHunks builds the file with the taken hunks only.
// Both come from one edit script, so a hunk the user saw is the hunk
// that is left out, whatever its neighbours, line endings or last line.

// Hunk is one hunk of a change as the model is told about it: its "@@"
// header and its lines, each with its marker (' ', '-', '+'), line
// endings as in the file.
type Hunk struct {
	Index  int // 0-based, in the diff's order
	Header string
	Lines  []string
}

// ErrHunkIndex is KeepHunks' error for a hunk number the diff lacks.
var ErrHunkIndex = errors.New("no such hunk")

// HunkCount is the number of hunks UnifiedDiff(path, old, updated) shows.
func HunkCount(old, updated string) int {
	if old == updated {
		return 0
	}
	return len(hunkRanges(diffLines(splitLines(old), splitLines(updated))))
}

// KeepHunks returns old with the hunks of its diff to updated applied,
// except those numbered in dropped, and the dropped hunks as the diff
// shows them. With nothing dropped it returns updated. A change made of
// one hunk dropped gives old back.
func KeepHunks(old, updated string, dropped []int) (string, []Hunk, error) {
	if len(dropped) == 0 {
		return updated, nil, nil
	}
	a, b := splitLines(old), splitLines(updated)
	ops := diffLines(a, b)
	rs := hunkRanges(ops)
	for _, i := range dropped {
		if i < 0 || i >= len(rs) {
			return "", nil, fmt.Errorf("%w: hunk %d of a change with %d", ErrHunkIndex, i+1, len(rs))
		}
	}
	drop := make([]bool, len(ops))
	var out []Hunk
	for hi, r := range rs {
		if !slices.Contains(dropped, hi) {
			continue
		}
		for j := r[0]; j < r[1]; j++ {
			drop[j] = true
		}
		var sb strings.Builder
		writeHunk(&sb, ops[r[0]:r[1]], a, b)
		text := strings.TrimSuffix(sb.String(), "\n")
		header, body, _ := strings.Cut(text, "\n")
		out = append(out, Hunk{Index: hi, Header: header, Lines: strings.Split(body, "\n")})
	}
	var sb strings.Builder
	sb.Grow(len(old) + len(updated))
	dangling := false // the last line written has no newline
	for j, op := range ops {
		var line string
		switch {
		case op.kind == opEqual, op.kind == opDelete && drop[j]:
			line = a[op.a]
		case op.kind == opInsert && !drop[j]:
			line = b[op.b]
		default:
			continue
		}
		// Only a file's last line may lack its newline: a choice that
		// would put such a line in the middle (the last line changed in
		// one hunk, lines added after it in another) cannot be made, and
		// is refused rather than run two lines together.
		if dangling {
			return "", nil, errors.New("these hunks cannot be taken apart (they share the file's last line); take or drop them together")
		}
		sb.WriteString(line)
		dangling = !strings.HasSuffix(line, "\n")
	}
	return sb.String(), out, nil
}

// DescribeHunks words dropped hunks for the model: each header and its
// lines, up to limit bytes in all.
func DescribeHunks(hs []Hunk, limit int) string {
	var sb strings.Builder
	for _, h := range hs {
		sb.WriteString(h.Header + "\n")
		for _, l := range h.Lines {
			sb.WriteString(strings.TrimRight(l, "\r") + "\n")
		}
	}
	s := sb.String()
	if len(s) > limit {
		cut := strings.LastIndexByte(s[:limit], '\n') + 1
		s = s[:cut] + fmt.Sprintf("… %d more bytes of dropped hunks …\n", len(s)-cut)
	}
	return s
}
