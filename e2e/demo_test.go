package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoPanes are the demo's three explorers, as their pane headers name
// them.
func demoPanes() []string {
	return []string{"map the project layout", "find entry points", "survey docs and TODOs"}
}

// TestTUIDemo runs `covey --demo` in a small git repository: three panes
// work with real read-only tools, the model summarises what they found and
// proposes COVEY_DEMO.md, which is not written without the user's choice.
func TestTUIDemo(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{
		"main.go":   "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\") // TODO: greet by name\n}\n",
		"README.md": "# tiny\n\nA tiny project for the demo.\n",
	})
	// The demo must work without any endpoint or key: none is given.
	tm := startTUI(t, ws, newSandbox(t).env(), "--demo")
	tm.waitText(helpLine)
	tm.submit("what is in this project?")
	panes := demoPanes()

	for _, p := range panes {
		tm.waitMatch(paneRe(p))
	}
	// Every explorer makes two real tool calls; "find entry points" makes
	// them one after the other, so its count visibly rises.
	tm.waitMatch(toolsRe(panes[1], 1))
	for _, p := range panes {
		tm.waitMatch(toolsRe(p, 2))
	}

	// The summary is built from the tools' real results on this workspace.
	tm.waitText("Here is what the explorers found:")
	s := tm.waitText("Entry point found: main.go", "Markdown docs: README.md", "1 TODO/FIXME markers across 1 files")
	for _, p := range panes {
		if h, _, _ := paneHeader(s, p); !strings.Contains(h, "✓") {
			t.Errorf("explorer %q did not finish: %q\n%s", p, h, frame(s))
		}
	}

	// The proposal goes through write_file. Without an approval prompt the
	// gate refuses the write; with one (ui's ApprovalBlock: "? Allow
	// write_file ..." and the hint "y allow"), the file must still be absent
	// until the user answers, and y writes it.
	const refused, asking = "I left your files untouched", "? Allow write_file"
	s = tm.waitFor("the write_file proposal to be refused or to ask for approval", waitLong, func(s string) bool {
		return strings.Contains(s, refused) || (strings.Contains(s, asking) && strings.Contains(s, "y allow"))
	})
	demoFile := filepath.Join(ws, "COVEY_DEMO.md")
	if _, err := os.Stat(demoFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("COVEY_DEMO.md exists (stat error %v) although nobody allowed the write:\n%s", err, frame(s))
	}
	if strings.Contains(s, refused) {
		if !lineHas(s, "write_file", "COVEY_DEMO.md", "✗") {
			t.Errorf("the refused write_file call is not shown as failed:\n%s", frame(s))
		}
		tm.quitAndCheck(helpLine)
		if _, err := os.Stat(demoFile); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("COVEY_DEMO.md exists after quitting (stat error %v)", err)
		}
		return
	}
	tm.waitApprovalReady()
	tm.press("y")
	s = tm.waitText("Delete it whenever you like")
	data, err := os.ReadFile(demoFile)
	if err != nil || !strings.HasPrefix(string(data), "# Workspace overview (covey demo)") {
		t.Errorf("after y, COVEY_DEMO.md = %q, %v; want the proposed overview\n%s", data, err, frame(s))
	}
	tm.quitAndCheck(helpLine)
}

// lineHas reports whether one line of s contains every one of subs.
func lineHas(s string, subs ...string) bool {
	for _, l := range strings.Split(s, "\n") {
		all := true
		for _, sub := range subs {
			all = all && strings.Contains(l, sub)
		}
		if all {
			return true
		}
	}
	return false
}
