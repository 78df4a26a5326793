package screens

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"covey/agent"
	"covey/internal/plural"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// CrewOverview is the crew overview (ctrl+g, /crew): one row per child of
// the session, nested children indented under their parent, with its
// type, state, tool calls, tokens, cost, elapsed time, model and task. The
// arrow keys move the selection; the root model acts on Selected (open,
// message, pause, cancel). It draws from the panes themselves, so it is
// always as current as the transcript.
type CrewOverview struct {
	styles *theme.Styles
	keys   *keys.KeyMap // the root's: esc, the crew keys, paging
	own    crewOverviewKeys
	width  int
	height int
	// from is the pane focused when the overview was opened from the
	// conversation (esc goes back to it); nil: the input.
	from transcript.Block

	rows     []*transcript.SubagentBlock // depth first, as the root gives them (SetRows)
	sel      *transcript.SubagentBlock   // kept across changes of rows
	offset   int                         // first row shown
	now      time.Time
	showCost bool // a price table is set: the cost column shows

	q   crewLooks
	buf strings.Builder
}

// crewLooks are the overview's styles as escape codes (see cells.Style):
// a hundred rows are redrawn on every tick while children run.
type crewLooks struct {
	title, header, row, selected, tree, stalled, number cells.Style
	// state is the states' colours; selState the same, reversed, on the
	// selected row, where a state drawn like the selection (paused,
	// queued and awaiting approval share its accent) would lose its colour.
	state, selState stateLooks
}

// stateLooks is a colour per kind of state.
type stateLooks struct {
	running, done, failed, cancelled, cutShort, waiting cells.Style
}

func newStateLooks(st *theme.Styles, reverse bool) stateLooks {
	q := func(s lipgloss.Style) cells.Style { return cells.NewStyle(s.Reverse(reverse)) }
	return stateLooks{
		running: q(st.Subagent.Running), done: q(st.Subagent.Done),
		failed: q(st.Subagent.Failed), cancelled: q(st.Subagent.Cancelled),
		cutShort: q(st.Blocks.MaxTurns), waiting: q(st.Blocks.Waiting),
	}
}

func newCrewLooks(st *theme.Styles) crewLooks {
	return crewLooks{
		title: cells.NewStyle(st.Crew.Title), header: cells.NewStyle(st.Crew.Header),
		row: cells.NewStyle(st.Crew.Row), selected: cells.NewStyle(st.Crew.Selected),
		tree: cells.NewStyle(st.Crew.Tree), stalled: cells.NewStyle(st.Crew.Stalled),
		number: cells.NewStyle(st.Crew.Number),
		state:  newStateLooks(st, false), selState: newStateLooks(st, true),
	}
}

// crewOverviewKeys are the overview's own keys.
type crewOverviewKeys struct {
	Up, Down, Open key.Binding
}

func newCrewOverviewKeys() crewOverviewKeys {
	return crewOverviewKeys{
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous subagent")),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next subagent")),
		Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
	}
}

// NewCrewOverview is an empty overview; km is the root's KeyMap, whose
// shared bindings (esc, the crew keys) it takes.
func NewCrewOverview(styles *theme.Styles, km *keys.KeyMap) *CrewOverview {
	return &CrewOverview{styles: styles, keys: km, own: newCrewOverviewKeys(), q: newCrewLooks(styles)}
}

// SetStyles draws the overview with other styles.
func (o *CrewOverview) SetStyles(styles *theme.Styles) {
	o.styles, o.q = styles, newCrewLooks(styles)
}

// Title names the overview on the view bar.
func (o *CrewOverview) Title() string { return "crew overview" }

// open is the Open binding, enabled when a child is selected.
func (o *CrewOverview) open() key.Binding {
	b := o.own.Open
	b.SetEnabled(o.sel != nil)
	return b
}

// ShortHelp is the view bar's keys: esc first, then what acts on the
// selection.
func (o *CrewOverview) ShortHelp() []key.Binding {
	k := o.keys
	// The arrows that move between rows are in the full help: a table's
	// rows move with arrows anyway, and the bar's room is for the keys
	// that act on the selected child.
	return []key.Binding{k.ViewBack, o.open(), k.ChildMessage, k.ChildPause, k.ChildBackground, k.CancelChild}
}

// FullHelp is the overview's group of the full help.
func (o *CrewOverview) FullHelp() [][]key.Binding {
	k := o.keys
	return [][]key.Binding{{o.own.Up, o.own.Down, o.open(), k.ChildOpen, k.ChildMessage, k.ChildPause, k.ChildBackground,
		k.CancelChild, k.ViewBack, k.AddressCancel}}
}

// SetFrom remembers the pane focused when the overview was opened.
func (o *CrewOverview) SetFrom(b transcript.Block) { o.from = b }

// TakeFrom is the pane the overview was opened from, forgotten.
func (o *CrewOverview) TakeFrom() transcript.Block {
	b := o.from
	o.from = nil
	return b
}

// From is the pane the overview was opened from, or nil.
func (o *CrewOverview) From() transcript.Block { return o.from }

// Chosen is the child the crew keys act on: the selection.
func (o *CrewOverview) Chosen() *transcript.SubagentBlock { return o.sel }

// SetSize sets the area the overview fills.
func (o *CrewOverview) SetSize(width, height int) {
	o.width, o.height = max(width, 1), max(height, 1)
	o.scroll()
}

// SetRows gives the overview the session's children (depth first) and the
// frame's clock; the selection stays on its child, or goes to the first.
func (o *CrewOverview) SetRows(rows []*transcript.SubagentBlock, now time.Time, showCost bool) {
	o.rows, o.now, o.showCost = rows, now, showCost
	if o.index(o.sel) < 0 {
		o.sel = nil
		if len(rows) > 0 {
			o.sel = rows[0]
		}
	}
	o.scroll()
}

// Select puts the selection on b, when it is a row.
func (o *CrewOverview) Select(b *transcript.SubagentBlock) {
	if o.index(b) >= 0 {
		o.sel = b
		o.scroll()
	}
}

// Selected is the selected child, or nil when there is none.
func (o *CrewOverview) Selected() *transcript.SubagentBlock { return o.sel }

func (o *CrewOverview) index(b *transcript.SubagentBlock) int {
	if b == nil {
		return -1
	}
	for i, r := range o.rows {
		if r == b {
			return i
		}
	}
	return -1
}

// Update moves the selection with Up and Down (and Top, Bottom, PageUp,
// PageDown), opens the selected child (enter) and goes back (esc); the
// crew keys on the selection (o, m, p, ctrl+b, x) are the root's, since
// they act on a focused pane too.
func (o *CrewOverview) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(k, o.keys.ViewBack):
		return Back{}, nil
	case key.Matches(k, o.own.Open) && o.sel != nil:
		return OpenChild{Child: o.sel}, nil
	}
	if len(o.rows) == 0 {
		return nil, nil
	}
	i := max(o.index(o.sel), 0)
	page := max(o.listHeight()-1, 1)
	switch {
	case key.Matches(k, o.own.Up):
		i--
	case key.Matches(k, o.own.Down):
		i++
	case key.Matches(k, o.keys.PageUp):
		i -= page
	case key.Matches(k, o.keys.PageDown):
		i += page
	case key.Matches(k, o.keys.Top):
		i = 0
	case key.Matches(k, o.keys.Bottom):
		i = len(o.rows) - 1
	default:
		return nil, nil
	}
	o.sel = o.rows[min(max(i, 0), len(o.rows)-1)]
	o.scroll()
	return nil, nil
}

// listHeight is how many rows fit under the title and the column names.
func (o CrewOverview) listHeight() int { return max(o.height-2, 1) }

// scroll keeps the selection in view.
func (o *CrewOverview) scroll() {
	i, h := max(o.index(o.sel), 0), o.listHeight()
	if i < o.offset {
		o.offset = i
	}
	if i >= o.offset+h {
		o.offset = i - h + 1
	}
	o.offset = min(max(o.offset, 0), max(len(o.rows)-h, 0))
}

// crewColumn is one column of the overview; columns that do not fit the
// width are dropped, the least useful first.
type crewColumn struct {
	title string
	width int  // the most it takes; type, state and model take what their rows need
	right bool // numbers are right-aligned
	drop  int  // 0 is never dropped; higher goes first
}

// The columns, in screen order. The name column takes what is left, up to
// nameMax, and the task whatever remains after it.
var crewColumns = [colCount]crewColumn{
	{title: "NAME", width: 0},
	{title: "TYPE", width: 15, drop: 4},
	{title: "STATE", width: 20},
	{title: "TOOLS", width: 5, right: true, drop: 5},
	{title: "TOKENS", width: 6, right: true, drop: 6},
	{title: "CTX", width: 4, right: true, drop: 4},
	{title: "COST", width: 8, right: true, drop: 3},
	{title: "ELAPSED", width: 14, right: true, drop: 1},
	{title: "MODEL", width: 24, drop: 7},
	{title: "COLLIDES", width: 22, drop: 1},
	{title: "TASK", width: 0},
}

const (
	colName = iota
	colType
	colState
	colTools
	colTokens
	colContext
	colCost
	colElapsed
	colModel
	colCollides
	colTask
	colCount
)

const (
	nameMin   = 12
	nameMax   = 20
	taskMin   = 16 // the task gives way to nothing until it is this narrow
	taskFloor = 10 // below this the task is not worth showing beside every column
	modelMin  = 10 // a model name cut shorter says nothing
	colGap    = 2
)

// SelGlyph marks the selected row of a screen's list (the overview's
// children, /mcp's servers).
const SelGlyph = "› "

// contentWidths are the widths the type, state, elapsed and model columns
// need for the rows (within their titles and their maxima), so short
// values leave their room to the task instead of padding.
func (o CrewOverview) contentWidths() (typ, state, elapsed, model int) {
	typ, state, elapsed, model = len("TYPE"), len("STATE"), len("ELAPSED"), len("MODEL")
	for _, r := range o.rows {
		typ = max(typ, cells.Width(r.TypeName()))
		s := cells.Width(r.StateName())
		if r.Stalled(o.now) {
			s += len(", stalled")
		}
		state = max(state, s)
		elapsed = max(elapsed, cells.Width(r.ShortClockText(o.now)))
		model = max(model, cells.Width(cells.OneLine(r.Model())))
	}
	return min(typ, crewColumns[colType].width), min(state, crewColumns[colState].width),
		min(elapsed, crewColumns[colElapsed].width), min(model, crewColumns[colModel].width)
}

// collidesWidth is what the collision column needs for the rows: none
// until a row collided (the column then appears), the newest collision up
// to its maximum.
func (o CrewOverview) collidesWidth() int {
	n := 0
	for _, r := range o.rows {
		if r.Collisions() > 0 {
			n = max(n, len(crewColumns[colCollides].title), cells.Width(r.CollisionText()))
		}
	}
	return min(n, crewColumns[colCollides].width)
}

// layout decides the width of each column at the overview's width: 0
// means the column is not shown. When the row is too wide, the task gives
// way first (to taskMin), then the model (to modelMin), the task again (to
// taskFloor) and the name (to nameMin); when that is not enough, columns
// are dropped instead, the rarer first.
func (o CrewOverview) layout() [colCount]int {
	var w [colCount]int
	for i, c := range crewColumns {
		w[i] = c.width
	}
	w[colType], w[colState], w[colElapsed], w[colModel] = o.contentWidths()
	w[colCollides] = o.collidesWidth()
	if !o.showCost {
		w[colCost] = 0
	}
	avail := o.width - len(SelGlyph)
	used := func() int {
		n := 0
		for i, cw := range w {
			if i == colName || i == colTask || cw == 0 {
				continue
			}
			n += cw + colGap
		}
		return n
	}
	// The name column fits the longest name (with its tree indent), within
	// nameMin and nameMax.
	want := nameMin
	for _, r := range o.rows {
		want = max(want, cells.Width(r.Name())+2*max(r.Depth()-1, 0))
	}
	want = min(want, nameMax)
	// Every column shows when truncating the task, the model and the name
	// makes room; otherwise columns must go anyway, and the name and the
	// task keep their room, as if nothing had been cut.
	fullName, fullModel := want, w[colModel]
	task := taskMin
	short := func() int { return used() + want + colGap + task - avail } // cells missing
	if n := short(); n > 0 && w[colModel] > modelMin {
		w[colModel] = max(w[colModel]-n, modelMin)
	}
	if n := short(); n > 0 {
		task = max(task-n, taskFloor)
	}
	if n := short(); n > 0 {
		want = max(want-n, nameMin)
	}
	if short() > 0 {
		want, w[colModel], task = fullName, fullModel, taskMin
	}
	// Drop the rarer columns until the task fits beside the name (all
	// but the elapsed time go for it, the wide tokens early), then the
	// others until the name fits at its least.
	for drop := 7; drop > 1 && short() > 0; drop-- {
		for i, c := range crewColumns {
			if c.drop == drop {
				w[i] = 0
			}
		}
	}
	for drop := 7; drop > 0 && avail-used() < nameMin; drop-- {
		for i, c := range crewColumns {
			if c.drop == drop {
				w[i] = 0
			}
		}
	}
	if avail-used() < nameMin {
		// Narrower still: the state gives way too.
		w[colState] = max(avail-nameMin-colGap, 1)
	}
	// The name takes up to want, leaving the task at least task; without
	// room for both the task goes.
	rest := avail - used()
	w[colTask] = 0
	if rest >= nameMin+colGap+task {
		w[colName] = max(min(want, rest-colGap-task), nameMin)
		w[colTask] = rest - w[colName] - colGap
	} else {
		w[colName] = min(max(rest, 1), nameMax)
	}
	return w
}

// View draws the title, the column names and the rows in view, exactly
// height lines.
func (o *CrewOverview) View() string {
	b := &o.buf
	b.Reset()
	w := o.layout()
	b.WriteString(o.title())
	lines := 1
	if o.height > 1 {
		b.WriteByte('\n')
		b.WriteString(o.header(w))
		lines++
	}
	rowWidth := len(SelGlyph) - colGap
	for _, cw := range w {
		if cw > 0 {
			rowWidth += cw + colGap
		}
	}
	narrow := rowWidth > o.width
	for i := o.offset; i < len(o.rows) && lines < o.height; i++ {
		b.WriteByte('\n')
		if narrow {
			// Too narrow for the columns' least: cut each row.
			var rb strings.Builder
			o.row(&rb, o.rows[i], w)
			b.WriteString(cells.Fit(rb.String(), o.width))
		} else {
			o.row(b, o.rows[i], w)
		}
		lines++
	}
	if len(o.rows) == 0 && lines < o.height {
		b.WriteByte('\n')
		b.WriteString(o.q.number.Render(cells.Fit("  no subagents in this session yet", o.width)))
		lines++
	}
	for ; lines < o.height; lines++ {
		b.WriteByte('\n')
	}
	return b.String()
}

// title is "Crew · 5 subagents · 2 running · 1 paused · 1 queued · 1
// awaiting approval · 2 in background · 1 stalled · $0.12".
func (o CrewOverview) title() string {
	c := countCrew(o.rows, o.now)
	t := "Crew · " + c.String()
	if c.priced {
		t += " · " + transcript.Dollars(c.cost)
	}
	return o.q.title.Render(cells.Fit(t, o.width))
}

// crewCount is the crew overview's title counts. Every row that has not
// finished is in exactly one of running, paused, queued and approval;
// background and stalled count some of those again.
type crewCount struct {
	subagents, shells                 int
	running, paused, queued, approval int
	background, stalled               int
	cost                              float64
	priced                            bool
}

// countCrew counts the rows' states at now.
func countCrew(rows []*transcript.SubagentBlock, now time.Time) crewCount {
	var c crewCount
	for _, r := range rows {
		if r.IsShell() {
			c.shells++
		} else {
			c.subagents++
		}
		if v, ok := r.Cost(); ok {
			c.cost, c.priced = c.cost+v, true
		}
		if !r.Running() {
			continue
		}
		switch {
		case r.Waiting():
			c.approval++
		case r.Queued():
			c.queued++ // waiting for a slot: not running yet
		case r.PauseSet():
			c.paused++
		default:
			c.running++
		}
		if r.Background() && !r.IsShell() {
			c.background++
		}
		if r.Stalled(now) {
			c.stalled++
		}
	}
	return c
}

// String is the counts as the title says them, without the cost.
func (c crewCount) String() string {
	t := plural.Count(c.subagents, "subagent")
	switch {
	case c.shells > 0 && c.subagents == 0:
		t = plural.Count(c.shells, "shell")
	case c.shells > 0:
		t += ", " + plural.Count(c.shells, "shell")
	}
	t += " · " + strconv.Itoa(c.running) + " running"
	for _, p := range []struct {
		n    int
		what string
	}{{c.paused, "paused"}, {c.queued, "queued"}, {c.approval, "awaiting approval"}, {c.background, "in background"}, {c.stalled, "stalled"}} {
		if p.n > 0 {
			t += " · " + strconv.Itoa(p.n) + " " + p.what
		}
	}
	return t
}

func (o CrewOverview) header(w [colCount]int) string {
	var b strings.Builder
	b.WriteString("  ")
	first := true
	for i, c := range crewColumns {
		if w[i] == 0 {
			continue
		}
		if !first {
			b.WriteString("  ")
		}
		first = false
		b.WriteString(cell(c.title, w[i], c.right))
	}
	return o.q.header.Render(cells.Fit(strings.TrimRight(b.String(), " "), o.width))
}

// row draws one child's row.
func (o *CrewOverview) row(b *strings.Builder, r *transcript.SubagentBlock, w [colCount]int) {
	selected := r == o.sel
	text := o.q.row
	if selected {
		b.WriteString(o.q.selected.Render(SelGlyph))
		text = o.q.selected
	} else {
		b.WriteString("  ")
	}
	// The name, indented under its parent.
	indent := ""
	if d := r.Depth(); d > 1 {
		indent = strings.Repeat("  ", d-2) + "└ "
	}
	name := cells.Fit(r.Name(), max(w[colName]-cells.Width(indent), 1))
	if indent != "" {
		b.WriteString(o.q.tree.Render(indent))
	}
	b.WriteString(text.Render(name))
	pad(b, w[colName]-cells.Width(indent)-cells.Width(name))
	for i := colType; i < len(crewColumns); i++ {
		if w[i] == 0 {
			continue
		}
		b.WriteString("  ")
		switch i {
		case colType:
			b.WriteString(text.Render(cell(r.TypeName(), w[i], false)))
		case colState:
			o.stateCell(b, r, w[i], selected)
		case colTools, colTokens, colContext:
			if r.IsShell() {
				b.WriteString(o.q.number.Render(cell("-", w[i], true))) // a shell calls no tools, spends no tokens
				continue
			}
			switch i {
			case colTools:
				b.WriteString(o.q.number.Render(cell(strconv.Itoa(r.ToolCalls()), w[i], true)))
			case colTokens:
				// In and out together, as the pane says it; /cost splits them.
				b.WriteString(o.q.number.Render(cell(agent.FormatTokens(r.Usage().Total()), w[i], true)))
			default:
				b.WriteString(o.q.number.Render(cell(r.ContextText(), w[i], true)))
			}
		case colCost:
			c := "-"
			if v, ok := r.Cost(); ok {
				c = transcript.Dollars(v)
			}
			b.WriteString(o.q.number.Render(cell(c, w[i], true)))
		case colElapsed:
			b.WriteString(o.q.number.Render(cell(r.ShortClockText(o.now), w[i], true)))
		case colModel:
			b.WriteString(o.q.number.Render(cell(cells.OneLine(r.Model()), w[i], false)))
		case colCollides:
			look := o.q.number
			if r.Collisions() > 0 {
				look = o.q.stalled
			}
			b.WriteString(look.Render(cell(r.CollisionText(), w[i], false)))
		case colTask:
			b.WriteString(text.Render(cells.Fit(cells.OneLine(r.Description()), w[i])))
		}
	}
}

// stateCell is the state in its colour (reversed on the selected row),
// and "stalled" when the child did nothing for stallAfter.
func (o *CrewOverview) stateCell(b *strings.Builder, r *transcript.SubagentBlock, w int, selected bool) {
	state := r.StateName()
	looks := o.q.state
	if selected {
		looks = o.q.selState
	}
	look := looks.running
	first, _, _ := strings.Cut(state, " · ")
	switch first {
	case "done":
		look = looks.done
		if r.FailedCalls() > 0 {
			look = looks.cutShort // done, but not all it tried worked
		}
	case "failed":
		look = looks.failed
	case "cancelled", "interrupted":
		look = looks.cancelled
	case "cut short":
		look = looks.cutShort
	case "waiting for approval", "paused", "queued", transcript.StateNeedsAnswer, transcript.StateNeedsPlan:
		look = looks.waiting
	}
	if r.Stalled(o.now) {
		s := transcript.StateTrim(state, max(w-len(", stalled"), 1))
		b.WriteString(look.Render(s))
		b.WriteString(o.q.stalled.Render(", stalled"))
		pad(b, w-cells.Width(s)-len(", stalled"))
		return
	}
	s := transcript.StateTrim(state, w)
	b.WriteString(look.Render(s))
	pad(b, w-cells.Width(s))
}

// cell is plain text cut or padded to exactly w cells.
func cell(s string, w int, right bool) string {
	s = cells.Fit(s, w)
	n := w - cells.Width(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

func pad(b *strings.Builder, n int) {
	for ; n > 0; n-- {
		b.WriteByte(' ')
	}
}
