package permission

import (
	"context"
	"fmt"
	"strings"
)

// Mode is a permission mode: how much the agent may do without asking.
type Mode string

// Permission modes.
const (
	// ModeDefault asks before write_file, edit_file and bash.
	ModeDefault Mode = "default"
	// ModeAcceptEdits lets file edits through and asks before bash.
	ModeAcceptEdits Mode = "acceptEdits"
	// ModePlan offers read-only tools only.
	ModePlan Mode = "plan"
	// ModeBypass allows everything.
	ModeBypass Mode = "bypassPermissions"
)

// Modes lists the modes in the order a UI key cycles them.
var Modes = []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass}

// Next returns the mode after m in Modes, wrapping around; an unknown mode
// is followed by the first.
func (m Mode) Next() Mode {
	for i, x := range Modes {
		if x == m {
			return Modes[(i+1)%len(Modes)]
		}
	}
	return Modes[0]
}

// ParseMode validates a --permission-mode value.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	if s == "" {
		return ModeDefault, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use default, acceptEdits, plan or bypassPermissions", s)
}

// HeadlessGate answers for a run with nobody to ask and no rules: what the
// mode allows goes through, everything else is refused with a note on how
// to allow it. It is a Policy with no rules and no Asker; prefer
// NewPolicy(mode, rules, nil), which honours the config's rules too.
type HeadlessGate struct{ Mode Mode }

// Check implements Gate.
func (g HeadlessGate) Check(ctx context.Context, req Request) Verdict {
	return NewPolicy(g.Mode, nil, nil).Check(ctx, req)
}
