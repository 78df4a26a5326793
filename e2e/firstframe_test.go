package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"covey/internal/scripted/scriptedtest"
)

// TestTUIFirstFrameInASilentTerminal runs covey in a pseudo-terminal that
// answers no query (a serial console, `script`, a slow link): the first
// frame comes, and covey asked the terminal nothing before it; its
// background colour is asked after (scripts/firstframe times both kinds
// of terminal). covey used to ask first and wait 5 s for the answer.
func TestTUIFirstFrameInASilentTerminal(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	master, slave := openPTY(t, 24, 80)
	cmd := exec.Command(coveyBin(t), "--model", "e2e-model")
	cmd.Dir = ws
	cmd.Env = newSandbox(t).env("OPENAI_BASE_URL="+srv.URL(), "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(waitLong):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	sgr := regexp.MustCompile(`\x1b\[[0-9;:]*m`)
	query := []byte("\x1b]11;?")
	out := make(chan []byte, 1)
	go func() {
		var got []byte
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			got = append(got, buf[:n]...)
			plain := sgr.ReplaceAll(got, nil)
			// The first frame, and then the query after it if it comes
			// within a moment.
			if i := bytes.Index(plain, []byte(readyLine)); i >= 0 && (bytes.Contains(plain[i:], query) || err != nil) {
				out <- plain
				return
			}
			if err != nil {
				out <- plain
				return
			}
		}
	}()
	var plain []byte
	select {
	case plain = <-out:
	case <-time.After(waitLong):
		t.Fatalf("no first frame with the query after it within %s in a terminal that answers nothing", waitLong)
	}
	frameAt, queryAt := bytes.Index(plain, []byte(readyLine)), bytes.Index(plain, query)
	if frameAt < 0 {
		t.Fatalf("covey ended before its first frame; it wrote %q", plain)
	}
	if queryAt >= 0 && queryAt < frameAt {
		t.Errorf("covey asked the terminal for its background before its first frame (byte %d, the frame at %d): a silent terminal holds the frame up", queryAt, frameAt)
	}
}

// TestTUIBackgroundAnswersLate: the first frame is drawn dark (no answer
// kept from before); the terminal answers the background query late,
// with a light background: the colours switch live to the light palette
// (its status bar is grey 255 in 256 colours, the dark one's 235), and
// the answer is kept for the next start. covey used to keep the answer
// for the next start only.
func TestTUIBackgroundAnswersLate(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	ws := workspace(t, sampleFiles())
	box := newSandbox(t)
	master, slave := openPTY(t, 24, 80)
	cmd := exec.Command(coveyBin(t), "--model", "e2e-model")
	cmd.Dir = ws
	cmd.Env = box.env("OPENAI_BASE_URL="+srv.URL(), "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(waitLong):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	const darkBar, lightBar = "48;5;235m", "48;5;255m"
	var (
		mu  sync.Mutex
		out []byte
	)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			out = append(out, buf[:n]...)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	waitOut := func(what string, cond func(b []byte) bool) []byte {
		t.Helper()
		deadline := time.Now().Add(waitLong)
		for time.Now().Before(deadline) {
			mu.Lock()
			b := append([]byte(nil), out...)
			mu.Unlock()
			if cond(b) {
				return b
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("waited %s for %s; covey wrote %q", waitLong, what, out)
		return nil
	}
	first := waitOut("the first frame and the background query", func(b []byte) bool {
		return bytes.Contains(b, []byte("\x1b]11;?"))
	})
	if !bytes.Contains(first, []byte(darkBar)) || bytes.Contains(first, []byte(lightBar)) {
		t.Fatalf("the first frame is not drawn with the dark palette (no answer was kept): %q", first)
	}
	mark := len(first)
	// The answer comes late: a slow link, a busy multiplexer.
	time.Sleep(300 * time.Millisecond)
	if _, err := master.WriteString("\x1b]11;rgb:ffff/ffff/ffff\x1b\\"); err != nil {
		t.Fatal(err)
	}
	waitOut("the frame redrawn in the light palette", func(b []byte) bool {
		return bytes.Contains(b[mark:], []byte(lightBar))
	})
	state := filepath.Join(box.home, ".local/state/covey/background")
	deadline := time.Now().Add(waitLong)
	for {
		data, _ := os.ReadFile(state)
		if strings.TrimSpace(string(data)) == "light" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the answer is not kept for the next start: %s holds %q", state, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openPTY opens a pseudo-terminal of rows×cols; both ends close with the
// test.
func openPTY(t *testing.T, rows, cols uint16) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("the pty's number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatal(err)
	}
	return master, slave
}
