package ui

import (
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/checkpoint"
)

// rewindEngine is the fake engine with checkpoints: one point, and a
// rewind that cuts everything and hands the message back.
type rewindEngine struct {
	*fakeEngine
	reqs chan checkpoint.Request
}

func (e rewindEngine) RewindPoints() ([]checkpoint.Point, error) {
	return []checkpoint.Point{{ID: "c1", Time: time.Unix(0, 0), Text: "the first message", Files: []string{"a.go"}}}, nil
}

func (e rewindEngine) PlanRewind(context.Context, string) (checkpoint.Plan, error) {
	return checkpoint.Plan{Files: []string{"a.go"}}, nil
}

func (e rewindEngine) Rewind(_ context.Context, req checkpoint.Request) (checkpoint.Outcome, []agent.Event, error) {
	e.reqs <- req
	return checkpoint.Outcome{Text: "the first message", Summary: "conversation cut"}, []agent.Event{}, nil
}

func (e rewindEngine) Fork() (string, error)         { return "new-id", nil }
func (e rewindEngine) Export(string) (string, error) { return "/tmp/x.md", nil }

// TestEscTwiceOpensRewindAfterATurn: esc on an empty input while idle
// asks for a second, which opens /rewind; picking the message and "code
// and conversation" runs the rewind and puts the message back in the
// input. It works after a turn has run, and the second esc opens it even
// when a frame was drawn in between.
func TestEscTwiceOpensRewindAfterATurn(t *testing.T) {
	h := newHarness(t, 100, 30)
	eng := rewindEngine{fakeEngine: h.eng, reqs: make(chan checkpoint.Request, 1)}
	h.m.engine = eng
	h.typeText("hello")
	h.key(tea.KeyEnter)
	h.eng.release <- nil
	h.send(await[turnDoneMsg](h))
	if h.m.turn != nil {
		t.Fatal("the turn did not end")
	}
	h.key(tea.KeyEsc)
	_ = h.m.View()
	if !h.screenContains("again to rewind") {
		t.Fatalf("the first esc asked for nothing:\n%s", h.m.View())
	}
	h.key(tea.KeyEsc)
	h.send(awaitType(h, "screens.rewindPointsMsg"))
	if !h.screenContains("Rewind to before which message?") || !h.screenContains("the first message") {
		t.Fatalf("the second esc did not open /rewind:\n%s", h.m.View())
	}
	h.key(tea.KeyEnter)
	h.key(tea.KeyDown) // conversation only: runs at once (the screen's stages: ui/screens)
	h.key(tea.KeyEnter)
	done := await[rewoundMsg](h)
	if req := <-eng.reqs; req.To != "c1" || req.Mode != checkpoint.ConversationOnly {
		t.Fatalf("request %+v", req)
	}
	h.send(done)
	if got := h.m.input.Value(); got != "the first message" {
		t.Fatalf("input %q", got)
	}
	if !h.screenContains("Rewound: conversation cut.") {
		t.Fatalf("no outcome:\n%s", h.m.View())
	}
	// Sent again, then esc twice once more.
	h.key(tea.KeyEnter)
	h.eng.release <- nil
	h.send(await[turnDoneMsg](h))
	h.key(tea.KeyEsc)
	h.key(tea.KeyEsc)
	h.send(awaitType(h, "screens.rewindPointsMsg"))
	if !h.screenContains("Rewind to before which message?") {
		t.Fatalf("the second time, esc twice did not open /rewind:\n%s", h.m.View())
	}
}

// TestForkAndExportSayWhatTheyDid: /fork names the new session, /export
// the file written.
func TestForkAndExportSayWhatTheyDid(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.m.engine = rewindEngine{fakeEngine: h.eng, reqs: make(chan checkpoint.Request, 1)}
	h.typeText("/fork")
	h.key(tea.KeyEnter)
	h.send(await[forkedMsg](h))
	if !h.screenContains("this is now session new-id") {
		t.Fatalf("/fork:\n%s", h.m.View())
	}
	h.typeText("/export notes.md")
	h.key(tea.KeyEnter)
	h.send(await[exportedMsg](h))
	if !h.screenContains("Exported the conversation to /tmp/x.md") {
		t.Fatalf("/export:\n%s", h.m.View())
	}
}
