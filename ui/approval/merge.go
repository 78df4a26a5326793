package approval

import (
	"fmt"
	"strings"

	"covey/permission"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/diffview"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// This file holds the approval of a child's worktree merge: every file the
// child changed in one scrollable diff, each under a header row that says
// whether the file is chosen; y applies the chosen files, n discards the
// whole change, space chooses or drops the file under the cursor, ]/[ move
// the cursor from file to file.

// mergeState is the per-file choice of a merge approval.
type mergeState struct {
	files    []permission.FileChange
	rows     []int // the unified row of each file's header
	selected []bool
	cursor   int
}

// newMergeDiffView joins the files' diffs into one view, each file headed
// by a diffFile line whose old field holds the file's index.
func newMergeDiffView(files []permission.FileChange) (*diffview.View, []int) {
	d := &diffview.View{}
	rows := make([]int, len(files))
	for i, f := range files {
		rows[i] = len(d.Lines)
		d.Lines = append(d.Lines, diffview.Line{Kind: diffview.File, Old: i, Text: f.Path})
		fv := diffview.New(f.Diff)
		d.Lines = append(d.Lines, fv.Lines...)
		d.Digits = max(d.Digits, fv.Digits)
	}
	return d, rows
}

// IsMerge reports whether the block asks to merge a child's worktree.
func (b *Block) IsMerge() bool { return b.merge != nil }

// ChosenFiles is the answer's Files: nil when every file is chosen.
func (b *Block) ChosenFiles() []string {
	if b.merge == nil {
		return nil
	}
	var out []string
	all := true
	for i, f := range b.merge.files {
		if b.merge.selected[i] && !b.fileHunksDropped(i) {
			out = append(out, f.Path)
		} else {
			all = false
		}
	}
	if all {
		return nil
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// ToggleFile chooses or drops the file under the cursor.
func (b *Block) ToggleFile() {
	if b.merge == nil || len(b.merge.files) == 0 {
		return
	}
	b.merge.selected[b.merge.cursor] = !b.merge.selected[b.merge.cursor]
	b.rowCache = nil
	b.touch()
}

// MoveFile moves the file cursor by delta files and scrolls its header
// into view.
func (b *Block) MoveFile(delta int) {
	if b.merge == nil || len(b.merge.files) == 0 {
		return
	}
	n := len(b.merge.files)
	b.merge.cursor = ((b.merge.cursor+delta)%n + n) % n
	b.fileMoved(b.merge.cursor)
	b.rowCache = nil
	b.scrollToFile(b.merge.cursor)
	b.touch()
}

// scrollToFile puts file i's header at the top of the body window.
func (b *Block) scrollToFile(i int) {
	row := b.merge.rows[i]
	if b.SideBySide(b.width) {
		for j, r := range b.splitRows() {
			if r.Full != nil && r.Full.Kind == diffview.File && r.Full.Old == i {
				row = j
				break
			}
		}
	}
	b.offset = min(max(row, 0), b.maxOffset())
}

// fileRow draws the header row of file i: cursor, choice, path, counts.
func (b *Block) fileRow(i, width int, st *theme.Styles) string {
	f := b.merge.files[i]
	mark := "  "
	if i == b.merge.cursor && b.active && (b.hunks == nil || !b.hunks.engaged) {
		mark = "▸ "
	}
	box := "[x] "
	style := st.Approval.Target
	switch {
	case !b.merge.selected[i] || b.fileHunksDropped(i):
		box, style = "[ ] ", st.Approval.Hint
	case b.fileHunksPartly(i):
		box = "[~] " // some of its hunks dropped
	}
	s := st.Approval.Key.Render(mark) + style.Render(box+f.Path)
	switch {
	case f.Created:
		s += " " + st.Approval.Hint.Render("(new file)")
	case strings.Contains(f.Diff, "+++ /dev/null"):
		s += " " + st.Approval.Hint.Render("(deleted)")
	}
	s += "  " + st.Diff.Added.Render(fmt.Sprintf("+%d", f.Added)) + " " + st.Diff.Removed.Render(fmt.Sprintf("-%d", f.Removed))
	return cells.Pad(s, width)
}

// mergeHeader is "? Apply the child's changes to 3 files  +12 -4".
func (b *Block) mergeHeader(ctx transcript.RenderContext, width int) string {
	st := ctx.Styles
	added, removed, chosen := 0, 0, 0
	for i, f := range b.merge.files {
		added += f.Added
		removed += f.Removed
		if b.merge.selected[i] {
			chosen++
		}
	}
	n := len(b.merge.files)
	s := st.Approval.Title.Render(fmt.Sprintf("? Apply its changes to %s", transcript.CountNoun(n, "file", "files")))
	if chosen != n {
		s += " " + st.Approval.Hint.Render(fmt.Sprintf("(%d chosen)", chosen))
	}
	s += "  " + st.Diff.Added.Render(fmt.Sprintf("+%d", added)) + " " + st.Diff.Removed.Render(fmt.Sprintf("-%d", removed))
	s += "  " + st.Approval.Hint.Render("from "+b.req.Path)
	return cells.Fit(s, width)
}

// mergeHints are the keys that answer a merge.
func (b *Block) mergeHints(k *Keys, width int) [][2]string {
	layout := "side by side"
	if b.SideBySide(width) {
		layout = "unified"
	}
	yes, no, note := keys.AnswerWords(true, false, b.Trimmed())
	h := [][2]string{{keys.Name(k.ApproveYes), yes}, {keys.Name(k.ApproveNo), no}, {keys.Name(k.ApproveFeedback), note}, {keys.Name(k.ApproveKeep), "keep for later"}}
	h = append(h, b.choiceHints(k)...)
	return append(h, [2]string{keys.Name(k.ApproveLayout), layout}, [2]string{keys.Name(k.Cancel), "cancel turn (keeps the change)"})
}

// choiceHints are the hints of choosing what lands: files, when there are
// several, and hunks, when they can be chosen.
func (b *Block) choiceHints(k *Keys) [][2]string {
	var h [][2]string
	if len(b.merge.files) > 1 {
		h = append(h, [2]string{keys.Name(k.ApproveFileToggle), "choose file"},
			[2]string{keys.Name(k.ApproveFileNext) + "/" + keys.Name(k.ApproveFilePrev), "next/previous file"})
	}
	if b.hunks != nil {
		h = append(h, [2]string{keys.Name(k.ApproveHunkToggle), "take/drop hunk"},
			[2]string{keys.Name(k.ApproveHunkNext) + "/" + keys.Name(k.ApproveHunkPrev), "next/previous hunk"})
	}
	return h
}

// mergeRecord is the one line an answered merge leaves.
func (b *Block) mergeRecord(st *theme.Styles) string {
	n := len(b.merge.files)
	switch b.outcome {
	case OutcomeAllowed:
		chosen := n
		if files := b.ChosenFiles(); files != nil {
			chosen = len(files)
		}
		text := fmt.Sprintf("%s apply %s", cells.GlyphOK, transcript.CountNoun(n, "file", "files"))
		if chosen != n {
			text = fmt.Sprintf("%s apply %d of %d files", cells.GlyphOK, chosen, n)
		}
		if d := len(flatten(b.DroppedHunks())); d > 0 {
			text += fmt.Sprintf(", %s dropped", transcript.CountNoun(d, "hunk", "hunks"))
		}
		if b.detail != "" {
			text += ": " + cells.OneLine(b.detail)
		}
		return st.Approval.Allowed.Render(text)
	case OutcomeKept:
		return st.Approval.Edited.Render(fmt.Sprintf("⏸ kept %s on its branch for later", transcript.CountNoun(n, "file", "files")))
	default:
		text := fmt.Sprintf("%s discarded %s", cells.GlyphFailed, transcript.CountNoun(n, "file", "files"))
		if b.detail != "" {
			text += ": " + cells.OneLine(b.detail)
		}
		return st.Approval.Denied.Render(text)
	}
}

// fileHunksPartly reports whether some, not all, of file i's hunks are
// dropped.
func (b *Block) fileHunksPartly(i int) bool {
	if b.hunks == nil {
		return false
	}
	for j, f := range b.hunks.file {
		if f == i && b.hunks.dropped[j] {
			return !b.fileHunksDropped(i)
		}
	}
	return false
}

// flatten lists every hunk number of a Dropped map.
func flatten(m map[string][]int) []int {
	var out []int
	for _, v := range m {
		out = append(out, v...)
	}
	return out
}
