package e2e

import (
	"fmt"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestTUIEscCancelsTurn presses Esc while three children wait on the
// model: every pane ends cancelled, the turn ends, and the next prompt gets
// an answer on a conversation in which every tool call has its result.
func TestTUIEscCancelsTurn(t *testing.T) {
	t.Parallel()
	tm, srv, _ := startScripted(t)
	var children []child
	for _, name := range []string{"north", "south", "east"} {
		children = append(children, child{marker: "[e2e:esc-" + name + "]", description: "esc " + name, turns: []scripted.Turn{
			{Text: "Searching " + name + ".", ToolCalls: []scripted.Call{call("grep", map[string]any{"pattern": "package", "output_mode": "count"})}},
			{Stall: true}, // waits until the child is cancelled
		}})
	}
	const second = "E2E second answer: the conversation survived."
	// The main agent spawns the children for the first prompt and answers
	// the second in text, whatever turn number the request has.
	mainTurn := scripted.Turn{Func: func(r scripted.Request) scripted.Turn {
		if strings.Contains(r.LastUser(), "second prompt") {
			// One delta: a streamed answer can be split in two (see
			// TestTUIStreamedAnswerIsOneBlock), which is not this test's
			// subject.
			return scripted.Turn{Text: second, ChunkSize: len(second)}
		}
		return spawn("Three explorers, soon cancelled.", children...)
	}}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt},
		Turns: []scripted.Turn{mainTurn, mainTurn, mainTurn, mainTurn}})
	for _, c := range children {
		srv.Add(c.conversation())
	}

	tm.submit("first prompt: explore")
	for _, c := range children {
		tm.waitMatch(toolsRe(c.description, 1))
	}
	tm.press("Escape")
	s := tm.waitOK("every pane cancelled and the turn ended", func(s string) error {
		for _, c := range children {
			if h, _, _ := paneHeader(s, c.description); !strings.Contains(h, "⊘") {
				return fmt.Errorf("pane %q is not cancelled: %q", c.description, h)
			}
		}
		if !strings.Contains(s, "turn cancelled") {
			return fmt.Errorf("no turn cancelled notice")
		}
		if strings.Contains(s, "esc cancel turn") {
			return fmt.Errorf("the help line still offers to cancel a turn")
		}
		return nil
	})
	for _, c := range children {
		if _, body, _ := paneHeader(s, c.description); !strings.Contains(strings.Join(body, "\n"), "cancelled") {
			t.Errorf("pane %q does not say it was cancelled:\n%s", c.description, frame(s))
		}
	}

	tm.submit("second prompt: still there?")
	tm.waitText(second)
	last := lastRequest(t, srv, "main")
	if got := (scripted.Request{Entry: last}).LastUser(); !strings.Contains(got, "second prompt") {
		t.Fatalf("the main agent's last request ends with user message %q, want the second prompt", got)
	}
	if missing := unansweredCalls(last.Messages); len(missing) > 0 {
		t.Errorf("after the cancel the conversation leaves tool calls unanswered: %v\nmessages: %+v", missing, last.Messages)
	}
	tm.quitAndCheck(helpLine)
}
