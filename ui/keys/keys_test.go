package keys

import "testing"

func TestHelpListsBindingsNoGroupNames(t *testing.T) {
	k := Default()
	k.Apply(State{Focus: FocusTranscript, Child: Child{Any: true, Running: true, Foreground: true, CanMessage: true}})
	groups := k.HelpGroups(nil)
	seen := map[string]bool{}
	for _, g := range groups {
		for _, b := range g {
			seen[b.Help().Key+" "+b.Help().Desc] = true
		}
	}
	for _, b := range k.All() {
		if b.Enabled() && !seen[b.Help().Key+" "+b.Help().Desc] {
			t.Errorf("enabled %q is not in the help", b.Help().Key)
		}
	}
}

// TestApprovalSidewaysKeys checks that < and > are enabled, and listed by
// ?, exactly while a waiting request's diff is wider than the screen.
func TestApprovalSidewaysKeys(t *testing.T) {
	for _, wide := range []bool{false, true} {
		k := Default()
		k.Apply(State{Focus: FocusApproval, Approval: Approval{Pending: true, Editable: true, WideDiff: wide}})
		listed := false
		for _, col := range k.FullHelp() {
			for _, b := range col {
				listed = listed || b.Enabled() && b.Help().Key == ">"
			}
		}
		if k.ApproveLeft.Enabled() != wide || k.ApproveRight.Enabled() != wide || listed != wide {
			t.Errorf("wide %v: < enabled %v, > enabled %v, listed by ? %v", wide, k.ApproveLeft.Enabled(), k.ApproveRight.Enabled(), listed)
		}
	}
}
