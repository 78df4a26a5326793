package transcript

import "strconv"

// This file holds a pane's language-server error count: for a child in
// its own worktree, the errors the servers report in that worktree.

// Root is the folder an isolated child works in ("" for a child in the
// workspace), where its diagnostics are counted.
func (b *SubagentBlock) Root() string { return b.root }

// SetDiagnostics sets the errors the language servers report in the
// child's worktree.
func (b *SubagentBlock) SetDiagnostics(errs int) {
	if b.diagErrs == errs {
		return
	}
	b.diagErrs = errs
	b.Changed()
}

// diagText is the header's word on them: "2 errors", "" for none.
func (b *SubagentBlock) diagText() string {
	switch b.diagErrs {
	case 0:
		return ""
	case 1:
		return "1 error"
	}
	return strconv.Itoa(b.diagErrs) + " errors"
}
