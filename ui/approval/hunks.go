package approval

import (
	"fmt"
	"strings"

	"covey/theme"
	"covey/ui/cells"
	"covey/ui/diffview"
)

// This file holds review by hunk: in a write's approval and in a merge's,
// each hunk of the diff can be taken or dropped on its own (s), the
// cursor moving from hunk to hunk with } and {. The answer names the
// dropped hunks by their place in each file's diff (permission.Verdict.
// Dropped), which is the numbering diff.KeepHunks applies.

// hunkState is the per-hunk choice of an approval's diff.
type hunkState struct {
	rows    []int // the unified row of each hunk's header
	file    []int // the index of each hunk's file (0 for a write)
	local   []int // each hunk's number within its file's diff, from 0
	dropped []bool
	cursor  int
	// engaged: the user moved between hunks, so the cursor is on a hunk
	// (shown there) rather than on a file header.
	engaged bool
}

// newHunkState numbers the choosable hunks of d, marking their lines; nil
// when there are fewer than two (one hunk is the whole change, taken or
// dropped by the answer itself). A placeholder hunk ("@@ -0,0 +0,0 @@",
// as a binary file shows) is not choosable.
func newHunkState(d *diffview.View) *hunkState {
	h := &hunkState{}
	file, local, cur := 0, 0, 0
	for i := range d.Lines {
		l := &d.Lines[i]
		switch l.Kind {
		case diffview.File:
			file, local, cur = l.Old, 0, 0
			continue
		case diffview.Hunk:
			cur = 0
			if strings.HasPrefix(l.Text, "@@ -0,0 +0,0 @@") {
				continue
			}
			h.rows = append(h.rows, i)
			h.file = append(h.file, file)
			h.local = append(h.local, local)
			local++
			cur = len(h.rows)
		}
		l.Hunk = cur
	}
	if len(h.rows) < 2 {
		for i := range d.Lines {
			d.Lines[i].Hunk = 0
		}
		return nil
	}
	h.dropped = make([]bool, len(h.rows))
	return h
}

// onFirstHunk puts h's cursor on its first hunk, shown there, so s drops
// it at once (a write's review; a merge's starts on its first file). Nil
// is left alone.
func (h *hunkState) onFirstHunk() *hunkState {
	if h != nil {
		h.engaged = true
	}
	return h
}

// ChoosesHunks reports whether the shown diff's hunks can be chosen.
func (b *Block) ChoosesHunks() bool { return b.hunks != nil }

// ToggleHunk takes or drops the hunk under the cursor.
func (b *Block) ToggleHunk() {
	if b.hunks == nil {
		return
	}
	b.hunks.dropped[b.hunks.cursor] = !b.hunks.dropped[b.hunks.cursor]
	b.hunks.engaged = true
	b.rowCache = nil
	b.touch()
}

// MoveHunk moves the hunk cursor by delta hunks and scrolls its header
// into view.
func (b *Block) MoveHunk(delta int) {
	h := b.hunks
	if h == nil {
		return
	}
	n := len(h.rows)
	if h.engaged {
		h.cursor = ((h.cursor+delta)%n + n) % n
	}
	h.engaged = true
	if b.merge != nil {
		b.merge.cursor = h.file[h.cursor] // the file cursor follows
	}
	row := h.rows[h.cursor]
	if b.SideBySide(b.width) {
		for j, r := range b.splitRows() {
			if r.Full != nil && r.Full.Kind == diffview.Hunk && r.Full.Hunk == h.cursor+1 {
				row = j
				break
			}
		}
	}
	b.offset = min(max(row, 0), b.maxOffset())
	b.rowCache = nil
	b.touch()
}

// droppedCount is how many hunks are dropped (of files still chosen, in
// a merge).
func (b *Block) droppedCount() int {
	if b.hunks == nil {
		return 0
	}
	n := 0
	for i, d := range b.hunks.dropped {
		if d && (b.merge == nil || b.merge.selected[b.hunks.file[i]]) {
			n++
		}
	}
	return n
}

// AllDropped reports whether nothing of the change is taken.
func (b *Block) AllDropped() bool {
	if b.hunks == nil || b.merge != nil {
		return false
	}
	return b.droppedCount() == len(b.hunks.rows)
}

// fileHunksDropped reports whether every choosable hunk of file i is
// dropped (a file with none is never).
func (b *Block) fileHunksDropped(i int) bool {
	if b.hunks == nil {
		return false
	}
	any := false
	for j, f := range b.hunks.file {
		if f != i {
			continue
		}
		if !b.hunks.dropped[j] {
			return false
		}
		any = true
	}
	return any
}

// DroppedHunks is the answer's Dropped: by path, the hunks left out of
// each chosen file; nil when none is.
func (b *Block) DroppedHunks() map[string][]int {
	if b.hunks == nil {
		return nil
	}
	var out map[string][]int
	for i, d := range b.hunks.dropped {
		if !d {
			continue
		}
		path := b.req.Path
		if b.merge != nil {
			f := b.hunks.file[i]
			if !b.merge.selected[f] || b.fileHunksDropped(f) {
				continue // the whole file is left out instead
			}
			path = b.merge.files[f].Path
		}
		if out == nil {
			out = map[string][]int{}
		}
		out[path] = append(out[path], b.hunks.local[i])
	}
	return out
}

// Trimmed reports whether the answer takes less than the whole change:
// a hunk or (in a merge) a file is dropped.
func (b *Block) Trimmed() bool {
	if b.droppedCount() > 0 {
		return true
	}
	return b.merge != nil && b.ChosenFiles() != nil
}

// takenCounts are the lines added and removed by the hunks taken: what
// lands when some are dropped.
func (b *Block) takenCounts() (added, removed int) {
	for i := range b.diff.Lines {
		l := &b.diff.Lines[i]
		if b.isDropped(l) {
			continue
		}
		switch l.Kind {
		case diffview.Added:
			added++
		case diffview.Removed:
			removed++
		}
	}
	return added, removed
}

// hunkRow draws a hunk's header with its choice: "▸ [x] @@ -1,6 +1,6 @@".
func (b *Block) hunkRow(l diffview.Line, width int, st *theme.Styles) string {
	i := l.Hunk - 1
	mark := "  "
	if i == b.hunks.cursor && b.hunks.engaged && b.active {
		mark = "▸ "
	}
	box, style := "[x] ", st.Diff.Hunk
	if b.hunks.dropped[i] {
		box, style = "[ ] ", st.Approval.Hint
	}
	text := box + l.Text
	if b.hunks.dropped[i] {
		text += "  (dropped)"
	}
	return cells.Pad(st.Approval.Key.Render(mark)+style.Render(text), width)
}

// dimStyles are st with the diff's colours of added and removed lines
// muted: how a dropped hunk's lines are drawn.
func (b *Block) dimStyles(st *theme.Styles) *theme.Styles {
	if b.dim == nil || b.dimOf != st {
		d := *st
		d.Diff.Added, d.Diff.Removed = st.Approval.Hint, st.Approval.Hint
		b.dim, b.dimOf = &d, st
	}
	return b.dim
}

// isDropped reports whether l belongs to a dropped hunk.
func (b *Block) isDropped(l *diffview.Line) bool {
	return l != nil && b.hunks != nil && l.Hunk > 0 && b.hunks.dropped[l.Hunk-1]
}

// hunkNote is "(2 of 3 hunks)" for a header, "" when all are taken.
func (b *Block) hunkNote() string {
	n := b.droppedCount()
	if n == 0 {
		return ""
	}
	total := len(b.hunks.rows)
	return fmt.Sprintf("(%d of %d hunks)", total-n, total)
}

// fileMoved puts the hunk cursor on the first hunk of file i, leaving the
// cursor on the file's header until a hunk key moves it.
func (b *Block) fileMoved(i int) {
	if b.hunks == nil {
		return
	}
	b.hunks.engaged = false
	for j, f := range b.hunks.file {
		if f == i {
			b.hunks.cursor = j
			return
		}
	}
}
