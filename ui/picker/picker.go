// Package picker is the session picker covey --resume shows before the
// TUI starts: a program of its own, sharing nothing with the root model
// but the theme.
package picker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/internal/plural"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
)

// ErrNoChoice is returned by PickSession when the user leaves the picker
// without choosing, or there is nothing to choose from.
var ErrNoChoice = errors.New("no session chosen")

// SessionItem is one session offered by PickSession.
type SessionItem struct {
	// ID is what PickSession returns for the item.
	ID string
	// Title is the session's first message.
	Title string
	// Modified is when the session last changed; the picker says it
	// relative to now ("3 minutes ago", "yesterday 15:04").
	Modified time.Time
	// Detail is a short note: message count, model.
	Detail string
}

// PickSession shows a full-screen list of sessions and returns the ID the
// user picks with Enter; typing filters the list (by title, id or
// detail); Esc clears the filter, or with none leaves, as ctrl+c (or ctx
// ending) does, with ErrNoChoice.
func PickSession(ctx context.Context, items []SessionItem, th *theme.Theme) (string, error) {
	return pickSession(ctx, items, th, tea.WithAltScreen())
}

// pickSession is PickSession with the program's options open, for tests.
func pickSession(ctx context.Context, items []SessionItem, th *theme.Theme, popts ...tea.ProgramOption) (string, error) {
	if len(items) == 0 {
		return "", fmt.Errorf("no sessions to resume: %w", ErrNoChoice)
	}
	if th == nil {
		th = theme.New(theme.ModeDark, true, false)
	}
	p := tea.NewProgram(newPicker(items, &th.Styles), append(popts, tea.WithContext(ctx))...)
	final, err := p.Run()
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, tea.ErrInterrupted) {
			return "", fmt.Errorf("session picker: %w", ErrNoChoice)
		}
		return "", fmt.Errorf("session picker: %w", err)
	}
	pm, ok := final.(picker)
	if !ok || !pm.chosen || len(pm.shown) == 0 {
		return "", ErrNoChoice
	}
	return pm.items[pm.shown[pm.sel]].ID, nil
}

// pickerKeys are the picker's bindings. Letters are the search's: the
// list moves with the arrows and the page keys only.
type pickerKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Pick, Erase, Back, Quit key.Binding
}

func defaultPickerKeys() pickerKeys {
	return pickerKeys{
		Up:       key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "first")),
		Bottom:   key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "last")),
		Pick:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "resume")),
		Erase:    key.NewBinding(key.WithKeys("backspace", "ctrl+h"), key.WithHelp("backspace", "erase")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear search/cancel")),
		Quit:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel")),
	}
}

// pickerRows is how many screen lines one item takes.
const pickerRows = 2

// picker is the session list: a search over the items, a cursor over
// those it matches, scrolled to keep it in view.
type picker struct {
	items         []SessionItem
	styles        *theme.Styles
	keys          pickerKeys
	now           func() time.Time
	query         string
	shown         []int // the items the query matches, in order
	sel, top      int   // indices into shown
	width, height int
	chosen        bool
}

func newPicker(items []SessionItem, styles *theme.Styles) picker {
	p := picker{items: items, styles: styles, keys: defaultPickerKeys(), now: time.Now, width: 80, height: 24}
	p.filter()
	return p
}

// filter keeps the items whose title, id or detail hold every word of
// the query, in any case.
func (p *picker) filter() {
	words := strings.Fields(strings.ToLower(p.query))
	p.shown = p.shown[:0]
	for i, it := range p.items {
		hay := strings.ToLower(it.Title + "\n" + it.ID + "\n" + it.Detail)
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(hay, w)
		}
		if ok {
			p.shown = append(p.shown, i)
		}
	}
	p.sel, p.top = 0, 0
}

// Init implements tea.Model.
func (p picker) Init() tea.Cmd { return nil }

// visible is how many items fit between the title and search lines and
// the hint line.
func (p picker) visible() int { return max((p.height-4)/pickerRows, 1) }

// Update implements tea.Model.
func (p picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
	case tea.KeyMsg:
		if done, cmd := p.key(msg); done {
			return p, cmd
		}
	}
	p.sel = min(max(p.sel, 0), max(len(p.shown)-1, 0))
	n := p.visible()
	switch {
	case p.sel < p.top:
		p.top = p.sel
	case p.sel >= p.top+n:
		p.top = p.sel - n + 1
	}
	p.top = min(max(p.top, 0), max(len(p.shown)-n, 0))
	return p, nil
}

// key handles one key; done says the program ends with cmd.
func (p *picker) key(msg tea.KeyMsg) (done bool, cmd tea.Cmd) {
	switch k := p.keys; {
	case key.Matches(msg, k.Quit):
		return true, tea.Quit
	case key.Matches(msg, k.Back):
		if p.query == "" {
			return true, tea.Quit
		}
		p.query = ""
		p.filter()
	case key.Matches(msg, k.Pick):
		if len(p.shown) > 0 {
			p.chosen = true
			return true, tea.Quit
		}
	case key.Matches(msg, k.Up):
		p.sel--
	case key.Matches(msg, k.Down):
		p.sel++
	case key.Matches(msg, k.PageUp):
		p.sel -= p.visible()
	case key.Matches(msg, k.PageDown):
		p.sel += p.visible()
	case key.Matches(msg, k.Top):
		p.sel = 0
	case key.Matches(msg, k.Bottom):
		p.sel = len(p.shown) - 1
	case key.Matches(msg, k.Erase):
		if r := []rune(p.query); len(r) > 0 {
			p.query = string(r[:len(r)-1])
			p.filter()
		}
	case msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace:
		p.query += cells.OneLine(string(msg.Runes))
		if msg.Type == tea.KeySpace {
			p.query += " "
		}
		p.filter()
	}
	return false, nil
}

// View implements tea.Model.
func (p picker) View() string {
	st := p.styles.Picker
	w := max(p.width, 1)
	title := fmt.Sprintf("Resume a session (%d)", len(p.items))
	if p.query != "" {
		title = fmt.Sprintf("Resume a session (%d of %d)", len(p.shown), len(p.items))
	}
	search := st.Detail.Render("type to search")
	if p.query != "" {
		search = st.Item.Render("search: "+p.query) + "▏"
	}
	lines := []string{cells.Fit(st.Title.Render(title), w), cells.Fit(search, w), ""}
	if len(p.shown) == 0 {
		lines = append(lines, cells.Fit(st.Detail.Render("  no session matches "+strconv.Quote(p.query)+" (esc clears the search)"), w))
	}
	n := p.visible()
	now := p.now()
	for i := p.top; i < min(p.top+n, len(p.shown)); i++ {
		it := p.items[p.shown[i]]
		marker, style := "  ", st.Item
		if i == p.sel {
			marker, style = "› ", st.Selected
		}
		name := cells.OneLine(it.Title)
		if strings.TrimSpace(name) == "" {
			name = "(no messages)"
		}
		head := style.Render(marker+name) + "  " + st.Detail.Render(Ago(it.Modified, now))
		lines = append(lines, cells.Fit(head, w))
		detail := it.ID
		if it.Detail != "" {
			detail += " · " + cells.OneLine(it.Detail)
		}
		lines = append(lines, cells.Fit("    "+st.Detail.Render(detail), w))
	}
	for len(lines) < p.height-1 {
		lines = append(lines, "")
	}
	k := p.keys
	pos := "0/0"
	if len(p.shown) > 0 {
		pos = fmt.Sprintf("%d/%d", p.sel+1, len(p.shown))
	}
	hint := fmt.Sprintf("%s/%s choose · %s %s · type to search · %s %s · %s",
		keys.First(k.Up), keys.First(k.Down), keys.Name(k.Pick), k.Pick.Help().Desc, keys.Name(k.Back), k.Back.Help().Desc, pos)
	lines = append(lines, cells.Fit(st.Hint.Render(hint), w))
	return strings.Join(lines, "\n")
}

// Ago says when t was, relative to now, as a person would: "just now",
// "3 minutes ago", "2 hours ago", "yesterday 15:04", "4 days ago",
// "12 Mar", "12 Mar 2025" (in now's time zone).
func Ago(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(now.Location())
	d := now.Sub(t)
	day := func(x time.Time) time.Time {
		y, m, dd := x.Date()
		return time.Date(y, m, dd, 0, 0, 0, 0, x.Location())
	}
	days := int(day(now).Sub(day(t)).Hours()/24 + 0.5)
	switch {
	case d < 0:
		return t.Format("2 Jan 2006 15:04") // a clock set back: say the date
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural.Count(int(d/time.Minute), "minute") + " ago"
	case days == 0 || d < 6*time.Hour:
		return plural.Count(int(d/time.Hour), "hour") + " ago"
	case days == 1:
		return "yesterday " + t.Format("15:04")
	case days < 7:
		return plural.Count(days, "day") + " ago"
	case t.Year() == now.Year():
		return t.Format("2 Jan")
	}
	return t.Format("2 Jan 2006")
}
