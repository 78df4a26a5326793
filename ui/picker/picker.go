// Package picker is the session picker covey --resume shows before the
// TUI starts: a program of its own, sharing nothing with the root model
// but the theme.
package picker

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

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
	// When is when it was created, as the caller formats it.
	When string
	// Detail is a short note: message count, model.
	Detail string
}

// PickSession shows a full-screen list of sessions and returns the ID the
// user picks with Enter; Esc or ctrl+c (or ctx ending) gives ErrNoChoice.
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
	if !ok || !pm.chosen {
		return "", ErrNoChoice
	}
	return pm.items[pm.sel].ID, nil
}

// pickerKeys are the picker's bindings.
type pickerKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Pick, Quit key.Binding
}

func defaultPickerKeys() pickerKeys {
	return pickerKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "first")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "last")),
		Pick:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "resume")),
		Quit:     key.NewBinding(key.WithKeys("esc", "ctrl+c", "q"), key.WithHelp("esc", "cancel")),
	}
}

// pickerRows is how many screen lines one item takes.
const pickerRows = 2

// picker is the session list: a cursor over the items, scrolled to keep
// it in view.
type picker struct {
	items         []SessionItem
	styles        *theme.Styles
	keys          pickerKeys
	sel, top      int
	width, height int
	chosen        bool
}

func newPicker(items []SessionItem, styles *theme.Styles) picker {
	return picker{items: items, styles: styles, keys: defaultPickerKeys(), width: 80, height: 24}
}

// Init implements tea.Model.
func (p picker) Init() tea.Cmd { return nil }

// visible is how many items fit between the title and the hint line.
func (p picker) visible() int { return max((p.height-3)/pickerRows, 1) }

// Update implements tea.Model.
func (p picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, p.keys.Quit):
			return p, tea.Quit
		case key.Matches(msg, p.keys.Pick):
			p.chosen = true
			return p, tea.Quit
		case key.Matches(msg, p.keys.Up):
			p.sel--
		case key.Matches(msg, p.keys.Down):
			p.sel++
		case key.Matches(msg, p.keys.PageUp):
			p.sel -= p.visible()
		case key.Matches(msg, p.keys.PageDown):
			p.sel += p.visible()
		case key.Matches(msg, p.keys.Top):
			p.sel = 0
		case key.Matches(msg, p.keys.Bottom):
			p.sel = len(p.items) - 1
		}
	}
	p.sel = min(max(p.sel, 0), len(p.items)-1)
	n := p.visible()
	switch {
	case p.sel < p.top:
		p.top = p.sel
	case p.sel >= p.top+n:
		p.top = p.sel - n + 1
	}
	p.top = min(max(p.top, 0), max(len(p.items)-n, 0))
	return p, nil
}

// View implements tea.Model.
func (p picker) View() string {
	st := p.styles.Picker
	w := max(p.width, 1)
	lines := []string{cells.Fit(st.Title.Render(fmt.Sprintf("Resume a session (%d)", len(p.items))), w), ""}
	n := p.visible()
	for i := p.top; i < min(p.top+n, len(p.items)); i++ {
		it := p.items[i]
		marker, title := "  ", st.Item
		if i == p.sel {
			marker, title = "› ", st.Selected
		}
		name := cells.OneLine(it.Title)
		if strings.TrimSpace(name) == "" {
			name = "(no messages)"
		}
		head := title.Render(marker+name) + "  " + st.Detail.Render(it.When)
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
	hint := fmt.Sprintf("%s/%s choose · %s %s · %s %s · %d/%d",
		keys.First(k.Up), keys.First(k.Down), keys.Name(k.Pick), k.Pick.Help().Desc, keys.Name(k.Quit), k.Quit.Help().Desc, p.sel+1, len(p.items))
	lines = append(lines, cells.Fit(st.Hint.Render(hint), w))
	return strings.Join(lines, "\n")
}
