package screens

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/checkpoint"
	"covey/internal/plural"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
)

// RewindEngine is implemented by an Engine that keeps checkpoints: the
// places /rewind can go to, and what restoring the files would do.
type RewindEngine interface {
	RewindPoints() ([]checkpoint.Point, error)
	PlanRewind(ctx context.Context, id string) (checkpoint.Plan, error)
}

// RewindTo asks the root to run a rewind the user chose.
type RewindTo struct {
	Req checkpoint.Request
	// Label names the point, for the screen while it runs.
	Label string
}

// rewindStage is where the /rewind screen is: the list of messages, the
// three choices, the question about files changed outside covey.
type rewindStage int

const (
	stagePoints rewindStage = iota
	stageChoice
	stagePlan
)

// choices are the three ways to rewind, in the order offered.
var choices = []struct{ name, desc string }{
	{"code and conversation", "put the files back and cut the conversation before the message"},
	{"conversation only", "cut the conversation; leave the files as they are now"},
	{"code only", "put the files back; keep the conversation"},
}

// Rewind is the /rewind screen (esc twice on an empty input opens it
// too): the user's earlier messages newest first, each with its time and
// the files changed after it; then code and conversation, conversation
// only, or code only; then, for files changed outside covey since, their
// diff and a question.
type Rewind struct {
	styles *theme.Styles
	keys   *keys.KeyMap // the root's: esc
	own    rewindKeys
	width  int
	height int
	ctx    context.Context
	engine RewindEngine

	stage  rewindStage
	points []checkpoint.Point
	sel    int
	choice int
	plan   *checkpoint.Plan
	note   string // loading, or what went wrong
}

type rewindKeys struct {
	Up, Down, Pick, Overwrite, Keep key.Binding
}

// NewRewind is the screen for engine; km is the root's KeyMap, whose esc
// it takes. Load fetches the list.
func NewRewind(ctx context.Context, styles *theme.Styles, km *keys.KeyMap, engine RewindEngine) *Rewind {
	return &Rewind{styles: styles, keys: km, ctx: ctx, engine: engine, note: "reading the checkpoints…", own: rewindKeys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next")),
		Pick:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
		Overwrite: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "overwrite them")),
		Keep:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "keep yours")),
	}}
}

// rewindPointsMsg carries the list of points.
type rewindPointsMsg struct {
	points []checkpoint.Point
	err    error
}

// rewindPlanMsg carries what restoring the files would do.
type rewindPlanMsg struct {
	id   string
	plan checkpoint.Plan
	err  error
}

// Load reads the points, in a command.
func (r *Rewind) Load() tea.Cmd {
	e := r.engine
	return func() tea.Msg {
		ps, err := e.RewindPoints()
		return rewindPointsMsg{points: ps, err: err}
	}
}

// Title names the screen on the view bar.
func (r *Rewind) Title() string { return "Rewind" }

// ShortHelp is the view bar's keys.
func (r *Rewind) ShortHelp() []key.Binding {
	if r.stage == stagePlan && r.plan != nil {
		return []key.Binding{r.own.Overwrite, r.own.Keep, r.keys.ViewBack}
	}
	return []key.Binding{r.own.Pick, r.own.Up, r.own.Down, r.keys.ViewBack}
}

// FullHelp is the screen's group of the full help.
func (r *Rewind) FullHelp() [][]key.Binding {
	return [][]key.Binding{{r.own.Up, r.own.Down, r.own.Pick, r.own.Overwrite, r.own.Keep, r.keys.ViewBack}}
}

// SetSize sets the area the screen fills.
func (r *Rewind) SetSize(width, height int) { r.width, r.height = max(width, 1), max(height, 1) }

// Update moves, picks, and answers; esc goes back a stage, then closes.
func (r *Rewind) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case rewindPointsMsg:
		r.points, r.note = msg.points, ""
		if msg.err != nil {
			r.note = "cannot rewind: " + msg.err.Error()
		} else if len(msg.points) == 0 {
			r.note = "nothing to rewind to yet: no message has been sent in this session"
		}
		return nil, nil
	case rewindPlanMsg:
		return r.planned(msg)
	case tea.KeyMsg:
		return r.key(msg)
	}
	return nil, nil
}

func (r *Rewind) key(k tea.KeyMsg) (Action, tea.Cmd) {
	if key.Matches(k, r.keys.ViewBack) {
		switch r.stage {
		case stagePoints:
			return Back{}, nil
		case stageChoice:
			r.stage = stagePoints
		case stagePlan:
			r.stage, r.plan = stageChoice, nil
		}
		r.note = ""
		return nil, nil
	}
	switch r.stage {
	case stagePoints:
		switch {
		case key.Matches(k, r.own.Up):
			r.sel = max(r.sel-1, 0)
		case key.Matches(k, r.own.Down):
			r.sel = max(min(r.sel+1, len(r.points)-1), 0)
		case key.Matches(k, r.own.Pick) && r.sel < len(r.points):
			r.stage, r.choice, r.note = stageChoice, 0, ""
			if r.points[r.sel].NoCode {
				r.choice = int(checkpoint.ConversationOnly)
			}
		}
	case stageChoice:
		switch {
		case key.Matches(k, r.own.Up):
			r.choice = max(r.choice-1, 0)
		case key.Matches(k, r.own.Down):
			r.choice = min(r.choice+1, len(choices)-1)
		case key.Matches(k, r.own.Pick):
			return r.pick()
		}
	case stagePlan:
		if r.plan == nil {
			return nil, nil
		}
		switch {
		case key.Matches(k, r.own.Overwrite):
			return r.run(nil), nil
		case key.Matches(k, r.own.Keep):
			var keep []string
			for _, c := range r.plan.Conflicts {
				keep = append(keep, c.Path)
			}
			return r.run(keep), nil
		}
	}
	return nil, nil
}

// pick takes the choice: a conversation-only rewind runs at once; one
// that puts files back first works out which of them the user changed.
func (r *Rewind) pick() (Action, tea.Cmd) {
	p := r.points[r.sel]
	if r.choice != checkpoint.ConversationOnly && p.NoCode {
		r.note = "no snapshot of the files was taken at that point: only the conversation can go back"
		return nil, nil
	}
	if r.choice == checkpoint.ConversationOnly {
		return r.run(nil), nil
	}
	r.stage, r.plan, r.note = stagePlan, nil, "comparing the files with the checkpoint…"
	e, ctx, id := r.engine, r.ctx, p.ID
	return nil, func() tea.Msg {
		plan, err := e.PlanRewind(ctx, id)
		return rewindPlanMsg{id: id, plan: plan, err: err}
	}
}

func (r *Rewind) planned(msg rewindPlanMsg) (Action, tea.Cmd) {
	if r.stage != stagePlan || r.sel >= len(r.points) || r.points[r.sel].ID != msg.id {
		return nil, nil // stale
	}
	if msg.err != nil {
		r.stage, r.note = stageChoice, msg.err.Error()
		return nil, nil
	}
	r.note = ""
	if len(msg.plan.Conflicts) == 0 {
		return r.run(nil), nil
	}
	r.plan = &msg.plan
	return nil, nil
}

func (r *Rewind) run(keep []string) Action {
	p := r.points[r.sel]
	return RewindTo{Req: checkpoint.Request{To: p.ID, Mode: r.choice, Keep: keep}, Label: pointLabel(p)}
}

func pointLabel(p checkpoint.Point) string {
	if p.Redo {
		return "the branch before the last /rewind"
	}
	return "“" + cells.OneLine(p.Text) + "”"
}

// View draws the stage.
func (r *Rewind) View() string {
	var lines []string
	selAt := 0
	switch r.stage {
	case stagePoints:
		lines, selAt = r.pointLines()
	case stageChoice:
		lines, selAt = r.choiceLines()
	case stagePlan:
		lines = r.planLines()
	}
	if r.note != "" {
		lines = append(lines, "", cells.Fit(r.styles.Notice.Info.Render(r.note), r.width))
	}
	h := r.height
	off := 0
	if selAt >= h-1 {
		off = selAt - h/2
	}
	off = min(max(off, 0), max(len(lines)-h, 0))
	lines = lines[off:min(len(lines), off+h)]
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

func (r *Rewind) pointLines() (out []string, selAt int) {
	st, w := r.styles, r.width
	if len(r.points) == 0 {
		return []string{cells.Fit(st.Crew.Title.Render("Rewind"), w)}, 0
	}
	out = append(out, cells.Fit(st.Crew.Title.Render("Rewind to before which message? (newest first)"), w))
	for i, p := range r.points {
		mark, name := "  ", st.Crew.Row
		if i == r.sel {
			mark, name = SelGlyph, st.Crew.Selected
			selAt = len(out)
		}
		at := p.Time.Local().Format("15:04")
		text := cells.OneLine(p.Text)
		if p.Redo {
			text = "↷ forward again: as it was before the last /rewind"
			if p.Text != "" {
				text += " (last message “" + cells.OneLine(p.Text) + "”)"
			}
		}
		out = append(out, cells.Fit(mark+st.Crew.Header.Render(at)+"  "+name.Render(text), w))
		var detail string
		switch {
		case p.Redo:
		case p.NoCode:
			detail = "no snapshot of the files: conversation only"
		case len(p.Files) == 0:
			detail = "no file changed after it"
		default:
			n := len(p.Files) + p.More
			detail = fmt.Sprintf("%s changed after it: %s", plural.Count(n, "file"), strings.Join(p.Files, ", "))
			if p.More > 0 {
				detail += fmt.Sprintf(", … %d more", p.More)
			}
		}
		if detail != "" {
			out = append(out, cells.Fit("         "+st.Crew.Header.Render(detail), w))
		}
	}
	return out, selAt
}

func (r *Rewind) choiceLines() (out []string, selAt int) {
	st, w := r.styles, r.width
	p := r.points[r.sel]
	out = append(out, cells.Fit(st.Crew.Title.Render("Rewind to before "+pointLabel(p)+": what goes back?"), w))
	for i, c := range choices {
		mark, name := "  ", st.Crew.Row
		if i == r.choice {
			mark, name = SelGlyph, st.Crew.Selected
			selAt = len(out)
		}
		out = append(out, cells.Fit(mark+name.Render(c.name)+"  "+st.Crew.Header.Render(c.desc), w))
	}
	out = append(out, "", cells.Fit(st.Crew.Header.Render("Not covered by checkpoints: files your .gitignore ignores, and files over 10 MB."), w))
	return out, selAt
}

func (r *Rewind) planLines() []string {
	st, w := r.styles, r.width
	if r.plan == nil {
		return []string{cells.Fit(st.Crew.Title.Render("Rewind to before "+pointLabel(r.points[r.sel])), w)}
	}
	n := len(r.plan.Conflicts)
	out := []string{cells.Fit(st.Notice.Warning.Render(fmt.Sprintf("%s changed outside covey since then; putting the files back would overwrite %s:", plural.Count(n, "file"), plural.Pick(n, "it", "them"))), w)}
	for _, c := range r.plan.Conflicts {
		out = append(out, cells.Fit(st.Crew.Selected.Render(c.Path), w))
		for _, l := range strings.Split(strings.TrimRight(c.Diff, "\n"), "\n") {
			if strings.HasPrefix(l, "diff --git") || strings.HasPrefix(l, "index ") {
				continue
			}
			out = append(out, cells.Fit("  "+cells.Clean(l), w))
		}
	}
	if len(r.plan.Skipped) > 0 {
		out = append(out, cells.Fit(st.Crew.Header.Render("not covered (over 10 MB), left as they are: "+strings.Join(r.plan.Skipped, ", ")), w))
	}
	hint := keys.Name(r.own.Overwrite) + " overwrite them with the checkpoint's version · " + keys.Name(r.own.Keep) + " keep yours, put back the rest · " + keys.Name(r.keys.ViewBack) + " back"
	return append(out, "", cells.Fit(st.Crew.Header.Render(hint), w))
}
