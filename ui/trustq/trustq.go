// Package trustq is the start-up trust question: before the session
// starts, a full-screen list of everything a workspace brings that only
// the user may allow (its settings, and the commands covey would run by
// itself), answered y or n. A program of its own, like the session
// picker, sharing nothing with the root model but the theme.
//
// The list is shown whole, each entry escaped (a newline or an escape
// sequence shows as \n or \x1b, so padding cannot push an entry off
// screen or hide it), and y trusts only once every line has been on
// screen: a list taller than the screen scrolls, a line or a page at a
// time, and y before its end is refused with a hint.
package trustq

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/internal/plural"
	"covey/theme"
)

// ErrNoAnswer is Ask's error when the user left without answering
// (ctrl+c, or ctx ended): nothing is remembered.
var ErrNoAnswer = errors.New("the trust question was not answered")

// Item is one entry of the question: what it is (a setting's key, "hook
// PreToolUse"), its value or command, and the file it came from. Ask
// escapes them.
type Item struct {
	Label, Text, From string
}

// Question is what Ask shows.
type Question struct {
	// Folder is the workspace asked about.
	Folder string
	// Settings are the config file's settings that need trust; File
	// names that file.
	Settings []Item
	File     string
	// Commands are the commands covey would run by itself.
	Commands []Item
}

// Ask shows q full-screen and reports whether the user trusted it (y) or
// not (n, esc); ErrNoAnswer when they left without answering.
func Ask(ctx context.Context, q Question, th *theme.Theme) (bool, error) {
	return ask(ctx, q, th, tea.WithAltScreen())
}

// ask is Ask with the program's options open, for tests.
func ask(ctx context.Context, q Question, th *theme.Theme, popts ...tea.ProgramOption) (bool, error) {
	if th == nil {
		th = theme.New(theme.ModeDark, true, false)
	}
	p := tea.NewProgram(program{New(q, th)}, append(popts, tea.WithContext(ctx))...)
	final, err := p.Run()
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, tea.ErrInterrupted) {
			return false, ErrNoAnswer
		}
		return false, fmt.Errorf("trust question: %w", err)
	}
	m, ok := final.(program)
	if !ok || m.Answer == Unanswered {
		return false, ErrNoAnswer
	}
	return m.Answer == Yes, nil
}

// Answer is the user's answer so far.
type Answer int

// The answers.
const (
	Unanswered Answer = iota
	Yes
	No
)

// KeyMap is the question's bindings.
type KeyMap struct {
	Yes, No, Quit, LineUp, LineDown, PageUp, PageDown key.Binding
}

// DefaultKeyMap is the question's default bindings. There is no key to
// jump to the end: reaching it means every line was on screen.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Yes:      key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "trust")),
		No:       key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "don't trust")),
		Quit:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		LineUp:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "up")),
		LineDown: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", " ", "f"), key.WithHelp("pgdn/space", "page down")),
	}
}

// headRows and footRows are the rows above and below the list.
const (
	headRows = 2
	footRows = 4
)

// Model is the question: the list, where it is scrolled to, how far the
// user has read, and the answer.
type Model struct {
	q      Question
	styles *theme.Styles
	keys   KeyMap
	width  int
	height int
	lines  []string // the list, wrapped to width
	top    int      // the first list line on screen
	seen   int      // how many list lines have been on screen
	refuse bool     // y was pressed before the end: say why
	sized  bool     // the screen's size is known: what is drawn is seen
	// Answer is the user's answer.
	Answer Answer
}

// New returns the question q, drawn with th, laid out for 80x24 until
// SetSize tells the screen's size; nothing counts as seen before that.
func New(q Question, th *theme.Theme) Model {
	m := Model{q: q, styles: &th.Styles, keys: DefaultKeyMap()}
	m.width, m.height = 80, 24
	m.lines = m.layout()
	return m
}

// SetSize lays the list out for a screen of w by h; what fits is seen.
func (m Model) SetSize(w, h int) Model {
	m.width, m.height = max(w, 20), max(h, headRows+footRows+1)
	m.lines = m.layout()
	m.sized = true
	return m.scrollTo(m.top)
}

// Count is how many things the question lists.
func (m Model) Count() int { return len(m.q.Settings) + len(m.q.Commands) }

// rows is how many list lines fit.
func (m Model) rows() int { return m.height - headRows - footRows }

// AtEnd reports whether every line of the list has been on screen (a
// screen of a known size).
func (m Model) AtEnd() bool { return m.sized && m.seen >= len(m.lines) }

// Update handles a key or a resize.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.SetSize(msg.Width, msg.Height), nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m, tea.Quit
	case key.Matches(msg, m.keys.No):
		m.Answer = No
		return m, tea.Quit
	case key.Matches(msg, m.keys.Yes):
		if !m.AtEnd() {
			m.refuse = true
			return m, nil
		}
		m.Answer = Yes
		return m, tea.Quit
	case key.Matches(msg, m.keys.LineDown):
		m = m.scrollTo(m.top + 1)
	case key.Matches(msg, m.keys.LineUp):
		m = m.scrollTo(m.top - 1)
	case key.Matches(msg, m.keys.PageDown):
		m = m.scrollTo(m.top + m.rows())
	case key.Matches(msg, m.keys.PageUp):
		m = m.scrollTo(m.top - m.rows())
	}
	return m, nil
}

// scrollTo puts list line top first on screen, within bounds.
func (m Model) scrollTo(top int) Model {
	m.top = max(min(top, len(m.lines)-m.rows()), 0)
	if m.sized {
		m.seen = max(m.seen, min(m.top+m.rows(), len(m.lines)))
	}
	if m.AtEnd() {
		m.refuse = false
	}
	return m
}

// layout is the list's lines: the settings, then the commands, each
// entry numbered, escaped and wrapped to the width (continuation lines
// indented), never cut.
func (m Model) layout() []string {
	var out []string
	n := 0
	section := func(title string, items []Item) {
		if len(items) == 0 {
			return
		}
		out = append(out, m.styles.Picker.Title.Render(ansi.Truncate(title, m.width, "…")))
		from := ""
		for _, it := range items {
			n++
			if it.From != from {
				// One line per file, not a file name per entry.
				from = it.From
				out = append(out, m.styles.Picker.Detail.Render(ansi.Truncate("  from "+Escape(from)+":", m.width, "…")))
			}
			prefix := fmt.Sprintf("%3d. ", n)
			indent := strings.Repeat(" ", len(prefix))
			text := Escape(it.Label) + ": " + Escape(it.Text)
			for i, l := range strings.Split(ansi.Hardwrap(text, m.width-len(prefix), true), "\n") {
				p := indent
				if i == 0 {
					p = prefix
				}
				out = append(out, p+m.styles.Picker.Item.Render(l))
			}
		}
	}
	file := m.q.File
	if file == "" {
		file = "config"
	}
	section(fmt.Sprintf("Settings of %s (%d):", Escape(file), len(m.q.Settings)), m.q.Settings)
	section(fmt.Sprintf("Commands covey would run by itself, unsandboxed, as you (%d):", len(m.q.Commands)), m.q.Commands)
	return out
}

// View draws the question.
func (m Model) View() string {
	s := m.styles
	var b strings.Builder
	title := fmt.Sprintf("This folder brings %d %s that only you may allow:", m.Count(), plural.Noun(m.Count(), "thing"))
	b.WriteString(s.Picker.Title.Render(ansi.Truncate(title, m.width, "…")) + "\n")
	b.WriteString(s.Picker.Detail.Render(ansi.Truncate(Escape(m.q.Folder), m.width, "…")) + "\n")
	end := min(m.top+m.rows(), len(m.lines))
	for _, l := range m.lines[m.top:end] {
		b.WriteString(l + "\n")
	}
	b.WriteString(strings.Repeat("\n", m.rows()-(end-m.top)))
	for _, l := range []string{
		"Trusted, the settings apply (an endpoint gets your key) and the commands run.",
		"Not trusted, covey leaves them all out. Asked again when any of them changes.",
	} {
		b.WriteString(s.Picker.Hint.Render(ansi.Truncate(l, m.width, "…")) + "\n")
	}
	b.WriteString(m.position() + "\n")
	b.WriteString(m.prompt())
	return b.String()
}

// position says which lines are on screen, or that all are.
func (m Model) position() string {
	if len(m.lines) <= m.rows() {
		return m.styles.Picker.Hint.Render(fmt.Sprintf("all %d lines shown", len(m.lines)))
	}
	end := min(m.top+m.rows(), len(m.lines))
	text := fmt.Sprintf("lines %d-%d of %d", m.top+1, end, len(m.lines))
	if more := len(m.lines) - end; more > 0 {
		text += fmt.Sprintf(" · %d more below: ↓ or pgdn", more)
	}
	return m.styles.Picker.Hint.Render(ansi.Truncate(text, m.width, "…"))
}

// prompt is the question's last line: the keys, or why y did nothing.
func (m Model) prompt() string {
	s := m.styles
	if m.refuse {
		msg := fmt.Sprintf("y needs the whole list read first: %d more lines below (↓ pgdn) · n no", len(m.lines)-m.seen)
		return s.App.Warning.Render(ansi.Truncate(msg, m.width, "…"))
	}
	q := "Trust them? "
	if !m.AtEnd() {
		q = "Read to the end (↓ pgdn), then trust them? "
	}
	return ansi.Truncate(s.Picker.Title.Render(q)+s.Picker.Selected.Render("y")+s.Picker.Hint.Render(" trust · ")+
		s.Picker.Selected.Render("n")+s.Picker.Hint.Render(" don't"), m.width, "…")
}

// Escape makes s one line that shows every character: a newline, a tab,
// an escape or any other control or format character (a right-to-left
// override) is written as Go writes it (\n, \t, \x1b, \u202e), and a run
// of more than three of the same is counted (\n×80), so padding neither
// moves lines nor hides what follows.
func Escape(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		if !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) {
			b.WriteRune(r)
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j] == r {
			j++
		}
		e := escapeRune(r)
		if n := j - i; n > 3 {
			fmt.Fprintf(&b, "%s×%d", e, n)
		} else {
			b.WriteString(strings.Repeat(e, n))
		}
		i = j
	}
	return b.String()
}

func escapeRune(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\t':
		return `\t`
	case '\r':
		return `\r`
	}
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// program is Model as a tea.Model.
type program struct{ Model }

func (p program) Init() tea.Cmd { return nil }

func (p program) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := p.Model.Update(msg)
	return program{m}, cmd
}
