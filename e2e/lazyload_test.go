package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// hugeWait bounds the waits that move the 50 MB session.
const hugeWait = 3 * waitLong

// TestResumeHugeSessionFrameFirst: covey --continue on a session holding a
// 50 MB message draws its first frame (status line, input, a "loading
// session…" line) before the session is read, and a message typed while
// it loads is kept and sent once the history is in place, never before.
func TestResumeHugeSessionFrameFirst(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	const first, second = "[e2e:huge] first", "[e2e:huge] typed while loading"
	h.srv.Add(scripted.Conversation{Name: "huge", Match: scripted.Match{SystemContains: mainPrompt, FirstUser: first}, Turns: []scripted.Turn{
		{Text: "E2E huge answer A."},
		{Text: "E2E huge answer (not asked)."},
		// The third request has two answers before it: the history came
		// back before the message typed during the load went out.
		{Text: "E2E huge answer B."},
	}})
	if r := h.run(t, "", "-p", first); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(h.box.home, ".local/share/covey/sessions/*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	// A pasted 50 MB log and its answer, as the session file keeps them.
	huge := strings.Repeat("a line of a very long pasted log, all of it kept\n", 50<<20/50)
	f, err := os.OpenFile(files[0], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, m := range []map[string]string{{"role": "user", "content": huge}, {"role": "assistant", "content": "E2E huge seen."}} {
		if err := enc.Encode(map[string]any{"type": "message", "message": m}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	tm := startTUI(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "--continue", "--model", "e2e-model")
	// The first frame: the status line and the loading line, before the
	// conversation. Typed at once, the message must wait for the load.
	scr := tm.waitText("loading session…")
	if strings.Contains(scr, "resumed session") {
		t.Fatalf("the session was in before the loading line was seen:\n%s", scr)
	}
	if !strings.Contains(scr, "e2e-model") {
		t.Errorf("no status line on the first frame:\n%s", scr)
	}
	tm.submit(second)
	// The answer needs the 50 MB history read, then sent and decoded by
	// the scripted server, all under -race: 9 s on an idle 2-core machine,
	// more than waitLong when the machine is shared. The wait is for the
	// answer, however long the load takes (the test is about order, not
	// speed), bounded so a hang still fails.
	scr = tm.waitFor(`"resumed session" and "E2E huge answer B." on screen`, hugeWait, func(s string) bool {
		return strings.Contains(s, "resumed session") && strings.Contains(s, "E2E huge answer B.")
	})
	if strings.Contains(scr, "loading session…") {
		t.Errorf("the loading line stayed:\n%s", scr)
	}
	if !strings.Contains(scr, "MB more of this message not shown here") {
		t.Errorf("the replay is not on screen:\n%s", scr)
	}
	var asks []scripted.Request
	for _, e := range h.srv.Journal() {
		if e.Conversation == "huge" {
			asks = append(asks, scripted.Request{Entry: e})
		}
	}
	if len(asks) != 2 {
		t.Fatalf("%d requests, want the first run's and the typed message's", len(asks))
	}
	last := asks[1]
	if last.LastUser() != second || len(last.Messages) < 5 || !strings.Contains(last.Messages[len(last.Messages)-3].Content, "a very long pasted log") {
		t.Errorf("the typed message went out without the history: %d messages, last user %q", len(last.Messages), last.LastUser())
	}
}

// TestResumeUnreadableSessionTUI: a session file that turns out not to be
// a session once it is read (after the first frame) ends covey with the
// reason on the restored terminal, exit 2, and no offer to resume it.
func TestResumeUnreadableSessionTUI(t *testing.T) {
	t.Parallel()
	box := newSandbox(t)
	dir := filepath.Join(box.home, ".local/share/covey/sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const id = "20261127T130000Z-badbad"
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte("{\"type\":\"nonsense\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := startTUI(t, workspace(t, sampleFiles()), box.env("OPENAI_BASE_URL=http://127.0.0.1:9/v1"), "--resume", id, "--model", "e2e-model")
	code, tty, scr := tm.exited()
	if code != "2" || !strings.Contains(scr, "not a covey session file") || strings.Contains(scr, "resume it with") {
		t.Errorf("exit %s, screen:\n%s", code, scr)
	}
	if !strings.Contains(tty, "icanon") || strings.Contains(tty, "-icanon") {
		t.Errorf("terminal not restored: %q", tty)
	}
}
