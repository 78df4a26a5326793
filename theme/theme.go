// Package theme is the only place in covey that names a colour. It holds a
// dark and a light palette of semantic colours and one nested Styles struct
// built from the chosen palette.
package theme

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"
)

// Palette is a set of semantic colours.
type Palette struct {
	Primary    lipgloss.TerminalColor // headings, the user's prompt marker
	Text       lipgloss.TerminalColor // ordinary text
	Muted      lipgloss.TerminalColor // secondary text, hints, reasoning
	Accent     lipgloss.TerminalColor // focus, links, agent types
	Success    lipgloss.TerminalColor
	Warning    lipgloss.TerminalColor
	Error      lipgloss.TerminalColor
	Border     lipgloss.TerminalColor
	Subtle     lipgloss.TerminalColor // backgrounds of bars
	DiffAddFg  lipgloss.TerminalColor
	DiffAddBg  lipgloss.TerminalColor
	DiffDelFg  lipgloss.TerminalColor
	DiffDelBg  lipgloss.TerminalColor
	LineNumber lipgloss.TerminalColor
}

// c is a colour chosen for each colour profile: hex for truecolor, a
// number of the 256-colour palette, and one of the 16 ANSI colours ("" is
// none: the terminal's own foreground, or no background). Left to
// degrade on their own, the dark palette's near-black backgrounds turn
// navy (17) and dark green (22) in 256 colours (tmux without COLORTERM):
// patches on the welcome card, a loud status bar and diff lines.
func c(hex, ansi256, ansi string) lipgloss.TerminalColor {
	return lipgloss.CompleteColor{TrueColor: hex, ANSI256: ansi256, ANSI: ansi}
}

// Dark is the palette for dark terminal backgrounds. In 256 and 16
// colours the diff lines take no background: the palette has no dark
// enough green or red, so they are told apart by their colour alone.
func Dark() Palette {
	return Palette{
		Primary:    c("#8AB4F8", "111", "12"),
		Text:       c("#E6E6E6", "254", ""),
		Muted:      c("#8A8F98", "245", "8"),
		Accent:     c("#C792EA", "177", "13"),
		Success:    c("#7FD88F", "114", "10"),
		Warning:    c("#F5C26B", "221", "11"),
		Error:      c("#F07178", "204", "9"),
		Border:     c("#4B5263", "240", "8"),
		Subtle:     c("#262A33", "235", ""),
		DiffAddFg:  c("#B5F0BD", "114", "2"),
		DiffAddBg:  c("#1F3A24", "", ""),
		DiffDelFg:  c("#F7B3B8", "210", "1"),
		DiffDelBg:  c("#45242A", "", ""),
		LineNumber: c("#5C6370", "241", "8"),
	}
}

// Light is the palette for light terminal backgrounds.
func Light() Palette {
	return Palette{
		Primary:    c("#1A5FB4", "25", "4"),
		Text:       c("#1E1E1E", "234", ""),
		Muted:      c("#6B7280", "243", "8"),
		Accent:     c("#8839EF", "98", "5"),
		Success:    c("#2E7D32", "28", "2"),
		Warning:    c("#B26A00", "130", "3"),
		Error:      c("#C62828", "160", "1"),
		Border:     c("#C0C4CC", "250", "7"),
		Subtle:     c("#EEF0F3", "255", ""),
		DiffAddFg:  c("#1B5E20", "22", "2"),
		DiffAddBg:  c("#DDF4E0", "194", ""),
		DiffDelFg:  c("#8E1B1B", "88", "1"),
		DiffDelBg:  c("#FBE0E0", "224", ""),
		LineNumber: c("#9AA0A6", "247", "8"),
	}
}

// Plain is the palette with no colour at all, for NO_COLOR.
func Plain() Palette {
	n := lipgloss.NoColor{}
	return Palette{n, n, n, n, n, n, n, n, n, n, n, n, n, n}
}

// Mode names a palette choice.
type Mode string

// Palette choices for --theme.
const (
	ModeAuto  Mode = "auto"
	ModeDark  Mode = "dark"
	ModeLight Mode = "light"
)

// ParseMode validates a --theme value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeAuto, ModeDark, ModeLight:
		return m, nil
	case "":
		return ModeAuto, nil
	}
	return "", fmt.Errorf("unknown theme %q: use dark, light or auto", s)
}

// Theme is the chosen palette and the styles built from it.
type Theme struct {
	Palette Palette
	Styles  Styles
	// NoColor is set when NO_COLOR asked for no colour; glyphs still differ.
	NoColor bool
	// Dark is set when the palette is the one for dark backgrounds.
	Dark bool
}

// New builds a theme. darkBackground is consulted only for ModeAuto (the
// caller detects it once at start-up, before the TUI owns the terminal).
func New(mode Mode, darkBackground, noColor bool) *Theme {
	var p Palette
	dark := false
	switch {
	case noColor:
		p = Plain()
	case mode == ModeLight || (mode == ModeAuto && !darkBackground):
		p = Light()
	default:
		p, dark = Dark(), true
	}
	return &Theme{Palette: p, Styles: newStyles(p), NoColor: noColor, Dark: dark}
}
