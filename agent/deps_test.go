package agent_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEngineLinksNoToolImplementation holds the engine to the tool
// interface (package tools/tool): the agent loop, the session file and the
// debug log must not link what the tools are built from (the permission
// gate and its shell parser, the sandbox, the HTML converter), which an
// import of package tools would bring back.
func TestEngineLinksNoToolImplementation(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "covey/agent", "covey/agent/sessionfile", "covey/internal/debuglog").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if linksImplementation(dep) {
			t.Errorf("the engine links %s: import covey/tools/tool, not covey/tools", dep)
		}
	}
}

func linksImplementation(dep string) bool {
	switch {
	case dep == "covey/tools", dep == "covey/permission", dep == "covey/sandbox":
		return true
	case strings.HasPrefix(dep, "covey/permission/"), strings.HasPrefix(dep, "covey/sandbox/"):
		return true
	}
	for _, heavy := range []string{"landlock", "mvdan.cc/sh", "html-to-markdown"} {
		if strings.Contains(dep, heavy) {
			return true
		}
	}
	return false
}
