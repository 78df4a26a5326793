package approval

import (
	"fmt"
	"strings"

	"covey/internal/plural"
	"covey/permission"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// This file holds a plan presented for approval (exit_plan_mode): the
// plan rendered as markdown, scrolled like a diff, and the keys that
// approve it into a mode or keep planning with feedback.

// ApprovePlan approves the plan, leaving plan mode for Mode.
type ApprovePlan struct{ Mode permission.Mode }

// planState is the plan's rendered lines at the last width.
type planState struct {
	lines []string
	width int
}

// IsPlan reports whether the block is a plan to approve.
func (b *Block) IsPlan() bool { return b.plan != nil }

// planBody renders the plan at width, once per width.
func (b *Block) planBody(ctx transcript.RenderContext, width int) []string {
	p := b.plan
	if p.width == width && p.lines != nil {
		return p.lines
	}
	var lines []string
	if ctx.Markdown != nil {
		if ls, err := ctx.Markdown.Render(b.req.Plan, width); err == nil {
			lines = ls
		}
	}
	if lines == nil {
		for _, l := range strings.Split(b.req.Plan, "\n") {
			lines = append(lines, cells.Wrap(cells.Clean(l), width)...)
		}
	}
	for i, l := range lines {
		lines[i] = cells.Fit(l, width)
	}
	p.lines, p.width = lines, width
	return lines
}

// planLines draws the pending plan: the title, the plan's window, the
// scroll note, the feedback input or the keys.
func (b *Block) planLines(ctx transcript.RenderContext, width int) []string {
	st := ctx.Styles
	bar := st.Approval.Bar.Render(approvalBar)
	inner := max(width-len(approvalBar), 1)
	body := max(inner-len(approvalIndent), 1)
	lines := b.planBody(ctx, body)
	var out []string
	add := func(s string) { out = append(out, cells.Fit(bar+s, width)) }
	k := b.keyMap()
	var hints [][2]string
	switch {
	case b.feedbackOn:
		hints = [][2]string{{keys.Name(k.FeedbackSend), "send the feedback"}, {keys.Name(k.FeedbackBack), "back"}}
	case b.active:
		yes, edits, no, note, _ := keys.PlanWords()
		hints = [][2]string{{keys.Name(k.ApproveYes), yes}, {keys.Name(k.ApproveSession), edits},
			{keys.Name(k.ApproveFeedback), note}, {keys.Name(k.ApproveNo), no}}
	default:
		hints = [][2]string{{keys.Name(k.FocusApproval), "answer this plan"}}
	}
	keyLines := planKeyLines(st, hints, body, b.active && b.settling && !b.feedbackOn)
	extra := max(len(keyLines)-1, 0)
	if b.feedbackOn {
		extra++
	}
	if b.req.Agent != "" {
		extra++
		add(st.Approval.Label.Render(cells.OneLine(b.req.Agent)) + st.Approval.Hint.Render(" presents:"))
	}
	if b.budget > 0 {
		b.fitRows(extra)
	}
	add(st.Approval.Title.Render("? Approve this plan?") + " " + st.Approval.Hint.Render("("+plural.Count(len(lines), "line")+")"))
	for _, l := range lines[min(b.offset, len(lines)):min(b.offset+b.rows, len(lines))] {
		add(approvalIndent + l)
	}
	if note := b.scrollNote(k, len(lines)); note != "" {
		add(approvalIndent + st.Approval.Scroll.Render(note))
	}
	if b.feedbackOn {
		b.feedback.Width = max(body-len(b.feedback.Prompt)-1, 1)
		add(approvalIndent + b.feedback.View())
	}
	if b.note != "" {
		add(approvalIndent + st.Notice.Warning.Render(cells.OneLine(b.note)))
	}
	for _, l := range keyLines {
		add(approvalIndent + l)
	}
	if b.waiting > 0 {
		add(approvalIndent + st.Approval.Hint.Render(fmt.Sprintf("%d more waiting", b.waiting)))
	}
	return out
}

// planKeyLines draws hints, dimmed after GraceNote while settling.
func planKeyLines(st *theme.Styles, hints [][2]string, width int, settling bool) []string {
	if !settling {
		return keyHints(st, hints, width)
	}
	var out []string
	for i, l := range keyHints(st, hints, max(width-len(GraceNote), 1)) {
		if i == 0 {
			l = GraceNote + l
		}
		out = append(out, st.Approval.Hint.Render(cells.Clean(l)))
	}
	return out
}

// startPlanFeedback opens the input for what to change in the plan.
func (b *Block) startPlanFeedback() {
	b.feedback.Prompt = "what to change? › "
	b.feedback.Placeholder = "tell the agent how to revise the plan"
}

// planRecord is the line an answered plan leaves.
func (b *Block) planRecord(st *theme.Styles, width int) string {
	a := st.Approval
	var head string
	switch b.outcome {
	case OutcomeAllowed:
		head = a.Allowed.Render(cells.GlyphOK + " plan approved: " + b.detail)
	default:
		text := cells.GlyphFailed + " kept planning"
		if b.detail != "" {
			text += ": " + cells.OneLine(b.detail)
		}
		head = a.Denied.Render(text)
	}
	title := ""
	for _, l := range strings.Split(b.req.Plan, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(l, "# ")); t != "" {
			title = t
			break
		}
	}
	return cells.Fit(head+"  "+a.Hint.Render(cells.OneLine(title)), width)
}
