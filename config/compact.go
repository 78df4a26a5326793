package config

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"covey/agent"
)

// AutoCompact is config's auto_compact: the share of the model's context
// window past which covey compacts the conversation before a request
// (default agent.DefaultAutoCompact, 0.85), or false to turn automatic
// compaction off (then an overflow is an error, and /compact is the way
// out).
type AutoCompact struct {
	set bool
	off bool
	at  float64
}

// UnmarshalYAML reads a share between 0 and 1 (exclusive of 0), or a
// boolean: true is the default share, false turns compaction off.
func (c *AutoCompact) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: auto_compact must be a share of the window (0.85) or false", n.Line)
	}
	if b, err := strconv.ParseBool(n.Value); err == nil && n.Tag == "!!bool" {
		*c = AutoCompact{set: true, off: !b}
		return nil
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || f <= 0 || f > 1 {
		return fmt.Errorf("line %d: auto_compact must be a share of the window above 0 and at most 1 (0.85), or false; got %q", n.Line, n.Value)
	}
	*c = AutoCompact{set: true, at: f}
	return nil
}

// Threshold is the share to give agent.Config.AutoCompact: 0 when off.
func (c AutoCompact) Threshold() float64 {
	switch {
	case c.off:
		return 0
	case c.at > 0:
		return c.at
	}
	return agent.DefaultAutoCompact
}

// IsSet reports whether a config file named auto_compact.
func (c AutoCompact) IsSet() bool { return c.set }
