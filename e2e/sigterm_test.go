package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// TestTUIEndsOnSIGTERM sends SIGTERM to the TUI while an answer streams and
// after it: covey must end every time and leave the terminal as it found
// it. (Both covey and Bubble Tea listened for SIGTERM once; when covey's
// handler ended the program first, Bubble Tea's was left sending a quit
// message nobody read, and the process hung on its way out.)
func TestTUIEndsOnSIGTERM(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
	srv.Add(scripted.Conversation{Name: "slow", Turns: []scripted.Turn{{
		Text: "STREAMING" + strings.Repeat(" on and on", 100), ChunkSize: 10, ChunkDelay: 20 * time.Millisecond}}})
	for i := range 4 {
		tm := startTUI(t, ws, env, "--model", "e2e-model")
		tm.waitText(helpLine)
		if i%2 == 1 {
			tm.submit("stream something")
			tm.waitText("STREAMING")
		}
		if err := syscall.Kill(tm.coveyPID(), syscall.SIGTERM); err != nil {
			t.Fatalf("kill covey: %v", err)
		}
		code, tty, s := tm.exited()
		if code != "0" || !strings.Contains(tty, "icanon") || strings.Contains(tty, "-icanon") {
			t.Fatalf("run %d: covey exited with %q and tty %q after SIGTERM, want 0 and a canonical terminal:\n%s", i, code, tty, frame(s))
		}
	}
}
