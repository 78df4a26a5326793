package ui

// MarkdownRenderer renders markdown for blocks, keeping one glamour renderer
// per width so none is built per frame.
type MarkdownRenderer struct {
	style string
}

// NewMarkdownRenderer returns a renderer for the glamour style "dark",
// "light", "notty" or "ascii".
func NewMarkdownRenderer(styleName string) *MarkdownRenderer {
	return &MarkdownRenderer{style: styleName}
}
