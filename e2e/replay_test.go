package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// paneTypeRe finds the header lines of the panes of this test's crew.
var paneTypeRe = regexp.MustCompile(`\[(Explore|general-purpose)\]`)

// volatilePart matches the parts of a pane header that differ between a
// live run and its replay however faithful: the clock, tokens, cost and
// the context gauge.
var volatilePart = regexp.MustCompile(`^(\d+(\.\d+)?(ms|s)|\d+m\d+s|\d+h\d+m|.* paused|.*\btok|\$.*|.*%.*|ctx.*)$`)

// paneHeaders are the crew's pane headers on screen, top to bottom, each
// reduced to what a replay must show as it was live: the state (from its
// glyph: a spinner frame is "live"), the name, type and task, and the
// stats but the clock, tokens and context.
func paneHeaders(screen string) []string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		if !paneTypeRe.MatchString(l) || strings.Contains(l, "wants to") {
			continue
		}
		l = strings.TrimSpace(strings.TrimLeft(l, "│╭╰ "))
		glyph, rest, _ := strings.Cut(l, " ")
		class := "live"
		switch glyph {
		case "✓", "✗", "!", "⊘", "⏱", "↻", "⏸", "‖", "…":
			class = glyph
		}
		var keep []string
		for _, p := range strings.Split(rest, " · ") {
			p = strings.Join(strings.Fields(p), " ")
			// The first part is the left side, padded, then the first stat.
			if i := strings.LastIndex(p, "] "); i >= 0 {
				left, stat := p[:i+1], p[i+2:]
				p = left
				if stat != "" && !volatilePart.MatchString(stat) {
					p += " " + stat
				}
			}
			if volatilePart.MatchString(p) {
				continue
			}
			keep = append(keep, p)
		}
		out = append(out, class+" "+strings.Join(keep, " · "))
	}
	return out
}

// sameHeaders fails the test when the replay's headers at a moment are not
// the live run's.
func sameHeaders(t *testing.T, moment string, live []string, replay string) {
	t.Helper()
	got := paneHeaders(replay)
	if strings.Join(got, "\n") != strings.Join(live, "\n") {
		t.Errorf("%s: the replay's pane headers differ from the live run's\nlive:\n  %s\nreplay:\n  %s\nreplay screen:\n%s",
			moment, strings.Join(live, "\n  "), strings.Join(got, "\n  "), frame(replay))
	}
}

// replayFiles lists the session files of a sandbox.
func replayFiles(t *testing.T, sb sandbox) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sb.home, ".local/share/covey/sessions/*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestTUIReplayMatchesLive runs a scripted crew live (a writer whose write
// is approved by hand, a reader held by the test), capturing the pane
// headers at four moments: the approval shown, the write made, the writer
// done while the reader is held, the end. `covey replay --speed 10` then
// shows the same headers at the same moments, reached with the player's
// keys (a: the next approval, e: the next edit, n: one event, space:
// play to the end), and sends nothing to the model.
func TestTUIReplayMatchesLive(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	sb := newSandbox(t)
	ws := workspace(t, sampleFiles())
	env := sb.env("OPENAI_BASE_URL=" + srv.URL())
	readerGo, writerGo := newGate(t), newGate(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		// The wait before the crew starts gives the replay's first key
		// time to land before the first approval (half a second at 10×).
		{Delay: 5 * time.Second, Text: "Two helpers.", ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": []map[string]string{
			{"description": "scan the docs", "name": "scout", "subagent_type": "Explore", "prompt": "[e2e:scout] Look at the docs."},
			{"description": "write notes", "name": "scribe", "subagent_type": "general-purpose", "prompt": "[e2e:scribe] Write the notes."},
		}}}}},
		{Text: "REPLAY ANSWER: notes written.", ChunkSize: 100},
	}})
	srv.Add(scripted.Conversation{Name: "scout", Match: scripted.Match{FirstUser: "[e2e:scout]"}, Turns: []scripted.Turn{
		readerGo.hold(scripted.Turn{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.md"})}}),
		{Text: "Two docs."},
	}})
	srv.Add(scripted.Conversation{Name: "scribe", Match: scripted.Match{FirstUser: "[e2e:scribe]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "NOTES.md", "content": "crew notes\nline two\n"})}},
		writerGo.hold(scripted.Turn{Text: "NOTES.md written."}),
	}})

	live := startTUI(t, ws, env, "--model", "e2e-model")
	live.waitText(helpLine)
	live.submit("write the notes")
	live.waitText("awaiting approval")
	live.waitApprovalReady()
	atAsk := paneHeaders(live.screen())
	live.press("y")
	atEdit := paneHeaders(live.waitMatch(regexp.MustCompile(`scribe.*1 tool · 1 file \+2 −0`)))
	writerGo.open()
	atWriterDone := paneHeaders(live.waitMatch(regexp.MustCompile(`✓ scribe`)))
	readerGo.open()
	atEnd := paneHeaders(live.waitText("REPLAY ANSWER: notes written."))
	live.quitAndCheck(helpLine)
	if len(atAsk) < 2 || len(atEnd) != 2 {
		t.Fatalf("the live run's headers: %q at the approval, %q at the end", atAsk, atEnd)
	}
	files := replayFiles(t, sb)
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	requests := len(srv.Journal())

	rp := startTUI(t, ws, env, "replay", id[:12], "--speed", "10")
	rp.waitText("replay ", "10×")
	rp.press("a")
	s := rp.waitFor("the jump to the approval", waitLong, func(s string) bool {
		return strings.Contains(s, "at approval: write_file NOTES.md (scribe)") || strings.Contains(s, "after this point")
	})
	if strings.Contains(s, "after this point") {
		t.Fatalf("the replay played past the approval (0.5 s in at 10×) before the key landed:\n%s", frame(s))
	}
	sameHeaders(t, "at the approval", atAsk, s)
	if !strings.Contains(s, "‖ paused") {
		t.Errorf("a jump did not pause the replay:\n%s", frame(s))
	}
	rp.press("e")
	s = rp.waitText("at edit NOTES.md (scribe)")
	sameHeaders(t, "at the write", atEdit, s)
	for !regexp.MustCompile(`✓ scribe`).MatchString(s) {
		before := eventPos(s)
		rp.press("n")
		s = rp.waitFor("a step", waitLong, func(s string) bool { return eventPos(s) != before })
		if strings.Contains(s, "end of the session") {
			t.Fatalf("stepped to the end without seeing scribe done:\n%s", frame(s))
		}
	}
	sameHeaders(t, "at the writer's end", atWriterDone, s)
	rp.press("+")
	rp.waitText("20×")
	rp.press("-")
	rp.waitText("10×")
	rp.press("Space")
	s = rp.waitText("end of the session", "REPLAY ANSWER: notes written.")
	sameHeaders(t, "at the end", atEnd, s)
	rp.press("q")
	if code, tty, screen := rp.exited(); code != "0" || !hasWord(tty, "icanon") {
		t.Errorf("replay exited %q with the terminal %q:\n%s", code, tty, frame(screen))
	}
	if n := len(srv.Journal()); n != requests {
		t.Errorf("the replay sent %d requests to the model", n-requests)
	}
	if b, err := os.ReadFile(files[0]); err != nil || !strings.Contains(string(b), `"type":"approval_answered"`) {
		t.Errorf("the session file journals no answer (%v)", err)
	}
}

// eventPos is the replay bar's "event N/M".
func eventPos(screen string) string {
	return regexp.MustCompile(`event \d+/\d+`).FindString(screen)
}

// TestReplayUnknownSession: a session ID that names nothing is a clear
// error, before any terminal is needed.
func TestReplayUnknownSession(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	cmd := exec.Command(coveyBin(t), "replay", "20990101T000000Z-nosuch")
	cmd.Env = sb.env()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `no session found with ID "20990101T000000Z-nosuch"`) || !strings.Contains(string(out), "covey sessions") {
		t.Errorf("covey replay of an unknown session: %v\n%s", err, out)
	}
}

// TestTUIReplayDamagedFile: a session file with a damaged line in the
// middle and a torn last line (covey killed mid-write) replays what it
// can: the lines around the damage, a child left running ended as
// interrupted, and a warning naming what was skipped.
func TestTUIReplayDamagedFile(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	path := filepath.Join(t.TempDir(), "damaged.jsonl")
	const at = 1767225600000 // 2026-01-01T00:00:00Z
	lines := []string{
		`{"type":"session","id":"20260101T000000Z-abcdef","workspace":"/tmp/ws","created":"2026-01-01T00:00:00Z","model":"e2e-model","version":1}`,
		`{"type":"checkpoint","id":"c1","time":"2026-01-01T00:00:01Z","text":"hello replay"}`,
		`{"type":"message","message":{"role":"user","content":"hello replay"}}`,
		`{"type":"event","event":{"type":"text","agent_id":"main","text":"FIRST PART of the answer."}}`,
		`{"type":"event","event":{"type":"tool_started","agent_id":"main","call_id":"t1","name":"task","args":{},"key_arg":"scan docs","read_only":false},"at":` + fmt.Sprint(at+2000) + `}`,
		`{"type":"event","event":{"type":"child_started","agent_id":"explore-1","parent_call_id":"t1","agent_type":"Explore","description":"scan docs","depth":1,"parent_id":"main","name":"scout","model":"e2e-model"},"at":` + fmt.Sprint(at+3000) + `}`,
		`{"type":"event","event":{"type":"tool_sta` + "\x00garbage",
		`{"type":"event","event":{"type":"tool_started","agent_id":"explore-1","parent_call_id":"t1","agent_type":"Explore","description":"scan docs","depth":1,"parent_id":"main","name":"scout","call_id":"g1","name":"glob","args":{"pattern":"*.md"},"key_arg":"*.md","read_only":true},"at":` + fmt.Sprint(at+4000) + `}`,
		`{"type":"event","event":{"type":"text","agent_id":"main","text":"torn mid-wr`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := startTUI(t, t.TempDir(), sb.env(), "replay", path, "--speed", "100")
	s := tm.waitText("end of the session")
	for _, want := range []string{"hello replay", "FIRST PART of the answer.", "scout [Explore] scan docs", "glob", "the session file: line 7"} {
		if !strings.Contains(s, want) {
			t.Errorf("the replay lacks %q:\n%s", want, frame(s))
		}
	}
	if strings.Contains(s, "torn mid-wr") {
		t.Errorf("the torn last line was replayed:\n%s", frame(s))
	}
	tm.press("q")
	if code, _, screen := tm.exited(); code != "0" {
		t.Errorf("replay exited %q:\n%s", code, frame(screen))
	}
}
