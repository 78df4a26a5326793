package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/ui/approval"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// helpText opens the full help and collects every page of it, closing
// it again; it fails when ? does not come back to the hint line.
func helpText(t *testing.T, h *harness) string {
	t.Helper()
	var all strings.Builder
	for range 10 {
		h.typeText("?")
		if !h.m.fullHelp {
			return all.String()
		}
		for _, l := range h.screenLines() {
			if ansi.StringWidth(l) > h.m.width {
				t.Errorf("help line wider than %d: %q", h.m.width, l)
			}
		}
		all.WriteString(strings.Join(h.screenLines(), "\n"))
	}
	t.Fatal("? never closed the help")
	return ""
}

func TestHelpReachesEveryKeyOfTheFocusedPane(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := newHarness(t, size[0], size[1])
		namedPanes(h)
		h.key(tea.KeyTab) // the newest pane, running
		if _, ok := h.m.tr.Focused().(*transcript.SubagentBlock); !ok {
			t.Fatalf("tab did not focus a pane")
		}
		hint := h.screenLines()[size[1]-1]
		for _, want := range []string{"o open", "m message", "p pause", "x cancel", "? more"} {
			if size[0] == 200 || want != "x cancel" {
				if !strings.Contains(hint, want) {
					t.Errorf("%dx%d: hint line %q lacks %q", size[0], size[1], hint, want)
				}
			}
		}
		help := helpText(t, h)
		for _, want := range []string{"o open full-screen", "m message", "p pause/resume", "ctrl+b background",
			"x cancel", "ctrl+g crew overview", "esc back to the input", "pgup page up"} {
			if !strings.Contains(help, want) {
				t.Errorf("%dx%d: ? never shows %q:\n%s", size[0], size[1], want, help)
			}
		}
	}
}

func TestHelpPagesWhenTooTall(t *testing.T) {
	h := newHarness(t, 60, 12)
	namedPanes(h)
	h.key(tea.KeyTab)
	help := helpText(t, h)
	if !strings.Contains(help, "page 1/") || !strings.Contains(help, "? close") {
		t.Fatalf("a help taller than the screen is not paged:\n%s", help)
	}
	for _, want := range []string{"o open full-screen", "ctrl+b background", "x cancel", "end bottom"} {
		if !strings.Contains(help, want) {
			t.Errorf("the pages never show %q:\n%s", want, help)
		}
	}
}

func TestEscGoesBackWhereTheUserCameFrom(t *testing.T) {
	h := newHarness(t, 100, 30)
	namedPanes(h)
	h.key(tea.KeyTab)
	pane := h.m.tr.Focused()

	// The overview opened from a pane gives the focus back to that pane.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlG})
	if !h.screenContains("esc back to the pane") {
		t.Errorf("the overview does not say where esc goes:\n%s", ansi.Strip(h.m.View()))
	}
	h.key(tea.KeyEsc)
	if h.m.scr != nil || h.m.focus != keys.FocusTranscript || h.m.tr.Focused() != pane {
		t.Fatalf("esc from the overview did not give the focus back to the pane")
	}
	// o then esc: the pane again; a letter after it is a key, not text.
	h.typeText("o")
	if h.m.shownChild() == nil {
		t.Fatal("o did not open the pane")
	}
	h.key(tea.KeyEsc)
	if h.m.scr != nil || h.m.tr.Focused() != pane {
		t.Fatal("esc from the full-screen view did not go back to the pane")
	}
	h.key(tea.KeyEsc)
	if h.m.focus == keys.FocusTranscript {
		t.Fatal("esc from the pane did not go back to the input")
	}
	// The overview opened from the input goes back to the input.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlG})
	h.key(tea.KeyEsc)
	if h.m.scr != nil || h.m.focus == keys.FocusTranscript {
		t.Fatal("esc from an overview opened from the input did not go back to the input")
	}
}

func TestViewBarReplacesTheInput(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := newHarness(t, size[0], size[1])
		namedPanes(h)
		h.send(tea.KeyMsg{Type: tea.KeyCtrlG})
		if h.screenContains("Ask covey") {
			t.Errorf("%dx%d: the overview still shows the prompt", size[0], size[1])
		}
		if !h.screenContains("▸ crew overview: esc back to the pane") {
			t.Errorf("%dx%d: no view bar:\n%s", size[0], size[1], ansi.Strip(h.m.View()))
		}
		if got := len(h.screenLines()); got != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], got)
		}
		h.typeText("o")
		if !h.screenContains("▸ subagent view: esc back to the overview") {
			t.Errorf("%dx%d: the full-screen view has no view bar:\n%s", size[0], size[1], ansi.Strip(h.m.View()))
		}
	}
}

func TestCancelAsksForASecondX(t *testing.T) {
	h := newHarness(t, 100, 30)
	namedPanes(h)
	h.key(tea.KeyTab)
	name := h.m.chosenChild().Name()
	tests := []struct {
		name   string
		second tea.KeyMsg
		want   int // CancelChild calls after the second key
	}{
		{"esc keeps it", tea.KeyMsg{Type: tea.KeyEsc}, 0},
		{"another key keeps it", tea.KeyMsg{Type: tea.KeyDown}, 0},
		{"x again cancels", runes("x"), 1},
	}
	for _, tt := range tests {
		h.typeText("x")
		if !h.screenContains("x again to cancel " + name + " · esc keeps it") {
			t.Fatalf("%s: no confirm hint:\n%s", tt.name, ansi.Strip(h.m.View()))
		}
		h.send(tt.second)
		if tt.want == 1 {
			await[childCancelledMsg](h)
		}
		if _, _, c := h.eng.snapshot(); len(c) != tt.want {
			t.Errorf("%s: CancelChild %v", tt.name, c)
		}
		if h.screenContains("x again") {
			t.Errorf("%s: the confirm hint stayed", tt.name)
		}
		if h.m.focus != keys.FocusTranscript {
			t.Errorf("%s: the pane lost the focus", tt.name)
		}
	}
}

func TestApprovalGrace(t *testing.T) {
	h := newApprovalHarness(t, 100, 30)
	h.m.kx.graceFor = time.Hour // only its tick ends it here
	got := h.ask(context.Background(), bashRequest("ls"))
	h.deliver(1)
	if !h.screenContains(approval.GraceNote + "y allow") {
		t.Fatalf("the grace is not shown:\n%s", ansi.Strip(h.m.View()))
	}
	id := h.m.kx.graceID
	h.typeText("y") // in flight: no answer, and the clock starts again
	if h.m.appr.cur == nil || h.m.kx.graceID == id {
		t.Fatal("a key typed during the grace answered the request or did not restart the grace")
	}
	h.send(graceMsg{id: id}) // the older tick is stale
	if !h.m.kx.grace {
		t.Fatal("a stale tick ended the grace")
	}
	h.send(graceMsg{id: h.m.kx.graceID})
	if h.m.kx.grace || h.screenContains(approval.GraceNote) {
		t.Fatal("the grace did not end")
	}
	h.typeText("y")
	select {
	case v := <-got:
		if !v.Allowed {
			t.Errorf("verdict %+v", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("y after the grace did not answer")
	}
}

func TestFinishedPaneSaysWhyPDoesNothing(t *testing.T) {
	h := newHarness(t, 100, 30)
	_, kids := withPanes(h)
	h.events(agent.ChildFinished{Source: kids[2], Reason: agent.StopOK, Summary: "done"})
	h.key(tea.KeyTab)
	h.typeText("p")
	if h.m.focus != keys.FocusTranscript || h.m.input.Value() != "" {
		t.Fatal("p on a finished pane left the pane or typed into the input")
	}
	if !h.screenContains("has ended (done): nothing to pause") {
		t.Errorf("no reason shown:\n%s", ansi.Strip(h.m.View()))
	}
	h.key(tea.KeyDown)
	if h.screenContains("nothing to pause") {
		t.Error("the reason outlived the next key")
	}
}

// TestHelpShowsAnApprovalsHunkKeys: ? on an edit approval with hunks lists
// the hunk keys, at 80x24 too (wrapped or paged, never cut).
func TestHelpShowsAnApprovalsHunkKeys(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := newApprovalHarness(t, size[0], size[1])
		h.ask(context.Background(), editRequest("f.txt", hunkFile, hunkEdit))
		h.deliver(1)
		if h.m.focus != keys.FocusApproval {
			t.Fatal("the request did not take the keyboard")
		}
		help := helpText(t, h.harness)
		for _, want := range []string{"y allow", "s take/drop hunk", "} next hunk", "{ previous hunk", "n deny", "pgdn diff page down"} {
			if !strings.Contains(help, want) {
				t.Errorf("%dx%d: ? never shows %q:\n%s", size[0], size[1], want, help)
			}
		}
	}
}

// TestFullHelpDoesNotOfferMoreKeys: with the full help open, ? says what
// it does next (hide the keys, or turn the page), not "more keys".
func TestFullHelpDoesNotOfferMoreKeys(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 12}} {
		h := newHarness(t, size[0], size[1])
		h.typeText("?")
		if !h.m.fullHelp {
			t.Fatal("? did not open the full help")
		}
		if h.screenContains("? more keys") {
			t.Errorf("%dx%d: the full help offers ? more keys:\n%s", size[0], size[1], ansi.Strip(h.m.View()))
		}
		if !h.screenContains("? hide keys") && !h.screenContains("? next page") {
			t.Errorf("%dx%d: the full help does not say what ? does:\n%s", size[0], size[1], ansi.Strip(h.m.View()))
		}
	}
}

// TestHelpOnAScreenWithADraft: on a screen, letters are its keys, not
// text, so ? opens the help even while the input holds a draft (it used to
// do nothing there), and the draft is kept.
func TestHelpOnAScreenWithADraft(t *testing.T) {
	h := newHarness(t, 80, 24)
	namedPanes(h)
	h.typeText("half a thought")
	h.send(tea.KeyMsg{Type: tea.KeyCtrlG})
	if h.m.focus != keys.FocusScreen {
		t.Fatalf("ctrl+g did not open the overview (focus %v)", h.m.focus)
	}
	if help := helpText(t, h); !strings.Contains(help, "crew overview") && !strings.Contains(help, "enter open") {
		t.Errorf("? on the overview showed no help:\n%s", help)
	}
	h.key(tea.KeyEsc)
	if got := h.m.input.Value(); got != "half a thought" {
		t.Errorf("the draft is %q after the help and esc", got)
	}
}
