package cells

import (
	"fmt"
	"time"
)

// spinnerFrames are the glyphs of the running spinner, one per UI tick.
// Each braille glyph is three bytes of UTF-8, which Spinner relies on.
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// Spinner returns the spinner glyph for a tick counter.
func Spinner(frame int) string {
	const size = 3
	n := len(spinnerFrames) / size
	i := ((frame % n) + n) % n
	return spinnerFrames[i*size : (i+1)*size]
}

// Elapsed formats a duration for a status line: 450ms, 3.2s, 41s, 1m05s,
// 2h03m. Sub-second precision is dropped where it would only flicker.
func Elapsed(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", float64(d.Truncate(100*time.Millisecond))/float64(time.Second))
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	default:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
}

// Glyphs of the states of tool calls and child agents.
const (
	GlyphTool      = "⏺"
	GlyphOK        = "✓"
	GlyphFailed    = "✗"
	GlyphPartly    = "!" // done, but some of its tool calls failed
	GlyphCancelled = "⊘"
	GlyphTimeout   = "⏱"
	GlyphMaxTurns  = "↻"
	GlyphWaiting   = "⏸"
	GlyphArrow     = "→"
	GlyphPaused    = "‖"
	GlyphQueued    = "…"
)
