// Package ui is covey's full-screen terminal interface: a Bubble Tea model
// holding the conversation as a list of blocks (ui/transcript), one
// SubagentBlock per child.
package ui
