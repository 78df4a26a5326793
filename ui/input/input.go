// Package input is the prompt under the transcript: a textarea with the
// history of sent messages, the queue typed while a turn runs, long pastes
// shown as markers and the "!" shell mode. It takes keys and gives text;
// what a sent message does is the root model's.
package input

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
)

// maxInputLines is how tall the input grows before it scrolls.
const maxInputLines = 8

// Keys are the keys the input reads, taken from the KeyMap (KeysOf).
type Keys struct {
	// Newline breaks the line instead of sending.
	Newline key.Binding
	// HistoryPrev and HistoryNext walk the history, at the first and the
	// last line.
	HistoryPrev, HistoryNext key.Binding
	// ExpandPaste puts a collapsed paste's text into the input.
	ExpandPaste key.Binding
	// AddressCancel stops addressing a child; its key is named in the
	// placeholder.
	AddressCancel key.Binding
	// CompletePrev and CompleteNext move the completion's selection.
	CompletePrev, CompleteNext key.Binding
}

// KeysOf takes the input's keys from the KeyMap.
func KeysOf(k keys.KeyMap) Keys {
	return Keys{
		Newline: k.Newline, HistoryPrev: k.HistoryPrev, HistoryNext: k.HistoryNext,
		ExpandPaste: k.ExpandPaste, AddressCancel: k.AddressCancel,
		CompletePrev: k.CompletePrev, CompleteNext: k.CompleteNext,
	}
}

// Model is the multi-line prompt: a textarea with a history of sent
// messages (walked with Up at the first line and Down at the last) and the
// queue of messages typed while a turn runs.
type Model struct {
	ta     textarea.Model
	styles *theme.Styles
	keys   Keys
	width  int
	sized  bool // SetSize has set the textarea's width once

	history []string
	hist    int    // position in history; len(history) is the draft
	draft   string // what was typed before walking the history

	queued []string

	// target is the child the input is addressed to, "" for the main
	// agent.
	target string
	// pastes are the long pastes shown as markers (input_paste.go).
	pastes []paste
	// shown maps a sent message that held markers to its text with the
	// markers, for the transcript (TakeShown).
	shown map[string]string
	// shell is set while the input is a "!" shell command: the "!" shows
	// as the prompt glyph, not in the text (Value puts it back).
	shell bool
	// tall is set while the text has more rows than the input shows, so
	// the textarea scrolls (see fitHeight).
	tall bool
}

// mainPlaceholder is the empty input's hint to the main agent.
const mainPlaceholder = "Ask covey… (/ commands, @ files, ! shell)"

// shellPlaceholder is the empty input's hint in shell mode.
const shellPlaceholder = "shell command, through the permission gate (backspace: back to a message)"

// Prompt glyphs: a message, or a "!" shell command.
const (
	promptMessage = "› "
	promptShell   = "! "
)

// New makes an empty input, focused.
func New(styles *theme.Styles, keys Keys) Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Placeholder = mainPlaceholder
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.KeyMap.InsertNewline = keys.Newline
	// A blinking cursor wakes the program twice a second for nothing.
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.Focus()
	ta.SetHeight(1)
	m := Model{ta: ta, keys: keys}
	m.SetStyles(styles)
	m.setPrompt(promptMessage)
	return m
}

// SetStyles draws the input with other styles (the terminal's background
// answered after the first frame).
func (m *Model) SetStyles(styles *theme.Styles) {
	m.styles = styles
	st := textarea.Style{
		Base:             styles.App.Text,
		CursorLine:       styles.Input.Text,
		CursorLineNumber: styles.Input.Placeholder,
		EndOfBuffer:      styles.Input.Placeholder,
		LineNumber:       styles.Input.Placeholder,
		Placeholder:      styles.Input.Placeholder,
		Prompt:           styles.Input.Prompt,
		Text:             styles.Input.Text,
	}
	m.ta.FocusedStyle, m.ta.BlurredStyle = st, st
}

// setPrompt shows p before the text's first row only: the rows after it
// are indented under the text, so a draft of several lines reads as one
// message under one glyph.
func (m *Model) setPrompt(p string) {
	if m.ta.Prompt == p {
		return
	}
	m.ta.Prompt = p
	w := ansi.StringWidth(p)
	pad := strings.Repeat(" ", w)
	m.ta.SetPromptFunc(w, func(row int) string {
		if row == 0 {
			return p
		}
		return pad
	})
	if m.sized {
		m.ta.SetWidth(max(m.width, 4)) // the prompt's width is taken from the text's
	}
}

// SetSize sets the input's width; its height follows its content.
func (m *Model) SetSize(width int) {
	// The root model lays out on every message; textarea's SetWidth is
	// not free, so it runs only when the width changes.
	if width != m.width || !m.sized {
		m.width, m.sized = width, true
		m.ta.SetWidth(max(width, 4))
	}
	m.fitHeight()
}

// Shell reports whether the input is a "!" shell command.
func (m *Model) Shell() bool { return m.shell }

// Focus and Blur show or hide the cursor; a blurred input ignores keys.
func (m *Model) Focus() { m.ta.Focus() }

// Blur hides the cursor while the transcript has the focus.
func (m *Model) Blur() { m.ta.Blur() }

// Value is the text typed so far, with a leading "!" in shell mode.
func (m *Model) Value() string {
	if m.shell {
		return "!" + m.ta.Value()
	}
	return m.ta.Value()
}

// SetValue replaces the text and puts the cursor at its end; the pastes
// whose markers it keeps stay collapsed.
func (m *Model) SetValue(s string) {
	m.ta.SetValue(s)
	m.shell = false
	var kept []paste
	for _, p := range m.pastes {
		if strings.Contains(s, p.marker) {
			kept = append(kept, p)
		}
	}
	m.pastes = kept
	m.syncPrompt()
	m.fitHeight()
}

// Reset empties the input.
func (m *Model) Reset() {
	m.ta.Reset()
	m.pastes = nil
	m.shell = false
	m.syncPrompt()
	m.fitHeight()
}

// syncPrompt enters shell mode when the text to the main agent starts
// with "!" (typed, pasted or recalled): the "!" becomes the prompt glyph.
func (m *Model) syncPrompt() {
	if m.target != "" {
		m.shell = false
		return
	}
	if v := m.ta.Value(); !m.shell && strings.HasPrefix(v, "!") {
		m.shell = true
		m.ta.SetValue(v[1:])
	}
	prompt := promptMessage
	m.ta.Placeholder = mainPlaceholder
	if m.shell {
		prompt, m.ta.Placeholder = promptShell, shellPlaceholder
	}
	m.setPrompt(prompt)
}

// Submit takes the text out of the input, with every collapsed paste's
// whole text in place of its marker, records it in the history and
// returns it; blank input gives "".
func (m *Model) Submit() string {
	v := m.expandAll(m.Value())
	if strings.TrimSpace(v) == "" {
		return ""
	}
	if len(m.pastes) > 0 {
		if m.shown == nil {
			m.shown = map[string]string{}
		}
		m.shown[v] = m.Value()
	}
	if n := len(m.history); n == 0 || m.history[n-1] != v {
		m.history = append(m.history, v)
	}
	m.hist, m.draft = len(m.history), ""
	m.Reset()
	return v
}

// SetTarget addresses the input to a child ("to scout › "); "" addresses
// it to the main agent again.
func (m *Model) SetTarget(name string) {
	m.target = name
	if name == "" {
		m.setPrompt(promptMessage)
		m.ta.Placeholder = mainPlaceholder
		m.syncPrompt()
	} else {
		m.setPrompt("to " + cells.OneLine(name) + " › ")
		m.ta.Placeholder = "message for " + cells.OneLine(name) + " (" + m.keys.AddressCancel.Help().Key + ": back to the main agent)"
	}
	m.ta.SetWidth(max(m.width, 4))
	m.fitHeight()
}

// Enqueue keeps a message to send when the running turn ends.
func (m *Model) Enqueue(s string) { m.queued = append(m.queued, s) }

// Dequeue returns the oldest queued message.
func (m *Model) Dequeue() (string, bool) {
	if len(m.queued) == 0 {
		return "", false
	}
	s := m.queued[0]
	m.queued = m.queued[1:]
	return s, true
}

// Queued is the number of messages waiting for the turn to end.
func (m *Model) Queued() int { return len(m.queued) }

// HasHistory reports whether Up or Down would recall a message.
func (m *Model) HasHistory() bool { return len(m.history) > 0 }

func (m *Model) atFirstLine() bool {
	return m.ta.Line() == 0 && m.ta.LineInfo().RowOffset == 0
}

func (m *Model) atLastLine() bool {
	li := m.ta.LineInfo()
	return m.ta.Line() == m.ta.LineCount()-1 && li.RowOffset >= li.Height-1
}

// Update edits the text; Up and Down at the edges walk the history.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, m.keys.HistoryPrev) && m.atFirstLine() && m.hist > 0:
			if m.hist == len(m.history) {
				m.draft = m.Value()
			}
			m.hist--
			m.recall(m.history[m.hist])
			return m, nil
		case key.Matches(k, m.keys.HistoryNext) && m.atLastLine() && m.hist < len(m.history):
			m.hist++
			if m.hist == len(m.history) {
				m.recall(m.draft)
			} else {
				m.recall(m.history[m.hist])
			}
			return m, nil
		case m.shell && m.ta.Value() == "" && key.Matches(k, m.ta.KeyMap.DeleteCharacterBackward):
			// Backspace on an empty shell command: back to a message.
			m.shell = false
			m.syncPrompt()
			return m, nil
		case key.Matches(k, m.keys.ExpandPaste) && len(m.pastes) > 0:
			m.ExpandPastes()
			return m, nil
		case isPaste(k) && collapses(pastedText(k)):
			m.insertPaste(pastedText(k))
			m.syncPrompt()
			m.fitHeight()
			return m, nil
		}
	}
	before := m.ta.Value()
	var cmd tea.Cmd
	// At its full height while it edits, the textarea scrolls only for a
	// text taller than the input can grow (see fitHeight).
	m.ta.SetHeight(maxInputLines)
	m.ta, cmd = m.ta.Update(msg)
	m.guardPastes(before)
	m.syncPrompt()
	m.fitHeight()
	return m, cmd
}

func (m *Model) recall(s string) {
	m.ta.SetValue(s)
	m.shell = false
	m.pastes = nil
	m.syncPrompt()
	m.fitHeight()
}

// fitHeight grows the textarea with its content, up to maxInputLines,
// and keeps the text in view: all of it when it fits, else the rows
// around the cursor. bubbles' textarea scrolls only in its Update, to keep
// the cursor within the height it has then, and never scrolls back when it
// grows: left alone, a draft of a few lines hid its first line above an
// empty row, and a long paste expanded left the cursor out of view.
func (m *Model) fitHeight() {
	w := max(1, m.ta.Width())
	rows := 0
	for _, l := range strings.Split(m.ta.Value(), "\n") {
		// The cursor may sit after the last character, hence the +1.
		rows += (ansi.StringWidth(l) + w) / w
	}
	if rows > maxInputLines {
		m.tall = true
		m.ta.SetHeight(maxInputLines)
		if m.ta.Focused() {
			// Its view scrolls over the rows its last View laid out:
			// lay out the text it has now, then scroll the cursor into
			// view.
			_ = m.ta.View()
			m.ta, _ = m.ta.Update(nil)
		}
		return
	}
	if m.tall {
		m.tall = false
		m.toTop()
	}
	m.ta.SetHeight(max(rows, 1))
}

// toTop scrolls the textarea back to its first row, the cursor kept where
// it was: the text fits again after it did not.
func (m *Model) toTop() {
	line, li := m.ta.Line(), m.ta.LineInfo()
	v := m.ta.Value()
	m.ta.Reset() // its view goes back to the top
	m.ta.InsertString(v)
	for m.ta.Line() > line || (m.ta.Line() == line && m.ta.LineInfo().RowOffset > li.RowOffset) {
		before, row := m.ta.Line(), m.ta.LineInfo().RowOffset
		m.ta.CursorUp()
		if m.ta.Line() == before && m.ta.LineInfo().RowOffset == row {
			break
		}
	}
	m.ta.SetCursor(li.StartColumn + li.ColumnOffset)
}

// Key is everything the input's look depends on: the root keeps the last
// View for it.
type Key struct {
	value          string
	width, height  int
	focused        bool
	queued         string
	line, row, col int
}

// Key is what View's output depends on.
func (m *Model) Key() Key {
	v := m.ta.Value()
	k := Key{
		value: m.ta.Prompt + "\x00" + v, width: m.width, height: m.ta.Height(), focused: m.ta.Focused(),
		queued: strings.Join(m.queued, "\x00"), line: m.ta.Line(),
	}
	// Where the cursor sits in its wrapped line: asked only of a text
	// there is, as LineInfo hashes the line with SHA-256 on every call
	// (the textarea's memo), and the key is taken every frame.
	if v != "" {
		li := m.ta.LineInfo()
		k.row, k.col = li.RowOffset, li.ColumnOffset
	}
	return k
}

// Height is the number of lines View draws.
func (m *Model) Height() int { return 1 + len(m.queued) + m.ta.Height() }

// View draws a rule, the queued messages, then the textarea.
func (m *Model) View() string {
	var b strings.Builder
	b.WriteString(m.styles.Input.Border.Render(strings.Repeat("─", max(m.width, 0))))
	for _, q := range m.queued {
		first, _, _ := strings.Cut(q, "\n")
		b.WriteByte('\n')
		b.WriteString(m.styles.App.Muted.Render(ansi.Truncate("queued: "+first, max(m.width, 0), "…")))
	}
	b.WriteByte('\n')
	b.WriteString(m.ta.View())
	return b.String()
}
