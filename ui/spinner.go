package ui

// Glyphs of the states of tool calls and child agents.
const (
	glyphTool      = "⏺"
	glyphOK        = "✓"
	glyphFailed    = "✗"
	glyphCancelled = "⊘"
	glyphTimeout   = "⏱"
	glyphMaxTurns  = "↻"
	glyphWaiting   = "⏸"
	glyphArrow     = "→"
	glyphPaused    = "‖"
	glyphQueued    = "…"
)
