package ui

import (
	"covey/ui/keys"
	"covey/ui/transcript"
)

// newWelcomeBlock builds the welcome card with its key hints named from
// keys, so a rebinding changes them.
func newWelcomeBlock(w transcript.Welcome, km keys.KeyMap) *transcript.WelcomeBlock {
	return transcript.NewWelcomeBlock(w, []transcript.KeyHint{
		{Key: km.Help.Help().Key, Desc: "help"},
		{Key: "/agents", Desc: "subagent types"},
		{Key: km.Quit.Help().Key + " twice", Desc: "quit"},
	}, []transcript.KeyHint{
		{Key: keys.Name(km.FocusNext), Desc: "to a subagent's pane, then"},
		{Key: keys.Name(km.ChildOpen), Desc: "open"},
		{Key: keys.Name(km.ChildMessage), Desc: "message"},
		{Key: keys.Name(km.ChildPause), Desc: "pause"},
		{Key: keys.Name(km.ChildBackground), Desc: "background"},
		{Key: keys.Name(km.CancelChild), Desc: "cancel"},
		{Key: keys.Name(km.Crew), Desc: "crew overview"},
	})
}
