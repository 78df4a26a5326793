package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/glamour"
	gansi "github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// markdownWidths is how many widths keep a glamour renderer: the current one
// and a few recent ones, so dragging a window edge does not rebuild one
// renderer per frame forever.
const markdownWidths = 4

// MarkdownRenderer renders markdown for the transcript's blocks. It keeps one
// glamour renderer per width (building one parses a style and sets up
// goldmark, far too slow to do per frame) and is shared by every block. It is
// used from the UI goroutine only.
type MarkdownRenderer struct {
	style   gansi.StyleConfig
	profile termenv.Profile
	err     error
	byWidth map[int]*glamour.TermRenderer
	order   []int // widths, least recently added first
	renders int   // glamour calls made; tests read it
}

// NewMarkdownRenderer returns a renderer for the glamour style "dark",
// "light", "notty" or "ascii". An unknown name falls back to "notty" and is
// reported by Err. Colours follow lipgloss's colour profile at the time of
// the call, so NO_COLOR and tests with an ASCII profile get plain text.
func NewMarkdownRenderer(styleName string) *MarkdownRenderer {
	cfg, err := markdownStyle(styleName)
	return &MarkdownRenderer{
		style:   cfg,
		profile: lipgloss.ColorProfile(),
		err:     err,
		byWidth: make(map[int]*glamour.TermRenderer, markdownWidths),
	}
}

// Err reports why the style name given to NewMarkdownRenderer was not used.
func (m *MarkdownRenderer) Err() error { return m.err }

// markdownStyle returns the named glamour style without the document's
// margins and blank first and last lines: blocks sit in a transcript that
// spaces them itself, and every cell of width is precious at 60 columns.
func markdownStyle(name string) (gansi.StyleConfig, error) {
	var err error
	base, ok := styles.DefaultStyles[name]
	if !ok || name == styles.AutoStyle {
		// "auto" would query the terminal, which the TUI owns by then.
		err = fmt.Errorf("unknown markdown style %q: use dark, light, notty or ascii", name)
		base = &styles.NoTTYStyleConfig
	}
	cfg := *base
	zero := uint(0)
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix = ""
	cfg.Document.BlockSuffix = ""
	return cfg, err
}

func (m *MarkdownRenderer) renderer(width int) (*glamour.TermRenderer, error) {
	if r, ok := m.byWidth[width]; ok {
		return r, nil
	}
	r, err := glamour.NewTermRenderer(
		glamour.WithStyles(m.style),
		glamour.WithColorProfile(m.profile),
		glamour.WithWordWrap(width),
	)
	if err != nil {
		return nil, fmt.Errorf("markdown renderer for width %d: %w", width, err)
	}
	if len(m.order) >= markdownWidths {
		delete(m.byWidth, m.order[0])
		m.order = m.order[1:]
	}
	m.byWidth[width] = r
	m.order = append(m.order, width)
	return r, nil
}

// Render renders md as lines of at most width cells, without trailing
// spaces or leading and trailing blank lines. On failure the caller gets an
// error and should fall back to plain text.
func (m *MarkdownRenderer) Render(md string, width int) ([]string, error) {
	if width < 1 {
		return nil, nil
	}
	r, err := m.renderer(width)
	if err != nil {
		return nil, err
	}
	m.renders++
	out, err := r.Render(cleanText(md))
	if err != nil {
		return nil, fmt.Errorf("render markdown: %w", err)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = fitLine(trimRightANSI(l), width)
	}
	return trimBlankLines(lines), nil
}

// trimRightANSI drops trailing spaces from a styled line: glamour pads
// paragraphs to the wrap width, which would make every line full width.
func trimRightANSI(s string) string {
	plain := ansi.Strip(s)
	trimmed := strings.TrimRight(plain, " \t")
	if len(trimmed) == len(plain) {
		return s
	}
	if trimmed == "" {
		return ""
	}
	return ansi.Truncate(s, ansi.StringWidth(trimmed), "")
}

// trimBlankLines drops blank lines at both ends of lines.
func trimBlankLines(lines []string) []string {
	for len(lines) > 0 && ansi.Strip(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && ansi.Strip(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
