// Command firstframe measures how long covey takes to put its first frame
// on a terminal: it runs covey in a pseudo-terminal of its own, which
// answers the terminal queries covey sends (the background colour, OSC 11,
// and the cursor position) or answers nothing, and times the first paint
// of the input's hint line. scripts/bench-startup runs it both ways.
//
//	firstframe [-n 9] [-answer] [-timeout 10s] -- COVEY ARGS
//
// It prints the median, fastest and slowest time to the first frame, and
// whether covey asked the terminal anything before that frame. With
// -light the terminal answers a light background (each run with no answer
// kept from before, so the first frame is dark): it also times, from the
// answer, the frame redrawn in the light palette (covey switches live).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ready is on covey's first frame: the input's hint line.
var ready = []byte("enter send")

// sgr matches a colour escape sequence.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// Queries covey may send, and how an answering terminal answers them.
var (
	queryBackground  = []byte("\x1b]11;?")
	answerBackground = []byte("\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\")
	answerLight      = []byte("\x1b]11;rgb:ffff/ffff/ffff\x1b\\")
	queryCursor      = []byte("\x1b[6n")
	answerCursor     = []byte("\x1b[1;1R")
)

func main() {
	n := flag.Int("n", 9, "runs")
	answer := flag.Bool("answer", false, "answer covey's terminal queries")
	light := flag.Bool("light", false, "answer a light background, and time the switch to it")
	timeout := flag.Duration("timeout", 10*time.Second, "give up on a run after this")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: firstframe [-n 9] [-answer [-light]] -- COVEY ARGS")
		os.Exit(2)
	}
	var times, switches []time.Duration
	asked := 0
	for range *n {
		r, err := run(flag.Args(), *answer || *light, *light, *timeout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "firstframe:", err)
			os.Exit(1)
		}
		times = append(times, r.first)
		switches = append(switches, r.switched)
		if r.before {
			asked++
		}
	}
	slices.Sort(times)
	slices.Sort(switches)
	mode := "a terminal that answers nothing"
	switch {
	case *light:
		mode = "a terminal that answers a light background at once"
	case *answer:
		mode = "a terminal that answers at once"
	}
	fmt.Printf("first frame in %s: median %.1f ms (fastest %.1f, slowest %.1f, %d runs); asked the terminal before it in %d runs\n",
		mode, ms(times[len(times)/2]), ms(times[0]), ms(times[len(times)-1]), len(times), asked)
	if *light {
		fmt.Printf("the frame in the light palette, after the answer: median %.1f ms (fastest %.1f, slowest %.1f)\n",
			ms(switches[len(switches)/2]), ms(switches[0]), ms(switches[len(switches)-1]))
	}
}

// lightBar is the light palette's status bar background in 256 colours.
var lightBar = []byte("48;5;255m")

// result is one run's times: to the first frame, and from the background
// answer to the frame in the light palette (-light); before says a query
// came before the first frame.
type result struct {
	first, switched time.Duration
	before          bool
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// run starts args in a new pseudo-terminal and times it.
func run(args []string, answer, light bool, timeout time.Duration) (result, error) {
	master, slave, err := openPTY(24, 80)
	if err != nil {
		return result{}, err
	}
	defer master.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	bg := answerBackground
	if light {
		// No answer kept: the first frame is dark, the answer light.
		state, err := os.MkdirTemp("", "firstframe-state-")
		if err != nil {
			_ = slave.Close()
			return result{}, err
		}
		defer os.RemoveAll(state)
		cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+state)
		bg = answerLight
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		_ = slave.Close()
		return result{}, err
	}
	_ = slave.Close()
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	done := make(chan result, 1)
	go func() {
		var (
			out       []byte
			r         result
			framed    bool
			answered  time.Time
			afterDark int // where the output after the answer starts
		)
		buf := make([]byte, 4096)
		for {
			k, err := master.Read(buf)
			out = append(out, buf[:k]...)
			if answer {
				for _, q := range [][2][]byte{{queryBackground, bg}, {queryCursor, answerCursor}} {
					for c := bytes.Count(out, q[0]) - bytes.Count(out[:len(out)-k], q[0]); c > 0; c-- {
						_, _ = master.Write(q[1])
						if bytes.Equal(q[0], queryBackground) && answered.IsZero() {
							answered, afterDark = time.Now(), len(out)
						}
					}
				}
			}
			if !framed {
				// Colours may part the hint's words: look at the text
				// without them, and at where the query came in it.
				plain := sgr.ReplaceAll(out, nil)
				if i := bytes.Index(plain, ready); i >= 0 {
					first := bytes.Index(plain, queryBackground)
					r.first, r.before, framed = time.Since(start), first >= 0 && first < i, true
				}
			}
			switch {
			case framed && !light:
				done <- r
				return
			case framed && !answered.IsZero() && bytes.Contains(out[afterDark:], lightBar):
				r.switched = time.Since(answered)
				done <- r
				return
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case r := <-done:
		return r, nil
	case <-time.After(timeout):
		return result{}, errors.New("no first frame (or, with -light, no light frame) within " + timeout.String())
	}
}

// openPTY opens a pseudo-terminal of rows×cols: its master and its slave.
func openPTY(rows, cols uint16) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		_ = master.Close()
		return nil, nil, fmt.Errorf("unlock pty: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		_ = master.Close()
		return nil, nil, fmt.Errorf("pty number: %w", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		_ = master.Close()
		return nil, nil, err
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		_ = master.Close()
		_ = slave.Close()
		return nil, nil, err
	}
	return master, slave, nil
}
