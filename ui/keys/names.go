package keys

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// Name is the key a binding is shown as ("tab", "y"), from its help.
func Name(b key.Binding) string { return b.Help().Key }

// First is the first of a binding's shown keys ("↑" of "↑/k").
func First(b key.Binding) string {
	k, _, _ := strings.Cut(b.Help().Key, "/")
	return k
}
