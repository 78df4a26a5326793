package ui_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestUILinksNoToolImplementation holds the UI to the tool interface
// (tools/tool), the workspace (tools/workspace) and diffs (tools/diff): no
// package under ui/ may link the built-in tools (package tools), or an edit
// in any tool's own file rebuilds the UI, nor the sandbox and Landlock,
// which only bash needs.
func TestUILinksNoToolImplementation(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "covey/ui/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if uiMustNotLink(dep) {
			t.Errorf("the UI links %s: import covey/tools/tool, covey/tools/workspace or covey/tools/diff, not covey/tools", dep)
		}
	}
}

func uiMustNotLink(dep string) bool {
	switch {
	case dep == "covey/tools", dep == "covey/sandbox", strings.HasPrefix(dep, "covey/sandbox/"):
		return true
	}
	return strings.Contains(dep, "landlock")
}
