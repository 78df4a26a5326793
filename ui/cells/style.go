package cells

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Style is a style reduced to the escape codes around its text.
// lipgloss's Render measures and splits its input on every call, which a
// live pane, restyling a few strings on every tick and event, cannot pay.
// It suits the theme's simple styles (colours and attributes, no padding,
// margins or widths) and single-line text.
type Style struct{ pre, post string }

// NewStyle reduces st to its escape codes.
func NewStyle(st lipgloss.Style) Style {
	out := st.Render("x") // escape codes hold no 'x'
	i := strings.IndexByte(out, 'x')
	if i < 0 {
		return Style{}
	}
	return Style{pre: out[:i], post: out[i+1:]}
}

// Render puts s between the style's escape codes.
func (q Style) Render(s string) string {
	if q.pre == "" && q.post == "" {
		return s
	}
	return q.pre + s + q.post
}

// Codes are the escape codes that open and close the style, for text
// built in pieces between them.
func (q Style) Codes() (pre, post string) { return q.pre, q.post }
