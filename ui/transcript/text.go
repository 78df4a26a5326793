package transcript

import (
	"fmt"

	"covey/agent"
)

// Short texts the blocks and the screens both draw.

// ctxWarn is the fill from which the gauge is drawn as a warning.
const ctxWarn = 80

// ContextGauge is "ctx 62%" of a known window, "ctx 5.1k" (tokens) of an
// unknown one, "" before anything is known; warn reports a fill past
// ctxWarn percent.
func ContextGauge(tokens, window int) (text string, warn bool) {
	switch {
	case window > 0:
		pct := tokens * 100 / window
		return fmt.Sprintf("ctx %d%%", pct), pct >= ctxWarn
	case tokens > 0:
		return "ctx " + agent.FormatTokens(tokens), false
	}
	return "", false
}

// CountNoun is n with its noun: "1 file", "3 files".
func CountNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ByteText says a count of bytes briefly: "512 B", "3.4 KB", "100 MB".
func ByteText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}
