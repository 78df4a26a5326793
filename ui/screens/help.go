package screens

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// Help is the /help screen: every key, the input's forms and the slash
// commands, in place of the conversation, scrolled with the arrows and
// the page keys, closed with esc or q. Its text is the root's: lines with
// no indentation are headings, lines with a tab rows of two columns
// (transcript.ColumnText lays them out at the screen's width).
type Help struct {
	styles *theme.Styles
	keys   *keys.KeyMap // the root's: esc
	own    helpKeys
	text   string
	width  int
	height int
	off    int // the first line shown
}

// helpKeys are the help screen's own keys.
type helpKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Close key.Binding
}

func newHelpKeys() helpKeys {
	return helpKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", " ", "f"), key.WithHelp("pgdn/space", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "bottom")),
		Close:    key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "close")),
	}
}

// NewHelp is the help screen showing text; km is the root's KeyMap, whose
// esc it takes.
func NewHelp(styles *theme.Styles, km *keys.KeyMap, text string) *Help {
	return &Help{styles: styles, keys: km, own: newHelpKeys(), text: text}
}

// Title names the screen on the view bar.
func (h *Help) Title() string { return "help" }

// ShortHelp is the view bar's keys.
func (h *Help) ShortHelp() []key.Binding {
	return []key.Binding{h.keys.ViewBack, h.own.Close, h.own.Down, h.own.Up, h.own.PageDown, h.own.PageUp}
}

// FullHelp is the screen's group of the full help.
func (h *Help) FullHelp() [][]key.Binding {
	o := h.own
	return [][]key.Binding{{h.keys.ViewBack, o.Close, o.Up, o.Down, o.PageUp, o.PageDown, o.Top, o.Bottom}}
}

// SetSize sets the area the screen fills.
func (h *Help) SetSize(width, height int) {
	h.width, h.height = max(width, 1), max(height, 1)
	h.off = min(h.off, h.maxOff())
}

// Update scrolls, and goes back on esc or q.
func (h *Help) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, nil
	}
	page := max(h.bodyHeight()-1, 1)
	switch o := h.own; {
	case key.Matches(k, h.keys.ViewBack), key.Matches(k, o.Close):
		return Back{}, nil
	case key.Matches(k, o.Up):
		h.off--
	case key.Matches(k, o.Down):
		h.off++
	case key.Matches(k, o.PageUp):
		h.off -= page
	case key.Matches(k, o.PageDown):
		h.off += page
	case key.Matches(k, o.Top):
		h.off = 0
	case key.Matches(k, o.Bottom):
		h.off = h.maxOff()
	}
	h.off = min(max(h.off, 0), h.maxOff())
	return nil, nil
}

// bodyHeight is the rows the text gets: the screen less its title and
// hint lines.
func (h *Help) bodyHeight() int { return max(h.height-2, 1) }

// maxOff is the last first line: the text's end at the screen's bottom.
func (h *Help) maxOff() int { return max(len(h.body())-h.bodyHeight(), 0) }

// body is the text laid out at the screen's width, headings styled.
func (h *Help) body() []string {
	// Two cells of margin on the left, one on the right.
	w := max(h.width-3, 10)
	var out, section []string
	// A section's rows share one column.
	flush := func() {
		if len(section) > 0 {
			for _, r := range transcript.ColumnText(strings.Join(section, "\n"), w) {
				out = append(out, "  "+r)
			}
		}
		section = section[:0]
	}
	for _, l := range strings.Split(strings.TrimRight(h.text, "\n"), "\n") {
		if l != "" && l[0] != ' ' {
			flush()
			out = append(out, "  "+h.styles.Crew.Title.Render(cells.Fit(l, w)))
			continue
		}
		section = append(section, l)
	}
	flush()
	return out
}

// View draws the title with where the view is in the text, the text from
// the first line shown, and the keys.
func (h *Help) View() string {
	st, w := h.styles, h.width
	body := h.body()
	n := h.bodyHeight()
	end := min(h.off+n, len(body))
	title := "covey help"
	if len(body) > n {
		title += fmt.Sprintf(" · lines %d–%d of %d", h.off+1, end, len(body))
	}
	out := []string{cells.Fit(st.Crew.Title.Render(title), w)}
	out = append(out, body[h.off:end]...)
	for len(out) < n+1 {
		out = append(out, "")
	}
	o := h.own
	hint := keys.First(o.Down) + "/" + keys.First(o.Up) + " scroll · " + keys.Name(o.PageDown) + " page · " +
		keys.Name(h.keys.ViewBack) + "/" + keys.Name(o.Close) + " close"
	out = append(out, cells.Fit(st.Crew.Header.Render(hint), w))
	return strings.Join(out, "\n")
}
