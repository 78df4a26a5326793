package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
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
