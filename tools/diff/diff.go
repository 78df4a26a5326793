// Package diff makes unified diffs of text, and splits a change into
// hunks a user can take or drop. It reads no file and knows no tool.
package diff

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// diffWork bounds the Myers search: (lines of the changed middle) × (edit
// distance) steps. Past it the middle is reported as one replaced block,
// which is still a correct diff, only not a minimal one.
const diffWork = 20_000_000

// maxEditDistance bounds the memory the Myers trace keeps (about d² ints).
const maxEditDistance = 2000

// opKind is one line's fate in a diff.
type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

// lineOp is one line of an edit script: a line of old (a), of new (b), or of
// both (equal). Indices are zero-based; the unused one is -1.
type lineOp struct {
	kind opKind
	a, b int
}

// UnifiedDiff returns the unified diff from old to new for the file path,
// with "--- a/path" / "+++ b/path" headers, "@@ -l,n +l,n @@" hunk headers
// and 3 lines of context, plus the number of lines added and removed. A line
// without a trailing newline is followed by "\ No newline at end of file".
// Equal inputs give an empty diff.
func UnifiedDiff(path, old, new string) (diff string, added, removed int) {
	if old == new {
		return "", 0, 0
	}
	a, b := splitLines(old), splitLines(new)
	ops := diffLines(a, b)
	for _, op := range ops {
		switch op.kind {
		case opInsert:
			added++
		case opDelete:
			removed++
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", path, path)
	for _, h := range hunks(ops) {
		writeHunk(&sb, h, a, b)
	}
	return sb.String(), added, removed
}

// splitLines splits s into lines that keep their "\n", so a last line
// without one stays distinguishable from a line with one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// diffLines returns an edit script turning a into b. The common prefix and
// suffix are peeled off first, which makes the usual small edit of a large
// file cheap; the middle goes through Myers' algorithm on interned lines.
func diffLines(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]lineOp, 0, len(a)+len(b)-pre-suf)
	for i := 0; i < pre; i++ {
		ops = append(ops, lineOp{opEqual, i, i})
	}
	ops = append(ops, diffMiddle(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, lineOp{opEqual, ai, bi})
	}
	return ops
}

// diffMiddle diffs the differing middles a and b, which start at line off of
// both files (the prefix they share has the same length in each).
func diffMiddle(a, b []string, off int) []lineOp {
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	limit := maxEditDistance
	if n := len(x) + len(y); n > 0 && diffWork/n < limit {
		limit = diffWork / n
	}
	script, ok := myers(x, y, limit)
	if !ok {
		// Too different to search cheaply: one block of deletions then
		// insertions is correct and readable.
		script = script[:0]
		for i := range x {
			script = append(script, lineOp{opDelete, i, -1})
		}
		for j := range y {
			script = append(script, lineOp{opInsert, -1, j})
		}
	}
	for i := range script {
		if script[i].a >= 0 {
			script[i].a += off
		}
		if script[i].b >= 0 {
			script[i].b += off
		}
	}
	return script
}

// myers finds a shortest edit script from a to b (Myers 1986, the greedy
// forward search), giving up with ok=false once the edit distance would pass
// maxD. It keeps, for each distance d, the furthest-reaching x of every
// diagonal k in [-d-1, d+1], enough to walk the path back.
func myers(a, b []int32, maxD int) (ops []lineOp, ok bool) {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil, true
	}
	max := n + m
	off := max + 1
	v := make([]int32, 2*max+3)
	var trace [][]int32 // trace[d][k+d+1] is v[k] before step d
	for d := 0; d <= max; d++ {
		if d > maxD {
			return nil, false
		}
		snap := make([]int32, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, n, m), true
			}
		}
	}
	return nil, false
}

// backtrack walks the Myers trace from (n, m) back to (0, 0) and returns the
// edit script in forward order.
func backtrack(trace [][]int32, n, m int) []lineOp {
	var rev []lineOp
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		snap := trace[d]
		at := func(k int) int { return int(snap[k+d+1]) }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, lineOp{opEqual, x, y})
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, lineOp{opInsert, -1, prevY})
			} else {
				rev = append(rev, lineOp{opDelete, prevX, -1})
			}
		}
		x, y = prevX, prevY
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// hunks groups an edit script into hunks: each change with up to diffContext
// equal lines around it, changes closer than 2×diffContext sharing a hunk.
func hunks(ops []lineOp) [][]lineOp {
	rs := hunkRanges(ops)
	out := make([][]lineOp, len(rs))
	for i, r := range rs {
		out[i] = ops[r[0]:r[1]]
	}
	return out
}

// hunkRanges is hunks as [start, stop) indexes into ops.
func hunkRanges(ops []lineOp) [][2]int {
	var out [][2]int
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == opEqual {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-diffContext, 0)
		end := i // one past the last change of this hunk
		for j := i; j < len(ops); j++ {
			if ops[j].kind != opEqual {
				end = j + 1
				continue
			}
			if j-end >= 2*diffContext {
				break
			}
		}
		stop := min(end+diffContext, len(ops))
		out = append(out, [2]int{start, stop})
		i = end
	}
	return out
}

// writeHunk writes one hunk with its "@@ -l,n +l,n @@" header. A side with
// no lines in the hunk can only be an empty file (otherwise context lines
// would be there), numbered 0 as diff(1) and git do.
func writeHunk(sb *strings.Builder, h []lineOp, a, b []string) {
	aLine, bLine := 0, 0
	aCount, bCount := 0, 0
	for _, op := range h {
		if op.a >= 0 {
			if aCount == 0 {
				aLine = op.a + 1
			}
			aCount++
		}
		if op.b >= 0 {
			if bCount == 0 {
				bLine = op.b + 1
			}
			bCount++
		}
	}
	fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@\n", aLine, aCount, bLine, bCount)
	for _, op := range h {
		var line string
		if op.kind == opInsert {
			line = b[op.b]
		} else {
			line = a[op.a]
		}
		sb.WriteByte(byte(op.kind))
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
