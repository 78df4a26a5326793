package approval

import (
	"fmt"
	"strings"

	"covey/permission"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// This file holds the model's question (ask_user) as the approval block
// shows it: the question, its options numbered, and a last row to type
// an answer. A number or the cursor and enter answer; space marks one of
// several where several may be picked; esc declines.

// Answer answers the model's question with the text the model reads: the
// labels picked, one a line, or what the user typed.
type Answer struct{ Text string }

// Decline answers the model's question with a refusal to answer.
type Decline struct{}

// questionState is the question shown and the user's choices in it.
type questionState struct {
	q      *permission.Question
	cursor int    // the row under the cursor: an option, or len(options) to type
	marked []bool // the options marked, when several may be picked
}

// typeRow is the row index of "type an answer".
func (q *questionState) typeRow() int { return len(q.q.Options) }

func newQuestion(req permission.Request) *questionState {
	q := req.Question
	if q == nil {
		q = &permission.Question{Question: "(no question)"}
	}
	return &questionState{q: q, marked: make([]bool, len(q.Options))}
}

// IsQuestion reports whether the block is the model's question.
func (b *Block) IsQuestion() bool { return b.question != nil }

// questionKey takes a key while the question has the keyboard.
func (b *Block) questionKey(k tea.KeyMsg, km *keys.KeyMap) (Action, tea.Cmd, bool) {
	q := b.question
	if b.feedbackOn {
		switch {
		case key.Matches(k, km.FeedbackSend) && b.Feedback() != "":
			return Answer{Text: b.Feedback()}, nil, true
		case key.Matches(k, km.FeedbackSend):
			return Say{Text: "type an answer first, or esc to go back to the options"}, nil, true
		case key.Matches(k, km.FeedbackBack):
			b.StopFeedback()
			return nil, nil, true
		}
		return nil, b.typeFeedback(k), true
	}
	switch {
	case key.Matches(k, km.QuestionNumber):
		n := int(k.Runes[0]-'0') - 1
		if n < 0 || n > q.typeRow() {
			return Say{Text: fmt.Sprintf("there is no option %d", n+1)}, nil, true
		}
		q.cursor = n
		b.touch()
		if n == q.typeRow() {
			return nil, b.startAnswer(), true
		}
		if q.q.MultiSelect {
			q.marked[n] = !q.marked[n]
			return nil, nil, true
		}
		return Answer{Text: q.q.Options[n].Label}, nil, true
	case key.Matches(k, km.ApproveUp):
		q.cursor = (q.cursor + q.typeRow()) % (q.typeRow() + 1)
		b.touch()
	case key.Matches(k, km.ApproveDown):
		q.cursor = (q.cursor + 1) % (q.typeRow() + 1)
		b.touch()
	case key.Matches(k, km.QuestionToggle):
		if q.cursor < q.typeRow() {
			q.marked[q.cursor] = !q.marked[q.cursor]
			b.touch()
		}
	case key.Matches(k, km.QuestionPick):
		return b.pickCursor()
	case key.Matches(k, km.ApproveToInput):
		return ToInput{}, nil, true
	case key.Matches(k, km.Cancel):
		return Decline{}, nil, true
	default:
		return nil, nil, false
	}
	return nil, nil, true
}

// pickCursor answers with the row under the cursor: "type an answer"
// opens the input; with several to pick, the marked ones (or, with none
// marked, the one under the cursor).
func (b *Block) pickCursor() (Action, tea.Cmd, bool) {
	q := b.question
	if q.cursor == q.typeRow() {
		return nil, b.startAnswer(), true
	}
	if !q.q.MultiSelect {
		return Answer{Text: q.q.Options[q.cursor].Label}, nil, true
	}
	var labels []string
	for i, m := range q.marked {
		if m {
			labels = append(labels, q.q.Options[i].Label)
		}
	}
	if len(labels) == 0 {
		labels = []string{q.q.Options[q.cursor].Label}
	}
	return Answer{Text: strings.Join(labels, "\n")}, nil, true
}

// startAnswer opens the input for a free answer.
func (b *Block) startAnswer() tea.Cmd {
	b.feedback.Prompt = "answer › "
	b.feedback.Placeholder = "type your answer for the agent"
	return b.StartFeedback()
}

// questionLines draws the pending question: who asks, the question, the
// options, the answer input or the keys.
func (b *Block) questionLines(ctx transcript.RenderContext, width int) []string {
	st := ctx.Styles
	q := b.question
	bar := st.Approval.Bar.Render(approvalBar)
	inner := max(width-len(approvalBar), 1)
	body := max(inner-len(approvalIndent), 1)
	var out []string
	add := func(s string) { out = append(out, cells.Fit(bar+s, width)) }
	if b.req.Agent != "" {
		add(st.Approval.Label.Render(cells.OneLine(b.req.Agent)) + st.Approval.Hint.Render(" asks you:"))
	}
	for i, l := range cells.Wrap(cells.Clean(q.q.Question), max(inner-2, 1)) {
		lead := "? "
		if i > 0 {
			lead = "  "
		}
		add(st.Approval.Title.Render(lead + l))
	}
	rows := make([]string, 0, q.typeRow()+1)
	for i, o := range q.q.Options {
		rows = append(rows, b.optionRow(st, i, o, body))
	}
	rows = append(rows, b.optionRow(st, q.typeRow(), permission.QuestionOption{Label: "Type an answer…"}, body))
	for _, r := range rows {
		add(approvalIndent + r)
	}
	if b.feedbackOn {
		b.feedback.Width = max(body-len(b.feedback.Prompt)-1, 1)
		add(approvalIndent + b.feedback.View())
	}
	if b.note != "" {
		add(approvalIndent + st.Notice.Warning.Render(cells.OneLine(b.note)))
	}
	for _, l := range b.questionHints(st, body) {
		add(approvalIndent + l)
	}
	if b.waiting > 0 {
		add(approvalIndent + st.Approval.Hint.Render(fmt.Sprintf("%d more waiting", b.waiting)))
	}
	return out
}

// optionRow is "› 2. Label  what it means", marked "[x]" when several
// may be picked.
func (b *Block) optionRow(st *theme.Styles, i int, o permission.QuestionOption, width int) string {
	q := b.question
	cur := "  "
	if b.active && i == q.cursor {
		cur = "› "
	}
	mark := ""
	if q.q.MultiSelect && i < q.typeRow() {
		mark = "[ ] "
		if q.marked[i] {
			mark = "[x] "
		}
	}
	label := fmt.Sprintf("%d. %s%s", i+1, mark, cells.OneLine(o.Label))
	s := st.Approval.Key.Render(cur) + st.Approval.Target.Render(label)
	if o.Description != "" {
		s += "  " + st.Approval.Hint.Render(cells.OneLine(o.Description))
	}
	return cells.Fit(s, width)
}

// questionHints are the question's keys, dimmed while its grace runs.
func (b *Block) questionHints(st *theme.Styles, width int) []string {
	k := b.keyMap()
	if !b.active {
		return keyHints(st, [][2]string{{keys.Name(k.FocusApproval), "answer this question"}}, width)
	}
	var hints [][2]string
	if b.feedbackOn {
		hints = [][2]string{{keys.Name(k.FeedbackSend), "send this answer"}, {keys.Name(k.FeedbackBack), "back to the options"}}
	} else {
		n := b.question.typeRow() + 1
		hints = [][2]string{{fmt.Sprintf("1-%d", n), "pick"}, {keys.First(k.ApproveUp) + "/" + keys.First(k.ApproveDown), "move"}}
		if b.question.q.MultiSelect {
			hints = append(hints, [2]string{keys.Name(k.QuestionToggle), "mark"}, [2]string{keys.Name(k.QuestionPick), "send the marked"})
		} else {
			hints = append(hints, [2]string{keys.Name(k.QuestionPick), "choose"})
		}
		hints = append(hints, [2]string{keys.Name(k.Cancel), "decline"}, [2]string{keys.Name(k.ApproveToInput), "type in the input"})
	}
	if b.settling && !b.feedbackOn {
		var out []string
		for i, l := range keyHints(st, hints, max(width-len(GraceNote), 1)) {
			if i == 0 {
				l = GraceNote + l
			}
			out = append(out, st.Approval.Hint.Render(ansi.Strip(l)))
		}
		return out
	}
	return keyHints(st, hints, width)
}

// questionRecord is the line an answered question leaves.
func (b *Block) questionRecord(st *theme.Styles, width int) string {
	a := st.Approval
	var head string
	switch b.outcome {
	case OutcomeAllowed:
		head = a.Allowed.Render(cells.GlyphOK + " answered: " + cells.OneLine(strings.ReplaceAll(b.detail, "\n", ", ")))
	default:
		head = a.Denied.Render(cells.GlyphFailed + " declined to answer")
	}
	return cells.Fit(head+"  "+a.Hint.Render(cells.OneLine(b.question.q.Question)), width)
}
