package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// keyName is the key a binding is shown as ("tab", "y"), from its help.
func keyName(b key.Binding) string { return b.Help().Key }

// firstKey is the first of a binding's shown keys ("↑" of "↑/k").
func firstKey(b key.Binding) string {
	k, _, _ := strings.Cut(b.Help().Key, "/")
	return k
}
