package tools

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

// Asker asks the user about one request (the TUI shows it inline).
type Asker interface {
	Ask(ctx context.Context, req Request) Verdict
}

// HeadlessGate answers for a run with nobody to ask: what the mode allows
// goes through, everything else is refused with a note on how to allow it.
type HeadlessGate struct{ Mode Mode }

// Check implements Gate.
func (g HeadlessGate) Check(_ context.Context, req Request) Verdict {
	if modeAllows(g.Mode, req.Tool) {
		return Verdict{Allowed: true}
	}
	return Verdict{Reason: fmt.Sprintf(
		"%s needs permission, and nobody can be asked in a headless run (permission mode %q). "+
			"To allow it, rerun with --permission-mode acceptEdits (file edits) or --permission-mode bypassPermissions (everything), "+
			"or add a rule such as %s to permissions.allow in .covey/config.yaml.",
		describeRequest(req), g.Mode, exampleRule(req))}
}

// modeAllows reports whether mode lets tool run without asking.
func modeAllows(mode Mode, tool string) bool {
	switch mode {
	case ModeBypass:
		return true
	case ModeAcceptEdits:
		return tool == "write_file" || tool == "edit_file"
	}
	return false
}

func describeRequest(req Request) string {
	switch req.Tool {
	case "bash":
		return fmt.Sprintf("bash %q", req.Command)
	default:
		return fmt.Sprintf("%s %s", req.Tool, req.Path)
	}
}

func exampleRule(req Request) string {
	if req.Tool == "bash" {
		fields := strings.Fields(req.Command)
		if len(fields) > 0 {
			return fmt.Sprintf("bash(%s:*)", fields[0])
		}
		return "bash(CMD:*)"
	}
	return fmt.Sprintf("%s(%s)", req.Tool, req.Path)
}
