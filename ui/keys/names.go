package keys

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Name is the key a binding is shown as ("tab", "y"), from its help.
func Name(b key.Binding) string { return b.Help().Key }

// First is the first of a binding's shown keys ("↑" of "↑/k").
func First(b key.Binding) string {
	k, _, _ := strings.Cut(b.Help().Key, "/")
	return k
}

// MatchesAny is key.Matches that ignores whether b is enabled: it finds
// the keys that mean something elsewhere but not here.
func MatchesAny(k tea.KeyMsg, b key.Binding) bool {
	return slices.Contains(b.Keys(), k.String())
}
