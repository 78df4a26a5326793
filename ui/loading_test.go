package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/theme"
	"covey/ui/transcript"
)

// loadingHarness is a UI whose resumed session is still being read.
func loadingHarness(t *testing.T) *harness {
	t.Helper()
	eng := newFakeEngine()
	m := New(Options{
		Engine: eng, Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii",
		Warnings: []string{"the sandbox cannot run here"},
		Load:     func() ([]agent.Event, string, error) { panic("the test delivers the load") },
	})
	m.clock = func() time.Time { return fixedNow }
	h := &harness{t: t, m: m, eng: eng, msgs: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	return h
}

func blockKinds(h *harness) []string {
	var kinds []string
	for _, b := range h.m.tr.Blocks() {
		k := strings.TrimPrefix(fmt.Sprintf("%T", b), "*transcript.")
		if n, ok := b.(*transcript.NoticeBlock); ok {
			k += "(" + strings.SplitN(n.Text(), " ", 3)[0] + " " + strings.SplitN(n.Text(), " ", 3)[1] + ")"
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// TestLoadingSession: the first frame says the session is loading; what
// the user sends meanwhile waits (nothing reaches the engine), then the
// replay takes the loading line's place, the notices that came meanwhile
// follow it, and the held messages go out in order.
func TestLoadingSession(t *testing.T) {
	h := loadingHarness(t)
	if !h.screenContains("loading session…") || !h.screenContains("test-model") {
		t.Fatalf("first frame:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	h.typeText("first question")
	h.key(tea.KeyEnter)
	h.typeText("second question")
	h.key(tea.KeyEnter)
	if len(h.eng.prompts) != 0 || !h.screenContains("queued until the session is loaded: second question") {
		t.Fatalf("sent before the load: %q", h.eng.prompts)
	}
	m := mainSrc()
	h.send(sessionLoadedMsg{replay: []agent.Event{
		agent.UserMessage{Source: m, Text: "what is in this repo?"},
		agent.TextDelta{Source: m, Text: "A Go module."},
		agent.Done{Source: m, Reason: agent.StopOK},
	}, note: "resumed session X (2 messages)"})
	want := []string{"UserBlock", "AssistantBlock", "NoticeBlock(resumed session)", "NoticeBlock(the sandbox)", "UserBlock"}
	if got := blockKinds(h); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("blocks %v, want %v", got, want)
	}
	if h.screenContains("loading session") || h.screenContains("queued until") {
		t.Errorf("the loading lines stayed:\n%s", strings.Join(h.screenLines(), "\n"))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.eng.mu.Lock()
		n := len(h.eng.prompts)
		h.eng.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.prompts) != 1 || h.eng.prompts[0] != "first question" || h.m.input.Queued() != 1 {
		t.Errorf("prompts %q, %d queued; want the first sent and the second waiting for its turn", h.eng.prompts, h.m.input.Queued())
	}
}

// TestLoadingSessionFails: a session that cannot be read says why and
// ends the program (the caller prints the error).
func TestLoadingSessionFails(t *testing.T) {
	h := loadingHarness(t)
	_, cmd := h.m.Update(sessionLoadedMsg{err: errors.New("no session header")})
	if cmd == nil {
		t.Fatal("no quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("a failed load does not quit")
	}
}
