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

// Dark is the palette for dark terminal backgrounds.
func Dark() Palette {
	return Palette{
		Primary:    lipgloss.Color("#8AB4F8"),
		Text:       lipgloss.Color("#E6E6E6"),
		Muted:      lipgloss.Color("#8A8F98"),
		Accent:     lipgloss.Color("#C792EA"),
		Success:    lipgloss.Color("#7FD88F"),
		Warning:    lipgloss.Color("#F5C26B"),
		Error:      lipgloss.Color("#F07178"),
		Border:     lipgloss.Color("#4B5263"),
		Subtle:     lipgloss.Color("#262A33"),
		DiffAddFg:  lipgloss.Color("#B5F0BD"),
		DiffAddBg:  lipgloss.Color("#1F3A24"),
		DiffDelFg:  lipgloss.Color("#F7B3B8"),
		DiffDelBg:  lipgloss.Color("#45242A"),
		LineNumber: lipgloss.Color("#5C6370"),
	}
}

// Light is the palette for light terminal backgrounds.
func Light() Palette {
	return Palette{
		Primary:    lipgloss.Color("#1A5FB4"),
		Text:       lipgloss.Color("#1E1E1E"),
		Muted:      lipgloss.Color("#6B7280"),
		Accent:     lipgloss.Color("#8839EF"),
		Success:    lipgloss.Color("#2E7D32"),
		Warning:    lipgloss.Color("#B26A00"),
		Error:      lipgloss.Color("#C62828"),
		Border:     lipgloss.Color("#C0C4CC"),
		Subtle:     lipgloss.Color("#EEF0F3"),
		DiffAddFg:  lipgloss.Color("#1B5E20"),
		DiffAddBg:  lipgloss.Color("#DDF4E0"),
		DiffDelFg:  lipgloss.Color("#8E1B1B"),
		DiffDelBg:  lipgloss.Color("#FBE0E0"),
		LineNumber: lipgloss.Color("#9AA0A6"),
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
}

// New builds a theme. darkBackground is consulted only for ModeAuto (the
// caller detects it once at start-up, before the TUI owns the terminal).
func New(mode Mode, darkBackground, noColor bool) *Theme {
	var p Palette
	switch {
	case noColor:
		p = Plain()
	case mode == ModeLight || (mode == ModeAuto && !darkBackground):
		p = Light()
	default:
		p = Dark()
	}
	return &Theme{Palette: p, Styles: newStyles(p), NoColor: noColor}
}
