// Package screens holds the views that stand in for the conversation and
// take the keys while shown (the crew overview, a child's full-screen
// view, /mcp), and the interface the root model drives them through: a
// screen's Update returns an Action the root runs. A screen imports
// ui/keys for the keys it matches and names, never ui; what it needs of
// the root's it gets as an interface defined here (Router, MCPEngine).
package screens

import (
	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"covey/ui/transcript"
)

// Screen is a view that stands in for the conversation and takes the keys
// while it has the focus. It owns its keys: Update matches them and says
// what the root should do as an action (as crush's dialogs return an
// Action), its help.KeyMap lists them for the view bar and the full help
// (shared bindings it takes, such as esc, come from the root's KeyMap, so
// they are enabled as they are everywhere), and Title names it on the view
// bar. Update also gets the messages the root does not know, so the
// results of the commands a screen starts (a list it asked for) come back
// to it while it is shown. A new screen is one file: a type with these
// methods, a constructor and the slash command or key that opens it with
// openScreen; esc comes back to the input by itself (Back).
type Screen interface {
	help.KeyMap
	Title() string
	Update(msg tea.Msg) (Action, tea.Cmd)
	View() string
	SetSize(width, height int)
}

// Action is what a screen's key asks of the root model; nil asks nothing.
type Action any

// Back goes back one level: to the screen or the block the screen
// was opened from, else to the input.
type Back struct{}

// OpenChild shows a child full-screen.
type OpenChild struct{ Child *transcript.SubagentBlock }
