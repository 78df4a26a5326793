package ui

import (
	"strings"
	"testing"

	"covey/ui/keys"
	"covey/ui/screens"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// listScreen is a screen written as a new one would be (a /worktrees or
// /sessions list): one type with its keys beside it, and nothing in the
// root model but the call that opens it.
type listScreen struct {
	keys   *keys.KeyMap // the root's: esc
	next   key.Binding
	items  []string
	sel    int
	height int
}

// listLoadedMsg is the result of the command that lists the items.
type listLoadedMsg struct{ items []string }

func (s *listScreen) Title() string             { return "test list" }
func (s *listScreen) ShortHelp() []key.Binding  { return []key.Binding{s.keys.ViewBack, s.next} }
func (s *listScreen) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }
func (s *listScreen) SetSize(_, height int)     { s.height = height }
func (s *listScreen) Update(msg tea.Msg) (screens.Action, tea.Cmd) {
	switch msg := msg.(type) {
	case listLoadedMsg:
		s.items = msg.items
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, s.keys.ViewBack):
			return screens.Back{}, nil
		case key.Matches(msg, s.next) && len(s.items) > 0:
			s.sel = (s.sel + 1) % len(s.items)
		}
	}
	return nil, nil
}

func (s *listScreen) View() string {
	lines := make([]string, s.height)
	for i, it := range s.items {
		if i < len(lines) {
			lines[i] = "  " + it
			if i == s.sel {
				lines[i] = screens.SelGlyph + it
			}
		}
	}
	return strings.Join(lines, "\n")
}

func TestANewScreenNeedsNothingOfTheRoot(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := newHarness(t, size[0], size[1])
		s := &listScreen{keys: h.m.keys, next: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next item"))}
		h.m.openScreen(s)
		h.send(listLoadedMsg{items: []string{"one", "two"}}) // a message the root does not know reaches it
		if !h.screenContains("› one") || h.screenContains("Ask covey") {
			t.Fatalf("%dx%d: the screen does not stand in for the conversation and the input:\n%s",
				size[0], size[1], strings.Join(h.screenLines(), "\n"))
		}
		if !h.screenContains("▸ test list: esc back to the input • n next item") {
			t.Errorf("%dx%d: no view bar with the screen's keys:\n%s", size[0], size[1], strings.Join(h.screenLines(), "\n"))
		}
		if got := len(h.screenLines()); got != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], got)
		}
		h.typeText("n")
		if !h.screenContains("› two") {
			t.Errorf("%dx%d: n did not reach the screen", size[0], size[1])
		}
		if help := helpText(t, h); !strings.Contains(help, "n next item") {
			t.Errorf("%dx%d: ? does not list the screen's keys:\n%s", size[0], size[1], help)
		}
		h.key(tea.KeyEsc)
		if h.m.scr != nil || h.m.focus != keys.FocusInput || !h.screenContains("Ask covey") {
			t.Errorf("%dx%d: esc did not bring the input back:\n%s", size[0], size[1], strings.Join(h.screenLines(), "\n"))
		}
	}
}
