package ui

import (
	"github.com/charmbracelet/x/ansi"

	"covey/ui/cells"
)

// cutName fits name into w cells: a path loses its start ("…ts/helper.go"),
// anything else its end.
func cutName(name string, w int, path bool) string {
	if cells.Width(name) <= w {
		return name
	}
	if path {
		return "…" + ansi.TruncateLeft(name, cells.Width(name)-(w-1), "")
	}
	return ansi.Truncate(name, w, "…")
}
