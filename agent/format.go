package agent

import (
	"strconv"
	"strings"
)

// FormatTokens writes a token count the way every part of covey shows it
// (the status bar, panes, headless progress, error messages): 950, 12.4k,
// 12k, 345k, 1.2M.
func FormatTokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 100_000:
		return trimPointZero(strconv.FormatFloat(float64(n)/1000, 'f', 1, 64)) + "k"
	case n < 1_000_000:
		return strconv.Itoa(n/1000) + "k"
	default:
		return trimPointZero(strconv.FormatFloat(float64(n)/1_000_000, 'f', 1, 64)) + "M"
	}
}

func trimPointZero(s string) string { return strings.TrimSuffix(s, ".0") }
