package keys

import (
	"strings"
	"testing"

	"covey/theme"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

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

// TestViewBarShortensBackWhenNarrow: at 80 columns the overview's bar for
// an ended child keeps "m message to resume" by saying "esc back" alone;
// wide, esc says where it goes back to.
func TestViewBarShortensBackWhenNarrow(t *testing.T) {
	st := &theme.New(theme.ModeDark, true, false).Styles
	k := Default()
	k.Apply(State{Focus: FocusScreen, BackTo: "the input", Child: Child{Any: true, CanMessage: true}})
	bs := []key.Binding{k.ViewBack, k.ChildOpen, k.ChildMessage}
	for _, tc := range []struct {
		width      int
		want, lost string
	}{
		{80, "esc back • ", "back to the input"},
		{120, "esc back to the input", ""},
	} {
		bar := ansi.Strip(k.ViewBar(st, "crew overview", bs, tc.width))
		if !strings.Contains(bar, tc.want) || !strings.Contains(bar, "m message to resume") || (tc.lost != "" && strings.Contains(bar, tc.lost)) {
			t.Errorf("at %d columns: %q", tc.width, bar)
		}
		if w := ansi.StringWidth(bar); w > tc.width {
			t.Errorf("at %d columns the bar is %d wide", tc.width, w)
		}
	}
}
