package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/subagent"
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
	tm.recordOutput()
	tm.submit("what is in this project?")
	panes := demoPanes()

	for _, p := range panes {
		tm.waitMatch(paneRe(p))
	}
	// Every explorer makes two real tool calls; "find entry points" makes
	// them one after the other, so its count visibly rises. It shows
	// "1 tool" for about half a second, which a loaded machine's poll of
	// the screen can miss: the painted output is searched too.
	tm.waitPainted(toolsRe(panes[1], 1))
	for _, p := range panes {
		tm.waitMatch(toolsRe(p, 2))
	}

	// The summary is built from the tools' real results on this workspace.
	tm.waitText("Here is what the explorers found:")
	s := tm.waitText("Entry point found: main.go", "Markdown docs: README.md", "1 TODO/FIXME marker across 1 file")
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

// TestTUIDemoLong drives the demo's long exploration through every crew
// key: the welcome card offers it; its three explorers work for tens of
// seconds with real tool calls; ctrl+b sends one to the background, m
// messages it, p pauses it, o opens it full-screen (the message is there),
// p resumes it and it answers the message at its next request, searching
// the workspace for its words; ctrl+g lists the crew; its report, which
// says what the search found, comes back to the main agent.
func TestTUIDemoLong(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{
		"main.go":        "package main\n\nfunc main() { greet() }\n",
		"greet/greet.go": "package greet\n\n// Greeting says hello.\nfunc Greeting() string { return \"hello\" }\n",
		"README.md":      "# tiny\n\nA tiny project for the long demo.\n",
	})
	tm := startTUI(t, ws, newSandbox(t).env(), "--demo")
	tm.waitText(helpLine, "“a long exploration”", "ctrl+b background")
	tm.submit("a long exploration")
	const walk, steer = "walk the folders", "where is the Greeting defined?"
	for _, p := range []string{walk, "read the docs", "survey the code"} {
		tm.waitMatch(paneRe(p))
	}
	tm.waitMatch(toolsRe(walk, 1))
	focusPane(tm, walk)
	name, _ := subagent.NameFrom(walk)

	// ctrl+b: to the background, still working.
	tm.press("C-b")
	tm.waitOK("the pane in the background", func(s string) error {
		if h, _, _ := paneHeader(s, walk); !strings.Contains(h, "background") {
			return fmt.Errorf("header %q", h)
		}
		return nil
	})
	// m: a message, then p: paused before it reads it.
	tm.press("m")
	tm.waitText("to " + name + " ›")
	tm.typeText(steer)
	tm.press("Enter")
	tm.waitFor("the message to be sent", waitLong, func(s string) bool { return !strings.Contains(s, "to "+name+" ›") })
	focusPane(tm, walk)
	tm.press("p")
	tm.waitOK("the pane paused", func(s string) error {
		if h, _, _ := paneHeader(s, walk); !strings.Contains(h, "paused") {
			return fmt.Errorf("header %q", h)
		}
		return nil
	})
	// o: full-screen, with its brief and its steps so far.
	tm.press("o")
	s := tm.waitText("Walk the workspace one folder at a time", "Step 1 of ")
	if strings.Contains(s, "survey the code") || strings.Contains(s, "Step 1 of 8: counting functions") {
		t.Errorf("the full-screen view shows a sibling's activity:\n%s", frame(s))
	}
	tm.press("Escape")
	// Back on the pane: the full-screen view shows the pane's header too,
	// so only the view's bar gone says the escape was read (a tab sent
	// after an unread escape would arrive as alt+tab).
	tm.waitFor("the pane back from the full-screen view", waitLong, func(s string) bool {
		return paneRe(walk).MatchString(s) && !strings.Contains(s, "subagent view:")
	})
	// p again: it resumes, reads the message at its next request and
	// searches for its words.
	focusPane(tm, walk)
	tm.press("p")
	tm.waitFor("the child to answer the message", 2*waitLong, func(s string) bool {
		return strings.Contains(s, "Got your message: “"+steer+"”")
	})

	// ctrl+g: the crew, all three listed, the walker in the background.
	tm.press("C-g")
	s = tm.waitText("Crew · 3 subagents")
	for _, want := range []string{name, "read-docs", "survey-code", "background"} {
		if !strings.Contains(s, want) {
			t.Errorf("the overview lacks %q:\n%s", want, frame(s))
		}
	}
	tm.press("Escape")

	// Its report reaches the main agent and answers the message from the
	// search's real result.
	tm.poll("the background explorer's report, answering the message", 4*waitLong, func(s string) error {
		_, report, ok := strings.Cut(s, "A background explorer reported")
		if !ok {
			return errNotYet
		}
		report = strings.Join(strings.Fields(report), " ") // undo the wrapping
		for _, want := range []string{"You asked: “" + steer + "”", "appears in 1 file (greet/greet.go)"} {
			if !strings.Contains(report, want) {
				return fmt.Errorf("the report lacks %q", want)
			}
		}
		return nil
	})
	tm.quitAndCheck(helpLine)
}
