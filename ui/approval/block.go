// Package approval is the permission request as the transcript shows it:
// a block with the change (its diff, unified or side by side, by file and
// by hunk) or the command, the keys that answer it, and once answered a
// one-line record. It owns its keys (HandleKey) and names what only the
// root model can do as an Action; the root's approval flow queues the
// requests and runs those actions.
package approval

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"covey/tools/toolname"
	"covey/ui/cells"
	"covey/ui/diffview"
	"covey/ui/keys"
	"covey/ui/transcript"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/permission"
	"covey/theme"
)

// Approval layout constants.
const (
	// SplitMinWidth is the content width from which a diff is shown side
	// by side unless the user chose otherwise (a 140-column terminal less
	// the focus gutter).
	SplitMinWidth   = 140 - transcript.GutterWidth
	approvalBar     = "┃ "
	approvalIndent  = "  "
	defaultDiffRows = 20
	minApprovalRows = 3
	// Chrome is the rows an approval takes besides its body: header,
	// scroll note, keys, waiting note, slack.
	Chrome            = 5
	feedbackCharLimit = 2000
)

// Outcome is how a request was answered.
type Outcome uint8

// The outcomes, from still pending to each way of answering.
const (
	OutcomePending Outcome = iota
	OutcomeAllowed
	OutcomeSession
	OutcomeDenied
	OutcomeEdited
	OutcomeKept // a merge kept on its branch for later
)

// Block is a write or command waiting for the user's answer, shown
// in the transcript where the tool call stands: what would change (the file
// and its diff, scrollable, unified or side by side; or the command and its
// directory) and the keys that answer it. Once answered it collapses to a
// one-line record of the answer.
type Block struct {
	req    permission.Request
	diff   *diffview.View      // nil for a command
	split  []diffview.SplitRow // the side-by-side rows, built on first use
	grants []string            // what "allow for this session" would allow
	merge  *mergeState         // the per-file choice of a worktree merge; nil otherwise
	hunks  *hunkState          // the per-hunk choice; nil when there is none to make
	pick   *pickState          // a best-of-N review's attempts; nil otherwise
	// question is the model's question (ask_user), plan a plan to approve
	// (exit_plan_mode); nil otherwise.
	question *questionState
	plan     *planState
	// dim is the styles a dropped hunk's lines are drawn with, made from
	// dimOf.
	dim, dimOf *theme.Styles

	layout   *bool // the user's choice of side by side; nil: by width
	offset   int   // first body row shown
	shift    int   // cells of each diff line scrolled off to the left
	rows     int   // body rows shown at most
	budget   int   // rows before the lines beyond Chrome (SetRows)
	width    int   // content width of the last rendering
	waiting  int   // requests queued behind this one
	active   bool  // the approval has the keyboard
	settling bool  // the grace after it appeared runs: keys are not answers yet
	note     string
	recorded bool // a replay's request: no keys answer it

	feedbackOn bool
	feedback   textinput.Model

	outcome Outcome
	detail  string // the feedback or the granted rules

	// keys are the bindings its hints name (read for their help text).
	keys Keys

	transcript.Changes
	cache transcript.LineCache
	// rowCache holds drawn body rows by index for rowKey, so scrolling
	// draws only the rows that come into view.
	rowCache map[int]string
	rowKey   rowCacheKey
}

// OneSided reports whether the request's diff only adds or only removes
// lines (a new or a deleted file): it has no side-by-side layout.
func (b *Block) OneSided() bool { return b.diff != nil && b.diff.OneSided() }

// Attempt is the 1-based attempt a best-of-N review shows, 0 for any
// other request.
func (b *Block) Attempt() int {
	if b.pick == nil {
		return 0
	}
	return b.pick.cur + 1
}

// Offset is the first body row shown.
func (b *Block) Offset() int { return b.offset }

// Shift is how many cells of each diff line are scrolled off to the left.
func (b *Block) Shift() int { return b.shift }

// Rows is how many body rows show at most.
func (b *Block) Rows() int { return b.rows }

// Note is the note the approval shows under its keys ("" for none).
func (b *Block) Note() string { return b.note }

// WidestText is the width in cells of the diff's widest line, 0 for a
// command.
func (b *Block) WidestText() int {
	if b.diff == nil {
		return 0
	}
	return b.diff.WidestText()
}

// keyMap is the bindings the approval's hints name.
func (b *Block) keyMap() *Keys { return &b.keys }

// Keys are the bindings an approval names in its hints (read for their
// help text only, so a rebinding changes what it says); the root model
// fills them from its KeyMap, whose fields have the same names.
type Keys struct {
	ApproveYes, ApproveSession, ApproveNo, ApproveFeedback, ApproveEdit key.Binding
	ApproveLayout, ApproveKeep                                          key.Binding
	ApproveUp, ApproveDown, ApprovePageUp, ApprovePageDown              key.Binding
	ApproveLeft, ApproveRight                                           key.Binding
	ApproveFileToggle, ApproveFileNext, ApproveFilePrev                 key.Binding
	ApproveHunkToggle, ApproveHunkNext, ApproveHunkPrev                 key.Binding
	ApproveAttemptNext, ApproveAttemptPrev                              key.Binding
	FeedbackSend, FeedbackBack, FocusApproval                           key.Binding
	QuestionNumber, QuestionPick, QuestionToggle, ApproveToInput        key.Binding
	Blur, Cancel                                                        key.Binding
}

// rowCacheKey is what a drawn body row depends on.
type rowCacheKey struct {
	width  int
	split  bool
	shift  int
	styles *theme.Styles
}

// maxCachedRows bounds rowCache; past it the cache starts over.
const maxCachedRows = 4096

// New returns the pending approval of req, whose hints name keys.
func New(req permission.Request, k Keys) *Block {
	b := &Block{req: req, rows: defaultDiffRows, keys: k}
	switch req.Tool {
	case permission.ToolAskUser:
		b.question = newQuestion(req)
	case permission.ToolExitPlanMode:
		b.plan = &planState{}
	}
	if b.question != nil || b.plan != nil {
		// No diff, no command: the question or the plan is the body.
	} else if req.Tool == permission.ToolPickAttempt {
		b.newPick()
	} else if req.Tool == permission.ToolMerge {
		d, rows := newMergeDiffView(req.Changes)
		b.diff = d
		b.merge = &mergeState{files: req.Changes, rows: rows, selected: make([]bool, len(req.Changes))}
		for i := range b.merge.selected {
			b.merge.selected[i] = true
		}
		b.hunks = newHunkState(b.diff)
	} else if req.Tool != toolname.Bash && !CallRequest(req) {
		text := ""
		if req.Change != nil {
			text = req.Change.Diff
		}
		if strings.TrimSpace(text) == "" {
			text = diffview.ContentDiff(req.Content)
		}
		b.diff = diffview.New(text)
		b.hunks = newHunkState(b.diff).onFirstHunk()
	}
	b.grants = permission.SessionGrantRules(req)
	ti := textinput.New()
	ti.Prompt = "why? › "
	ti.Placeholder = "tell the agent what to do instead"
	ti.CharLimit = feedbackCharLimit
	ti.Cursor.SetMode(cursor.CursorStatic)
	b.feedback = ti
	return b
}

// Request is the request the block shows.
func (b *Block) Request() permission.Request { return b.req }

// Pending reports whether the request still waits for an answer.
func (b *Block) Pending() bool { return b.outcome == OutcomePending }

// Editable reports whether the request carries content the user may edit
// before allowing it (writes do, commands do not).
func (b *Block) Editable() bool {
	return b.req.Tool != toolname.Bash && b.merge == nil && !CallRequest(b.req)
}

// CallRequest reports whether req is a call with arguments rather than a
// write or a command. Anything but a command, a write or a merge is one: a
// web fetch, an MCP call, a trust question, or any other tool a PreToolUse
// hook asked about.
func CallRequest(req permission.Request) bool {
	switch req.Tool {
	case toolname.Bash, toolname.WriteFile, toolname.EditFile, permission.ToolMerge:
		return false
	}
	return true
}

func (b *Block) touch() { b.Changed() }

// SetActive says whether the approval has the keyboard (its keys are shown)
// or the input has (a hint says how to come back).
func (b *Block) SetActive(v bool) {
	if b.active != v {
		b.active = v
		if b.merge != nil {
			b.rowCache = nil // the file cursor shows only while active
		}
		b.touch()
	}
}

// GraceNote leads the dimmed key hints while the request's grace
// runs (keyflow.go).
const GraceNote = "wait… "

// SetSettling says whether the request's grace runs: keys typed now are
// not taken as answers, and its hints show dimmed.
func (b *Block) SetSettling(v bool) {
	if b.settling != v {
		b.settling = v
		b.touch()
	}
}

// SetRows sets how many body rows the block shows at most; longer diffs
// scroll.
func (b *Block) SetRows(n int) {
	if b.pick != nil {
		n -= b.pick.pickRows() + 1 // the attempts' columns, a longer key list
	}
	if b.budget != n {
		b.budget = n
		b.fitRows(0)
		b.touch()
	}
}

// fitRows sets the body rows to the budget less extra, the lines drawn
// beyond those Chrome counts (more than one line of keys, the
// feedback input, a note, the asking agent), so the block's last line,
// its keys, stays on the screen.
func (b *Block) fitRows(extra int) {
	b.rows = max(b.budget-extra, minApprovalRows)
	b.offset = min(b.offset, b.maxOffset())
}

// SetWaiting sets how many requests wait behind this one.
func (b *Block) SetWaiting(n int) {
	if b.waiting != n {
		b.waiting = n
		b.touch()
	}
}

// SetNote shows a one-line note (an editor failure) until the next answer.
func (b *Block) SetNote(s string) {
	b.note = s
	b.touch()
}

// SetRecorded marks the block as a recorded request (a replay): it is
// shown as it was asked, with no keys to answer it.
func (b *Block) SetRecorded() {
	b.recorded = true
	b.touch()
}

// SideBySide reports whether the diff is drawn in two halves at width.
func (b *Block) SideBySide(width int) bool {
	if b.diff == nil || b.diff.OneSided() {
		return false // a new or deleted file would leave one half empty
	}
	if b.layout != nil {
		return *b.layout
	}
	return width >= SplitMinWidth
}

// ToggleLayout switches between the unified and the side-by-side diff.
func (b *Block) ToggleLayout() {
	if b.diff == nil || b.diff.OneSided() {
		return
	}
	v := !b.SideBySide(b.width)
	b.layout = &v
	b.offset = 0
	b.shift = min(b.shift, b.MaxShift())
	b.touch()
}

// BodyLen is the number of body rows at the last width.
func (b *Block) BodyLen() int {
	switch {
	case b.plan != nil:
		return len(b.plan.lines)
	case b.question != nil:
		return 0
	case b.diff == nil:
		return len(b.commandLines(max(b.width-len(approvalBar)-len(approvalIndent), 1)))
	case b.SideBySide(b.width):
		return len(b.splitRows())
	}
	return b.diff.Len()
}

func (b *Block) maxOffset() int { return max(b.BodyLen()-b.rows, 0) }

// ScrollBy moves the body window by delta rows.
func (b *Block) ScrollBy(delta int) {
	off := min(max(b.offset+delta, 0), b.maxOffset())
	if off != b.offset {
		b.offset = off
		b.touch()
	}
}

// scrollNote says where the body window is and how to move it: the rows
// shown when the body scrolls, the columns shown when the diff is wider
// than the screen; "" when everything shows.
func (b *Block) scrollNote(k *Keys, total int) string {
	var parts []string
	if total > b.rows {
		parts = append(parts, fmt.Sprintf("rows %d–%d of %d · %s/%s %s/%s scroll", b.offset+1, min(b.offset+b.rows, total), total,
			keys.First(k.ApproveUp), keys.First(k.ApproveDown), keys.Name(k.ApprovePageUp), keys.Name(k.ApprovePageDown)))
	}
	if b.diff != nil && b.MaxShift() > 0 {
		shift := min(b.shift, b.MaxShift())
		last := shift + b.textWidth()
		if shift > 0 {
			last-- // the "…" in place of the columns scrolled off takes one
		}
		parts = append(parts, fmt.Sprintf("cols %d–%d of %d · %s/%s sideways", shift+1, min(last, b.diff.WidestText()), b.diff.WidestText(),
			keys.Name(k.ApproveLeft), keys.Name(k.ApproveRight)))
	}
	return strings.Join(parts, " · ")
}

// textWidth is how many cells of a diff line's text show at the last
// width, in the current layout.
func (b *Block) textWidth() int {
	body := max(b.width-len(approvalBar)-len(approvalIndent), 1)
	return b.diff.TextWidth(body, b.SideBySide(b.width))
}

// MaxShift is how far the diff's lines can scroll to the left: until the
// widest one's end shows.
func (b *Block) MaxShift() int {
	if b.diff == nil || b.width == 0 {
		return 0
	}
	if w, tw := b.diff.WidestText(), b.textWidth(); w > tw {
		return w - tw + 1 // scrolled, a "…" takes the first column
	}
	return 0
}

// approvalShiftStep is how many columns one sideways key moves a diff.
const approvalShiftStep = 16

// ShiftBy scrolls the diff's lines sideways by steps (negative is back to
// the left edge). A line too long for the screen is cut with "…" and the
// scroll note shows the columns in view: an approval keeps one row per
// diff line, so its hunks and files stay where the keys find them.
func (b *Block) ShiftBy(steps int) {
	s := min(max(min(b.shift, b.MaxShift())+steps*approvalShiftStep, 0), b.MaxShift())
	if s != b.shift {
		b.shift = s
		b.touch()
	}
}

// PageBy moves the body window by pages (negative is up).
func (b *Block) PageBy(pages int) { b.ScrollBy(pages * max(b.rows-1, 1)) }

// diffRow is body row i of the diff at width, from the cache when drawn
// before.
func (b *Block) diffRow(i, width int, st *theme.Styles) string {
	key := rowCacheKey{width: width, split: b.SideBySide(b.width), shift: b.shift, styles: st}
	b.diff.Shift = b.shift
	if b.rowCache == nil || b.rowKey != key || len(b.rowCache) >= maxCachedRows {
		b.rowCache, b.rowKey = make(map[int]string, b.rows), key
	}
	if r, ok := b.rowCache[i]; ok {
		return r
	}
	var r string
	var full *diffview.Line
	if key.split {
		full = b.splitRows()[i].Full
	} else {
		full = &b.diff.Lines[i]
	}
	switch {
	case full != nil && b.merge != nil && full.Kind == diffview.File:
		r = b.fileRow(full.Old, width, st)
	case full != nil && b.hunks != nil && full.Kind == diffview.Hunk && full.Hunk > 0:
		r = b.hunkRow(*full, width, st)
	case key.split:
		row := b.splitRows()[i]
		if b.isDropped(row.Left) || b.isDropped(row.Right) {
			st = b.dimStyles(st)
		}
		r = b.diff.RenderSplitRow(row, width, st)
	default:
		if b.isDropped(full) {
			st = b.dimStyles(st)
		}
		r = b.diff.RenderRow(i, width, st)
	}
	b.rowCache[i] = r
	return r
}

func (b *Block) splitRows() []diffview.SplitRow {
	if b.split == nil && b.diff != nil {
		b.split = diffview.SplitRows(b.diff)
	}
	return b.split
}

// StartFeedback opens the one-line input for the reason of a denial.
func (b *Block) StartFeedback() tea.Cmd {
	b.feedbackOn = true
	b.touch()
	return b.feedback.Focus()
}

// StopFeedback closes the input, keeping what was typed.
func (b *Block) StopFeedback() {
	b.feedbackOn = false
	b.feedback.Blur()
	b.touch()
}

// FeedbackOpen reports whether the denial's input is open.
func (b *Block) FeedbackOpen() bool { return b.feedbackOn }

// Feedback is what was typed as the reason of a denial.
func (b *Block) Feedback() string { return strings.TrimSpace(b.feedback.Value()) }

// typeFeedback passes a key to the feedback input while it is open.
func (b *Block) typeFeedback(msg tea.Msg) tea.Cmd {
	if !b.feedbackOn {
		return nil
	}
	var cmd tea.Cmd
	b.feedback, cmd = b.feedback.Update(msg)
	b.touch()
	return cmd
}

// Resolve records the answer and collapses the block to one line; detail
// is the user's feedback or the rules a session grant recorded.
func (b *Block) Resolve(o Outcome, detail string) {
	b.outcome, b.detail = o, detail
	b.feedbackOn, b.active, b.note = false, false, ""
	b.feedback.Blur()
	b.touch()
}

// Focusable implements Block: the approval takes the keyboard by its own
// keys, not by Tab.
func (b *Block) Focusable() bool { return false }

// Expanded implements Block.
func (b *Block) Expanded() bool { return false }

// SetExpanded implements Block; an approval has one form.
func (b *Block) SetExpanded(bool) {}

// Live implements Block: nothing in it moves with the clock.
func (b *Block) Live() bool { return false }

// Lines implements Block. The returned slice must not be modified.
func (b *Block) Lines(ctx transcript.RenderContext) []string {
	width := max(ctx.Width, 1)
	if width != b.width {
		b.width = width
		b.offset = min(b.offset, b.maxOffset())
		b.shift = min(b.shift, b.MaxShift())
	}
	key := transcript.CacheKey{Width: width, Version: b.Version(), Styles: ctx.Styles}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	var lines []string
	switch {
	case b.outcome != OutcomePending && b.question != nil:
		lines = []string{b.questionRecord(ctx.Styles, width)}
	case b.outcome != OutcomePending && b.plan != nil:
		lines = []string{b.planRecord(ctx.Styles, width)}
	case b.outcome != OutcomePending:
		lines = []string{b.record(ctx, width)}
	case b.question != nil:
		lines = b.questionLines(ctx, width)
	case b.plan != nil:
		lines = b.planLines(ctx, width)
	default:
		lines = b.pendingLines(ctx, width)
	}
	b.cache.Put(key, lines)
	return lines
}

// subject names the request for records: "edit_file ui/model.go".
func (b *Block) subject() string {
	switch {
	case b.req.Tool == toolname.Bash:
		return toolname.Bash + " " + cells.OneLine(b.req.Command)
	case b.req.Tool == toolname.WebFetch:
		return toolname.WebFetch + " " + b.req.URL
	case CallRequest(b.req) && b.req.Server != "":
		return fmt.Sprintf("%s (MCP server %s)", b.req.ServerTool, b.req.Server)
	case CallRequest(b.req):
		return b.req.Tool
	}
	return b.req.Tool + " " + b.req.Path
}

// record is the one line an answered request leaves.
func (b *Block) record(ctx transcript.RenderContext, width int) string {
	st := ctx.Styles.Approval
	if b.pick != nil {
		return cells.Fit(b.pickRecord(ctx.Styles), width)
	}
	if b.merge != nil {
		return cells.Fit(b.mergeRecord(ctx.Styles)+"  "+st.Hint.Render(b.req.Path), width)
	}
	var head string
	switch b.outcome {
	case OutcomeAllowed:
		text := cells.GlyphOK + " allowed"
		if n := b.droppedCount(); n > 0 {
			total := len(b.hunks.rows)
			text = fmt.Sprintf("%s allowed %d of %d hunks", cells.GlyphOK, total-n, total)
		}
		if b.detail != "" {
			text += ": " + cells.OneLine(b.detail)
		}
		head = st.Allowed.Render(text)
	case OutcomeSession:
		return cells.Fit(st.Allowed.Render(cells.GlyphOK+" allowed for this session: "+b.detail), width)
	case OutcomeEdited:
		head = st.Edited.Render("✎ allowed with your edits")
	case OutcomeDenied:
		text := cells.GlyphFailed + " denied"
		if b.detail != "" {
			text += ": " + cells.OneLine(b.detail)
		}
		head = st.Denied.Render(text)
	}
	return cells.Fit(head+"  "+st.Hint.Render(cells.OneLine(b.subject())), width)
}

// pendingLines is the question, the body window and the keys.
func (b *Block) pendingLines(ctx transcript.RenderContext, width int) []string {
	st := ctx.Styles
	bar := st.Approval.Bar.Render(approvalBar)
	inner := max(width-len(approvalBar), 1)
	bodyWidth := max(inner-len(approvalIndent), 1)
	var out []string
	add := func(s string) { out = append(out, cells.Fit(bar+s, width)) }

	// The keys come first: the body gives up the rows they take beyond
	// the one Chrome counts.
	var keyLines []string
	km := b.keyMap()
	hints := [][2]string{{keys.Name(km.FocusApproval), "answer this request"}}
	switch {
	case b.feedbackOn:
		b.feedback.Width = max(bodyWidth-len(b.feedback.Prompt)-1, 1)
		keyLines = append(keyLines, approvalIndent+b.feedback.View())
		hints = [][2]string{{keys.Name(km.FeedbackSend), km.FeedbackSend.Help().Desc}, {keys.Name(km.FeedbackBack), "back"}}
	case b.active && b.pick != nil:
		hints = b.pickHints(km, width)
	case b.active && b.merge != nil:
		hints = b.mergeHints(km, width)
	case b.active:
		hints = b.answerHints(km, width)
	}
	if b.recorded {
		hints = nil
	}
	if b.active && b.settling && !b.feedbackOn {
		// The grace after the request appeared: its keys are not taken
		// yet, and look it (GraceNote).
		for i, l := range keyHints(st, hints, max(bodyWidth-len(GraceNote), 1)) {
			if i == 0 {
				l = GraceNote + ansi.Strip(l)
			}
			keyLines = append(keyLines, approvalIndent+st.Approval.Hint.Render(ansi.Strip(l)))
		}
	} else {
		for _, l := range keyHints(st, hints, bodyWidth) {
			keyLines = append(keyLines, approvalIndent+l)
		}
	}
	extra := max(len(keyLines)-1, 0)
	if b.note != "" {
		extra++
	}
	if b.req.Agent != "" {
		extra++
		add(st.Approval.Label.Render(cells.OneLine(b.req.Agent)) + st.Approval.Hint.Render(" asks:"))
	}
	if b.budget > 0 {
		b.fitRows(extra)
	}
	switch {
	case b.pick != nil:
		add(b.pickHeader(ctx, inner))
		for _, l := range b.pickColumns(st, bodyWidth) {
			add(approvalIndent + l)
		}
	case b.merge != nil:
		add(b.mergeHeader(ctx, inner))
	default:
		add(b.header(ctx, inner))
	}
	total := b.BodyLen()
	if b.diff == nil {
		cmd := b.commandLines(bodyWidth)
		for _, l := range cmd[min(b.offset, len(cmd)):min(b.offset+b.rows, len(cmd))] {
			add(approvalIndent + st.Approval.Target.Render(l))
		}
	} else {
		// Rows are drawn exactly bodyWidth wide: no cutting needed.
		for i := b.offset; i < min(b.offset+b.rows, total); i++ {
			out = append(out, bar+approvalIndent+b.diffRow(i, bodyWidth, st))
		}
	}
	if b.diff != nil && total == 0 {
		add(approvalIndent + st.Approval.Hint.Render("(empty file)"))
	}
	if b.req.Tool == toolname.Bash && b.req.Dir != "" {
		add(approvalIndent + st.Approval.Hint.Render("in "+cells.ShortenHome(b.req.Dir)))
	}
	if note := b.scrollNote(b.keyMap(), total); note != "" {
		add(approvalIndent + st.Approval.Scroll.Render(note))
	}
	if b.note != "" {
		add(approvalIndent + st.Notice.Warning.Render(cells.OneLine(b.note)))
	}
	for _, l := range keyLines {
		add(l)
	}
	if b.waiting > 0 {
		add(approvalIndent + st.Approval.Hint.Render(fmt.Sprintf("%d more waiting", b.waiting)))
	}
	return out
}

// header is "? Allow edit_file ui/model.go  +3 -1".
func (b *Block) header(ctx transcript.RenderContext, width int) string {
	st := ctx.Styles
	var s strings.Builder
	if CallRequest(b.req) {
		return cells.Fit(b.callHeader(st), width)
	}
	s.WriteString(st.Approval.Title.Render("? Allow " + b.req.Tool))
	if b.req.Tool == toolname.Bash {
		s.WriteString(st.Approval.Title.Render(" to run this command?"))
		return cells.Fit(s.String(), width)
	}
	s.WriteString(" " + st.Approval.Target.Render(b.req.Path))
	if b.req.Change == nil || b.req.Change.Created {
		s.WriteString(" " + st.Approval.Hint.Render("(new file)"))
	}
	added, removed := 0, 0
	switch {
	case b.droppedCount() > 0 && b.diff != nil:
		added, removed = b.takenCounts() // what lands, as the tool block will say
	case b.req.Change != nil:
		added, removed = b.req.Change.Added, b.req.Change.Removed
	case b.diff != nil:
		added = b.diff.Len() - 1 // all but the hunk header
	}
	s.WriteString("  " + st.Diff.Added.Render(fmt.Sprintf("+%d", max(added, 0))) + " " +
		st.Diff.Removed.Render(fmt.Sprintf("-%d", removed)))
	if note := b.hunkNote(); note != "" {
		s.WriteString(" " + st.Approval.Hint.Render(note))
	}
	return cells.Fit(s.String(), width)
}

// callHeader is "? Allow web_fetch to read docs.example.com?" or
// "? Allow the MCP tool search of server github?".
func (b *Block) callHeader(st *theme.Styles) string {
	t := st.Approval.Title
	if b.req.Tool == toolname.WebFetch {
		return t.Render("? Allow web_fetch to read ") + st.Approval.Target.Render(urlHost(b.req.URL)) + t.Render("?")
	}
	if b.req.Server == "" {
		return t.Render("? Allow ") + st.Approval.Target.Render(b.req.Tool) + t.Render("?")
	}
	return t.Render("? Allow the MCP tool ") + st.Approval.Target.Render(b.req.ServerTool) +
		t.Render(" of server ") + st.Approval.Target.Render(b.req.Server) + t.Render("?")
}

// urlHost is the host of a URL, or the URL when it has none.
func urlHost(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Hostname()
	}
	return raw
}

// callLines are a call's URL or its arguments, indented JSON, wrapped.
func (b *Block) callLines(width int) []string {
	text := b.req.URL
	switch b.req.Tool {
	case toolname.WebFetch:
	default:
		text = prettyArgs(b.req.Args)
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = append(out, cells.Wrap(cells.Clean(l), max(width, 1))...)
	}
	return out
}

// prettyArgs indents a call's JSON arguments; "(no arguments)" for none.
func prettyArgs(args string) string {
	var v any
	if strings.TrimSpace(args) == "" || json.Unmarshal([]byte(args), &v) != nil {
		if strings.TrimSpace(args) == "" {
			return "(no arguments)"
		}
		return args
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return "(no arguments)"
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return args
	}
	return string(out)
}

// commandLines is the command wrapped at width, "$ " before its first line;
// for a call, its URL or arguments.
func (b *Block) commandLines(width int) []string {
	if CallRequest(b.req) {
		return b.callLines(width)
	}
	var out []string
	for i, l := range strings.Split(strings.TrimRight(b.req.Command, "\n"), "\n") {
		p := "  "
		if i == 0 {
			p = "$ "
		}
		for j, w := range cells.Wrap(l, max(width-2, 1)) {
			if j > 0 {
				p = "  "
			}
			out = append(out, p+w)
		}
	}
	return out
}

// answerHints are the keys that answer the request, as shown in it.
func (b *Block) answerHints(k *Keys, width int) [][2]string {
	hint := func(b key.Binding) [2]string { return [2]string{keys.Name(b), b.Help().Desc} }
	session := hint(k.ApproveSession)
	if len(b.grants) > 0 {
		session[1] += " (" + strings.Join(b.grants, ", ") + ")"
	}
	h := [][2]string{hint(k.ApproveYes), session, hint(k.ApproveNo), hint(k.ApproveFeedback)}
	if b.droppedCount() > 0 {
		// Part of the change: y writes the hunks taken; d still denies.
		yes, no, note := keys.AnswerWords(false, false, true)
		h = [][2]string{{keys.Name(k.ApproveYes), yes}, {keys.Name(k.ApproveNo), no}, {keys.Name(k.ApproveFeedback), note}}
	}
	if b.hunks != nil {
		h = append(h, [2]string{keys.Name(k.ApproveHunkToggle), "take/drop hunk"},
			[2]string{keys.Name(k.ApproveHunkNext) + "/" + keys.Name(k.ApproveHunkPrev), "next/previous hunk"})
	}
	if b.Editable() {
		if b.droppedCount() == 0 {
			h = append(h, hint(k.ApproveEdit))
		}
		switch {
		case b.diff != nil && b.diff.OneSided():
			// A new or deleted file is always unified: no layout to choose.
		case b.SideBySide(width):
			h = append(h, [2]string{keys.Name(k.ApproveLayout), "unified"})
		default:
			h = append(h, [2]string{keys.Name(k.ApproveLayout), "side by side"})
		}
	}
	return append(h, hint(k.Cancel))
}

// keyHints draws "y allow · n deny · …", wrapped between hints to width.
func keyHints(st *theme.Styles, hints [][2]string, width int) []string {
	sep := st.Approval.Hint.Render(" · ")
	var out []string
	var cur strings.Builder
	curW := 0
	for _, h := range hints {
		part := st.Approval.Key.Render(h[0]) + " " + st.Approval.Hint.Render(h[1])
		w := ansi.StringWidth(h[0]) + 1 + ansi.StringWidth(h[1])
		if curW > 0 && curW+3+w > width {
			out = append(out, cur.String())
			cur.Reset()
			curW = 0
		}
		if curW > 0 {
			cur.WriteString(sep)
			curW += 3
		}
		cur.WriteString(part)
		curW += w
	}
	if curW > 0 {
		out = append(out, cur.String())
	}
	return out
}
