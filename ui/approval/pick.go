package approval

import (
	"fmt"
	"strings"

	"covey/agent"
	"covey/permission"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/diffview"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// This file holds the review of a best-of-N task: the attempts side by
// side, one column each (its report, files, +/-, tokens and cost), and
// below them the diff of the attempt shown, chosen by file and by hunk as
// in a merge. ←/→ show another attempt; y applies the one shown, n none.

// pickAttemptRows is how many rows each attempt's column takes at most
// (one more than without checks: see pickRows).
const pickAttemptRows = 6

// pickRows is how many rows the columns take: the check row only when an
// attempt was checked.
func (p *pickState) pickRows() int {
	for _, a := range p.attempts {
		if a.Check != nil {
			return pickAttemptRows
		}
	}
	return pickAttemptRows - 1
}

// pickState is a best-of-N review: every attempt's diff and choices, and
// which attempt is shown.
type pickState struct {
	attempts []permission.Attempt
	views    []pickView
	cur      int
}

// pickView is one attempt's diff and the user's choices in it, kept
// while another attempt is shown.
type pickView struct {
	diff   *diffview.View
	merge  *mergeState
	hunks  *hunkState
	split  []diffview.SplitRow
	offset int
}

// newPick builds the review of req's attempts, showing the first.
func (b *Block) newPick() {
	p := &pickState{attempts: b.req.Attempts}
	for _, a := range p.attempts {
		d, rows := newMergeDiffView(a.Changes)
		ms := &mergeState{files: a.Changes, rows: rows, selected: make([]bool, len(a.Changes))}
		for i := range ms.selected {
			ms.selected[i] = true
		}
		p.views = append(p.views, pickView{diff: d, merge: ms, hunks: newHunkState(d)})
	}
	b.pick = p
	if len(p.views) > 0 {
		v := p.views[0]
		b.diff, b.merge, b.hunks = v.diff, v.merge, v.hunks
	} else {
		b.diff, b.merge = &diffview.View{}, &mergeState{}
	}
}

// IsPick reports whether the block chooses among a task's attempts.
func (b *Block) IsPick() bool { return b.pick != nil }

// MoveAttempt shows the attempt delta places on, keeping each one's
// choices and scroll.
func (b *Block) MoveAttempt(delta int) {
	p := b.pick
	if p == nil || len(p.views) < 2 {
		return
	}
	p.views[p.cur] = pickView{diff: b.diff, merge: b.merge, hunks: b.hunks, split: b.split, offset: b.offset}
	n := len(p.views)
	p.cur = ((p.cur+delta)%n + n) % n
	v := p.views[p.cur]
	b.diff, b.merge, b.hunks, b.split = v.diff, v.merge, v.hunks, v.split
	b.offset = min(v.offset, b.maxOffset())
	b.rowCache = nil
	b.touch()
}

// pickHeader is "? Pick one of 3 attempts  showing 2: fix-retry".
func (b *Block) pickHeader(ctx transcript.RenderContext, width int) string {
	st := ctx.Styles
	p := b.pick
	s := st.Approval.Title.Render(fmt.Sprintf("? Apply one of %d attempts", len(p.attempts)))
	if len(p.attempts) > 0 {
		a := p.attempts[p.cur]
		s += "  " + st.Approval.Hint.Render("showing ") + st.Approval.Target.Render(fmt.Sprintf("%d: %s", p.cur+1, a.Name))
		if n := len(b.merge.files); n > 0 {
			s += " " + st.Approval.Hint.Render("("+transcript.CountNoun(n, "file", "files")+")")
		}
		if note := b.hunkNote(); note != "" {
			s += " " + st.Approval.Hint.Render(note)
		}
	}
	return cells.Fit(s, width)
}

// pickColumns draws the attempts side by side, pickAttemptRows rows, the
// one shown marked.
func (b *Block) pickColumns(st *theme.Styles, width int) []string {
	p := b.pick
	n := len(p.attempts)
	if n == 0 {
		return nil
	}
	sep := st.Approval.Separator.Render(diffview.SplitSeparator)
	colW := max((width-(n-1)*len(diffview.SplitSeparator))/n, 8)
	cols := make([][]string, n)
	for i, a := range p.attempts {
		added, removed := 0, 0
		for _, f := range a.Changes {
			added += f.Added
			removed += f.Removed
		}
		mark, title := "  ", st.Approval.Hint
		if i == p.cur {
			mark, title = "▸ ", st.Approval.Target
		}
		cost := ""
		if a.Cost > 0 {
			cost = " · " + transcript.Dollars(a.Cost)
		}
		report := cells.Wrap(cells.Clean(strings.Join(strings.Fields(a.Report), " ")), max(colW-2, 1))
		for len(report) < 2 {
			report = append(report, "")
		}
		cols[i] = []string{
			st.Approval.Key.Render(mark) + title.Render(fmt.Sprintf("%d %s", i+1, a.Name)) + st.Approval.Hint.Render(" "+a.Status),
			st.Approval.Hint.Render("  "+transcript.CountNoun(len(a.Changes), "file", "files")+" ") + st.Diff.Added.Render(fmt.Sprintf("+%d", added)) +
				" " + st.Diff.Removed.Render(fmt.Sprintf("-%d", removed)),
		}
		if p.pickRows() == pickAttemptRows {
			cols[i] = append(cols[i], checkLine(st, a.Check))
		}
		cols[i] = append(cols[i],
			st.Approval.Hint.Render("  "+agent.FormatTokens(a.Tokens)+" tok"+cost),
			st.Approval.Hint.Render("  "+report[0]),
			st.Approval.Hint.Render("  "+report[1]),
		)
	}
	out := make([]string, p.pickRows())
	for r := range out {
		parts := make([]string, n)
		for i := range cols {
			parts[i] = cells.Pad(cols[i][r], colW)
		}
		out[r] = strings.Join(parts, sep)
	}
	return out
}

// pickHints are the keys that answer a best-of-N review.
func (b *Block) pickHints(k *Keys, width int) [][2]string {
	layout := "side by side"
	if b.SideBySide(width) {
		layout = "unified"
	}
	yes, no, note := keys.AnswerWords(true, true, b.Trimmed())
	h := [][2]string{{keys.Name(k.ApproveYes), yes}, {keys.Name(k.ApproveNo), no}, {keys.Name(k.ApproveFeedback), note},
		{keys.Name(k.ApproveKeep), "keep all for later"}}
	if len(b.pick.attempts) > 1 {
		h = append(h, [2]string{keys.Name(k.ApproveAttemptPrev) + "/" + keys.Name(k.ApproveAttemptNext), "other attempt"})
	}
	h = append(h, b.choiceHints(k)...)
	return append(h, [2]string{keys.Name(k.ApproveLayout), layout}, [2]string{keys.Name(k.Cancel), "cancel turn (keeps them all)"})
}

// pickRecord is the one line an answered review leaves.
func (b *Block) pickRecord(st *theme.Styles) string {
	p := b.pick
	switch b.outcome {
	case OutcomeAllowed:
		a := p.attempts[p.cur]
		text := fmt.Sprintf("%s applied attempt %d (%s)", cells.GlyphOK, p.cur+1, a.Name)
		if b.Trimmed() {
			text += ", in part"
		}
		if b.detail != "" {
			text += ": " + cells.OneLine(b.detail)
		}
		return st.Approval.Allowed.Render(text)
	case OutcomeKept:
		return st.Approval.Edited.Render(fmt.Sprintf("⏸ kept all %d attempts on their branches for later", len(p.attempts)))
	default:
		text := fmt.Sprintf("%s applied none of %d attempts", cells.GlyphFailed, len(p.attempts))
		if b.detail != "" {
			text += ": " + cells.OneLine(b.detail)
		}
		return st.Approval.Denied.Render(text)
	}
}

// checkLine is an attempt's check and diagnostics: "✓ check passed",
// "✗ check failed (exit 1)", "· 2 errors"; "no check" without any.
func checkLine(st *theme.Styles, c *permission.AttemptCheck) string {
	if c == nil {
		return st.Approval.Hint.Render("  no check")
	}
	var out string
	switch {
	case c.Command == "":
		out = st.Approval.Hint.Render("  no check")
	case c.Error != "":
		out = st.Tool.Error.Render("  "+cells.GlyphFailed+" check ") + st.Approval.Hint.Render(c.Error)
	case c.TimedOut:
		out = st.Tool.Error.Render("  " + cells.GlyphFailed + " check timed out")
	case c.Passed:
		out = st.Tool.OK.Render("  " + cells.GlyphOK + " check passed")
	default:
		out = st.Tool.Error.Render(fmt.Sprintf("  %s check failed (exit %d)", cells.GlyphFailed, c.ExitCode))
	}
	if c.Diagnosed {
		d := fmt.Sprintf(" · %d errors", c.Errors)
		if c.Errors == 1 {
			d = " · 1 error"
		}
		if c.Errors > 0 {
			out += st.Tool.Error.Render(d)
		} else {
			out += st.Approval.Hint.Render(d)
		}
	}
	return out
}
