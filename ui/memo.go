package ui

import (
	"covey/ui/input"
	"covey/ui/keys"
	"covey/ui/status"
)

// memo keeps the last rendering of a component with the inputs it was made
// from: the input, status and help lines cost tens of microseconds each in
// lipgloss and rarely change between two frames of streaming output.
type memo[K comparable] struct {
	key K
	val string
	ok  bool
}

// get returns the cached rendering for k, calling render when k changed.
func (c *memo[K]) get(k K, render func() string) string {
	if !c.ok || c.key != k {
		c.key, c.val, c.ok = k, render(), true
	}
	return c.val
}

// chromeMemo caches the parts of the screen around the transcript.
type chromeMemo struct {
	input  memo[input.Key]
	status memo[status.Key]
	help   memo[helpKey]
}

// helpKey is everything the help line depends on.
type helpKey struct {
	width, height int
	full          bool
	page          int
	keys          keys.State
}
