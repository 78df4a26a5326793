package e2e

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"covey/internal/scripted"
)

// TestTUIResize narrows the terminal while children run and widens it
// again: the screen reflows to each width and the panes stay readable.
func TestTUIResize(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startScripted(t)
	hold := newGate(t)
	var children []child
	for _, name := range []string{"one", "two"} {
		children = append(children, child{marker: "[e2e:resize-" + name + "]", description: "resize " + name, turns: []scripted.Turn{
			{Text: "Looking for Go files in " + name + ".", ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"})}},
			hold.hold(scripted.Turn{Text: "report " + name + ": three Go files."}),
		}})
	}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		spawn("Two explorers, then a resize.", children...),
		{Text: "E2E resize answer.", ChunkSize: 100}, // one delta, see TestTUIStreamedAnswerIsOneBlock
	}})
	for _, c := range children {
		srv.Add(c.conversation())
	}
	tm.submit("look around while I resize")
	for _, c := range children {
		tm.waitMatch(toolsRe(c.description, 1))
	}

	for _, size := range []struct{ w, h int }{{60, 30}, {termWidth, termHeight}} {
		tm.resize(size.w, size.h)
		// Until covey redraws, the terminal shows the old frame cut to the
		// new size; wait for a whole, consistent frame at the new size.
		tm.waitOK(fmt.Sprintf("the screen to reflow to %dx%d", size.w, size.h), func(s string) error {
			if err := checkLayout(s, size.w, size.h); err != nil {
				return err
			}
			for _, c := range children {
				h, body, ok := paneHeader(s, c.description)
				switch {
				case !ok:
					return fmt.Errorf("the pane %q has no header line", c.description)
				case !strings.Contains(h, "1 tool"):
					return fmt.Errorf("the header of %q lost its stats: %q", c.description, h)
				case len(body) != 2:
					return fmt.Errorf("the pane %q has %d body lines, want 2", c.description, len(body))
				}
			}
			return nil
		})
	}
	// Back at full width, the stats are right-aligned within a readable
	// width (see TestTUILayoutPaneStats).
	s := tm.screen()
	for _, c := range children {
		if h, _, _ := paneHeader(s, c.description); ansi.StringWidth(strings.TrimRight(h, " ")) != min(termWidth, readableEnd) {
			t.Errorf("header of %q is %d cells wide, want its stats at column %d: %q", c.description, ansi.StringWidth(h), min(termWidth, readableEnd), h)
		}
	}
	if cs := tm.colorScreen(); !strings.Contains(cs, "\x1b[") {
		t.Errorf("the screen has no colour at all with TERM=xterm-256color")
	}

	hold.open()
	tm.waitText("E2E resize answer.")
	tm.quitAndCheck(helpLine)
}

// checkLayout checks a screen drawn at width×height: exactly one rule
// above the input, as wide as the terminal (a rule of the old width would
// be cut or wrapped), no line wider than the terminal, and the input and
// the help line at the bottom.
func checkLayout(s string, width, height int) error {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != height {
		return fmt.Errorf("capture has %d lines, want %d", len(lines), height)
	}
	var rules []int
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			return fmt.Errorf("line %d is %d cells wide", i+1, w)
		}
		if l != "" && strings.Trim(l, "─") == "" {
			rules = append(rules, i)
		}
	}
	if len(rules) != 1 || ansi.StringWidth(lines[rules[0]]) != width {
		return fmt.Errorf("want one rule of %d cells above the input, found rules on lines %v", width, rules)
	}
	if r := rules[0]; r+3 != len(lines)-1 || !strings.HasPrefix(lines[r+1], "› ") {
		return errors.New("the rule is not followed by the input, the status and the help line")
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "enter send") {
		return fmt.Errorf("the last line is %q, want the help line", last)
	}
	return nil
}
