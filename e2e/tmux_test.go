package e2e

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Screen geometry of every TUI test, and how long to wait for the screen to
// reach a state. The waits are generous: CI machines are slow and shared,
// and a wait ends as soon as its condition holds.
const (
	termWidth   = 120
	termHeight  = 40
	waitLong    = 20 * time.Second
	pollEvery   = 50 * time.Millisecond
	exitMarker  = "COVEY_EXIT="
	ttyMarker   = "COVEY_TTY="
	sessionName = "covey"
)

// term is covey running in a private tmux server: one per test, on its own
// socket (tmux -S), so tests never touch the user's tmux and can run in
// parallel.
type term struct {
	t      testing.TB
	socket string
	// record is the file recordOutput keeps the pane's output in.
	record string
}

// requireTmux skips a TUI test when tmux is missing; .ci/run installs it,
// so in CI these tests always run.
func requireTmux(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the TUI end-to-end tests need it (.ci/run installs it)")
	}
}

// startTUI starts `covey args...` in dir inside a new tmux session of
// termWidth×termHeight, with exactly env as its environment. covey runs
// under sh, which afterwards prints covey's exit code and whether the
// terminal is back in canonical mode, then keeps the pane open.
func startTUI(t testing.TB, dir string, env []string, args ...string) *term {
	t.Helper()
	requireTmux(t)
	// The socket lives in a short private folder (not tmux's shared
	// /tmp/tmux-UID, where it would outlive the server) and goes with it.
	sockDir, err := os.MkdirTemp("", "covey-e2e-")
	if err != nil {
		t.Fatalf("tmux socket folder: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	tm := &term{t: t, socket: filepath.Join(sockDir, "tmux.sock")}
	// A private config: no status line (the pane is the whole window) and
	// the pane kept after its command ends; the user's ~/.tmux.conf is
	// never read.
	conf := filepath.Join(t.TempDir(), "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g status off\nset -g remain-on-exit on\nset -g history-limit 0\n"), 0o644); err != nil {
		t.Fatalf("tmux config: %v", err)
	}
	quoted := make([]string, 0, len(env)+len(args)+2)
	quoted = append(quoted, "env", "-i")
	for _, e := range env {
		quoted = append(quoted, shellQuote(e))
	}
	quoted = append(quoted, shellQuote(coveyBin(t)))
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	script := strings.Join(quoted, " ") + "; echo " + exitMarker + "$?; " +
		"echo " + ttyMarker + "$(stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '); " +
		"exec sleep 600"
	var pane int
	t.Cleanup(func() {
		// Killing the server hangs up covey if it still runs. covey then
		// ends by itself, writing its session on the way out: wait for it
		// (and whatever it started), or the test's temp dirs, removed by
		// the cleanups that run next, would be written to while they go.
		procs := processTree(pane)
		_ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run()
		if left := waitProcessesGone(procs, waitLong); len(left) > 0 {
			t.Errorf("%d processes of the pane still ran %s after its terminal closed:\n%s", len(left), waitLong, strings.Join(left, "\n"))
		}
	})
	tm.tmux("-f", conf, "new-session", "-d", "-s", sessionName, "-c", dir,
		"-x", fmt.Sprint(termWidth), "-y", fmt.Sprint(termHeight), "sh", "-c", script)
	pane, _ = strconv.Atoi(strings.TrimSpace(tm.tmux("list-panes", "-t", sessionName, "-F", "#{pane_pid}")))
	return tm
}

// proc is one process, by its pid and its start time (field 22 of
// /proc/PID/stat), so a pid reused by a later process is not taken for it.
type proc struct {
	pid   int
	start string
}

// procStat reads pid's state, parent and start time from /proc.
func procStat(pid int) (state string, ppid int, start string, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, "", false
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return "", 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0], ppid, f[19], true
}

// processTree lists root and its descendants (none for root 0).
func processTree(root int) []proc {
	if root <= 0 {
		return nil
	}
	children := map[int][]proc{}
	var self []proc
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, start, ok := procStat(pid); ok {
			children[ppid] = append(children[ppid], proc{pid, start})
			if pid == root {
				self = append(self, proc{pid, start})
			}
		}
	}
	out := self
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i].pid]...)
	}
	return out
}

// waitProcessesGone waits up to timeout for procs to end (a zombie has)
// and returns the command lines of those still running then.
func waitProcessesGone(procs []proc, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, p := range procs {
			if state, _, start, ok := procStat(p.pid); ok && start == p.start && state != "Z" {
				cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
				left = append(left, fmt.Sprintf("%d %s", p.pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(pollEvery)
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tmux runs a tmux command on the test's server and returns its output.
func (tm *term) tmux(args ...string) string {
	tm.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-u", "-S", tm.socket}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// typeText types s literally.
func (tm *term) typeText(s string) {
	tm.t.Helper()
	tm.tmux("send-keys", "-t", sessionName, "-l", s)
}

// press sends named keys (Enter, Tab, BTab, Escape, C-c, ...).
func (tm *term) press(keys ...string) {
	tm.t.Helper()
	tm.tmux(append([]string{"send-keys", "-t", sessionName}, keys...)...)
}

// submit types a prompt and presses Enter.
func (tm *term) submit(prompt string) {
	tm.t.Helper()
	tm.typeText(prompt)
	tm.press("Enter")
}

// screen is the visible pane as plain text, trailing blanks trimmed.
func (tm *term) screen() string {
	tm.t.Helper()
	return tm.tmux("capture-pane", "-p", "-t", sessionName)
}

// colorScreen is the visible pane with its SGR escape sequences.
func (tm *term) colorScreen() string {
	tm.t.Helper()
	return tm.tmux("capture-pane", "-p", "-e", "-t", sessionName)
}

// resize changes the window's size, as a user dragging the terminal would.
func (tm *term) resize(width, height int) {
	tm.t.Helper()
	tm.tmux("resize-window", "-t", sessionName, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height))
}

// waitFor polls the screen every pollEvery until cond holds and returns
// that screen; after timeout it fails the test with what, and the last
// screen.
func (tm *term) waitFor(what string, timeout time.Duration, cond func(screen string) bool) string {
	tm.t.Helper()
	return tm.poll(what, timeout, func(s string) error {
		if !cond(s) {
			return errNotYet
		}
		return nil
	})
}

// waitOK polls the screen until check accepts it and returns that screen;
// after waitLong it fails the test with what, check's last complaint and
// the last screen.
func (tm *term) waitOK(what string, check func(screen string) error) string {
	tm.t.Helper()
	return tm.poll(what, waitLong, check)
}

// errNotYet is waitFor's complaint: its condition says no more.
var errNotYet = errors.New("not yet")

func (tm *term) poll(what string, timeout time.Duration, check func(screen string) error) string {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := tm.screen()
		err := check(s)
		if err == nil {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("waited %s for %s (%v); the screen:\n%s", timeout, what, err, frame(s))
		}
		time.Sleep(pollEvery)
	}
}

// waitText waits until the screen contains every one of subs.
func (tm *term) waitText(subs ...string) string {
	tm.t.Helper()
	return tm.waitFor(fmt.Sprintf("%q on screen", subs), waitLong, func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	})
}

// waitMatch waits until the screen matches re.
func (tm *term) waitMatch(re *regexp.Regexp) string {
	tm.t.Helper()
	return tm.waitFor(fmt.Sprintf("a match of %s", re), waitLong, re.MatchString)
}

// recordOutput starts keeping every byte covey writes to the terminal, for
// waitPainted.
func (tm *term) recordOutput() {
	tm.t.Helper()
	tm.record = filepath.Join(tm.t.TempDir(), "pane-output")
	tm.tmux("pipe-pane", "-O", "-t", sessionName, "cat >> "+shellQuote(tm.record))
	// The pipe exists once pipe-pane returns; the file says cat has it.
	tm.waitFor("the pane's output recorded", waitLong, func(string) bool {
		_, err := os.Stat(tm.record)
		return err == nil
	})
}

// waitPainted waits until covey has painted a line that matches re, in a
// frame the screen may no longer show: a state that lasts less than a poll
// of the screen can take on a loaded machine (a count that rises by one
// and at once by one more) is found in the output recordOutput keeps.
// covey paints whole lines (ui/painter), each placed by a cursor move:
// the text between escape sequences other than colours is one line.
func (tm *term) waitPainted(re *regexp.Regexp) string {
	tm.t.Helper()
	if tm.record == "" {
		tm.t.Fatal("waitPainted needs recordOutput first")
	}
	var read int64
	var rest string
	return tm.waitFor(fmt.Sprintf("a line matching %s painted", re), waitLong, func(s string) bool {
		if re.MatchString(s) {
			return true
		}
		f, err := os.Open(tm.record)
		if err != nil {
			return false
		}
		defer f.Close()
		data, _ := io.ReadAll(io.NewSectionReader(f, read, 1<<40))
		read += int64(len(data))
		// An escape sequence may be cut at the end: its line waits for
		// the next read.
		text := rest + string(data)
		cut := max(strings.LastIndexByte(text, 0x1b), 0)
		text, rest = text[:cut], text[cut:]
		for _, l := range paintedLines(text) {
			if re.MatchString(l) {
				return true
			}
		}
		return false
	})
}

// escapeRe matches a terminal escape sequence: CSI, OSC or two bytes.
var escapeRe = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[^\[\]])`)

// paintedLines splits terminal output into the runs of text written in
// one place: colours (SGR) are dropped, every other escape sequence and
// CR or LF ends a run.
func paintedLines(out string) []string {
	out = escapeRe.ReplaceAllStringFunc(out, func(seq string) string {
		if strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
			return ""
		}
		return "\n"
	})
	return strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' })
}

// exited waits for covey to end and returns its exit code line and the
// terminal mode line sh printed after it.
func (tm *term) exited() (code, tty string, screen string) {
	tm.t.Helper()
	// Wrapped lines joined (-J): after a SIGKILL sh writes its markers
	// wherever covey's last frame left the cursor, and one may wrap at the
	// right edge.
	deadline := time.Now().Add(waitLong)
	for {
		screen = tm.tmux("capture-pane", "-p", "-J", "-t", sessionName)
		if strings.Contains(screen, exitMarker) && strings.Contains(screen, ttyMarker) {
			break
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("waited %s for covey to exit and sh to report the terminal; the screen:\n%s", waitLong, frame(screen))
		}
		time.Sleep(pollEvery)
	}
	// After a SIGKILL the terminal keeps covey's last frame, and sh writes
	// its marker over it: the code is the digits, not the rest of the line.
	code = markerValue(screen, exitMarker)
	if n := strings.IndexFunc(code, func(r rune) bool { return r < '0' || r > '9' }); n >= 0 {
		code = code[:n]
	}
	return code, markerValue(screen, ttyMarker), screen
}

// markerValue is the rest of the line after marker.
func markerValue(screen, marker string) string {
	i := strings.Index(screen, marker)
	if i < 0 {
		return ""
	}
	line, _, _ := strings.Cut(screen[i+len(marker):], "\n")
	return strings.TrimSpace(line)
}

// frame draws a screen with line numbers, so a failure shows exactly what
// the terminal held.
func frame(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%2d|%s\n", i+1, l)
	}
	return b.String()
}

// quitAndCheck quits covey with ctrl+c (once with text in the input, which
// clears it; once on the empty input, which asks "press ctrl+c again to
// quit"; once more to quit) and checks that it exited with 0 and left
// the terminal as it found it: canonical mode with echo, and the alternate
// screen gone.
func (tm *term) quitAndCheck(uiMarker string) {
	tm.t.Helper()
	// ctrl+c interrupts a running turn before it clears a draft: the
	// turn's end (the status bar's "esc interrupt" gone) comes first.
	tm.waitFor("the turn to end", waitLong, func(s string) bool { return !strings.Contains(s, "esc interrupt") })
	tm.typeText("draft to discard")
	tm.waitText("draft to discard")
	tm.press("C-c")
	tm.waitFor("ctrl+c to clear the input", waitLong, func(s string) bool {
		return !strings.Contains(s, "draft to discard")
	})
	tm.press("C-c")
	tm.waitText("press ctrl+c again to quit")
	tm.press("C-c")
	code, tty, screen := tm.exited()
	if code != "0" {
		tm.t.Errorf("covey exited with %q, want 0; the screen:\n%s", code, frame(screen))
	}
	if !hasWord(tty, "icanon") || !hasWord(tty, "echo") {
		tm.t.Errorf("terminal after exit is %q, want canonical mode with echo (icanon echo)", tty)
	}
	if strings.Contains(screen, uiMarker) {
		tm.t.Errorf("covey's screen (%q) is still shown after exit: the alternate screen was not left; the screen:\n%s", uiMarker, frame(screen))
	}
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// waitApprovalReady waits until the request on screen takes keys: its
// grace (a quiet keyboard for 425 ms after it appeared) shows as "wait…"
// before its dimmed keys.
//
// Twice in a row, a poll apart: tmux may show a frame half drawn (the
// request's header in, its key line not yet), and one capture of it would
// say ready while the grace has just begun.
func (tm *term) waitApprovalReady() {
	tm.t.Helper()
	quiet := 0
	tm.waitFor("the request to take keys", waitLong, func(s string) bool {
		if strings.Contains(s, "wait… ") {
			quiet = 0
			return false
		}
		quiet++
		return quiet >= 2
	})
}

// TestPaintedLines: painted output splits into its lines, colours dropped,
// whatever the cursor moves and modes around them.
func TestPaintedLines(t *testing.T) {
	out := "\x1b[?2026h\x1b[3;1H\x1b[1;38;5;2m✓ find\x1b[0m [Explore]  1 tool · 0.4s\x1b[K" +
		"\x1b[4;1H│ ✓ grep\x1b[K\x1b]0;title\x07\x1b[40;1Hhint\r\nnext\x1b[?2026l"
	got := paintedLines(out)
	want := []string{"✓ find [Explore]  1 tool · 0.4s", "│ ✓ grep", "hint", "next"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("paintedLines = %q, want %q", got, want)
	}
}
