package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// The tests of this file follow what a demanding newcomer tripped over at
// 80x24 (and 200x50 where the layout matters): each fails on the covey
// that had the fault.

// sizes are the terminals a newcomer's test runs at.
var sizes = []struct{ w, h int }{{80, 24}, {200, 50}}

// readyLine is on covey's screen at every width while the input has the
// focus (helpLine is cut at 80 columns).
const readyLine = "enter send"

// startSized starts covey as startTUI does, then sizes the window w×h.
func startSized(t *testing.T, dir string, env []string, w, h int, args ...string) *term {
	t.Helper()
	tm := startTUI(t, dir, env, args...)
	tm.resize(w, h)
	return tm
}

// TestTUICtrlCInterruptsTurn: while an answer streams, the bar says esc
// interrupts (at 80 columns too); ctrl+c interrupts the turn instead of
// arming quit, and the cut answer is marked interrupted. After quitting
// and --continue, the answer is still marked, and the next request
// carries its text, marked interrupted, to the model.
func TestTUICtrlCInterruptsTurn(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			srv := scriptedtest.New(t)
			ws := workspace(t, sampleFiles())
			env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
			slow := "SLOW ANSWER begins" + strings.Repeat(" and goes on", 80) + " SLOW END"
			crashScript(srv, map[string]scripted.Turn{
				"tell a story": {Text: slow, ChunkSize: 6, ChunkDelay: 150 * time.Millisecond},
				"go on":        {Text: "GO ON ANSWER", ChunkSize: 20},
			})
			tm := startSized(t, ws, env, size.w, size.h, "--model", "e2e-model")
			tm.waitText(readyLine)
			tm.submit("tell a story")
			tm.waitText("SLOW ANSWER begins", "esc interrupt")
			tm.press("C-c")
			s := tm.waitOK("the turn interrupted", func(s string) error {
				if !hasWord(s, "interrupted") {
					return fmt.Errorf("the cut answer is not marked interrupted")
				}
				if strings.Contains(s, "esc interrupt") {
					return fmt.Errorf("the turn still runs")
				}
				return nil
			})
			if strings.Contains(s, "again to quit") || strings.Contains(s, "SLOW END") {
				t.Fatalf("ctrl+c armed quitting, or the answer ran to its end:\n%s", frame(s))
			}
			tm.quitAndCheck(readyLine)

			tm2 := startSized(t, ws, env, size.w, size.h, "--model", "e2e-model", "--continue")
			s = tm2.waitText("SLOW ANSWER begins", "resumed session")
			if !hasWord(s, "interrupted") {
				t.Errorf("the resumed cut answer is not marked interrupted:\n%s", frame(s))
			}
			tm2.submit("go on")
			tm2.waitText("GO ON ANSWER")
			var cut string
			for _, m := range lastRequest(t, srv, "main").Messages {
				if m.Role == agent.RoleAssistant {
					cut = m.Content
				}
			}
			if !strings.HasPrefix(cut, "SLOW ANSWER begins") || !strings.HasSuffix(cut, agent.InterruptedNote) || strings.Contains(cut, "SLOW END") {
				t.Errorf("the model was sent the cut answer as %q, want its text up to the cut, then %q", cut, agent.InterruptedNote)
			}
		})
	}
}
