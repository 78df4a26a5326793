// Package painter paints a Bubble Tea program's frames on the terminal in
// place of Bubble Tea's renderer: the seam where a later Bubble Tea v2,
// or another renderer, goes in.
package painter

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"covey/ui/cells"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// Painter paints the program's frames on the terminal in place of Bubble
// Tea's renderer. That renderer flushes on a ticker that runs 60 times a
// second for the life of the program, so an idle covey woke up some 250
// times a second (the ticker, the scheduler threads it wakes) and streaming
// paid for every tick. The screen instead paints from one goroutine that
// sleeps until a new frame differs from the last one painted, and then paints
// at most one frame per interval: nothing moves, nothing runs.
//
// It owns the terminal modes Bubble Tea's renderer would have set: raw input,
// the alternate screen, a hidden cursor, mouse cell motion with SGR
// coordinates and bracketed paste; window size changes reach the program as
// tea.WindowSizeMsg. Paint rewrites only the lines that changed, and moves
// lines that moved up (a transcript following its end) by scrolling them.
type Painter struct {
	in, out  *os.File
	interval time.Duration

	mu      sync.Mutex
	view    string   // the newest frame
	painted string   // the frame on the terminal
	lines   []string // its lines
	width   int
	height  int
	last    time.Time // when the last frame was painted
	raw     *term.State
	active  bool // the terminal is in the program's modes
	buf     bytes.Buffer
	paints  int // frames painted; tests read it
	// first is written right after the first frame, once, after
	// firstFn runs (AfterFirstPaint).
	first   string
	firstFn func()

	kick chan struct{}
	done chan struct{}
	wg   sync.WaitGroup
}

// paintSlack: a frame written within interval/paintSlack of its due time
// is painted at once. A stream's batches come one interval apart, counted
// from their hand-over, while frames are counted from their paint, a
// little later: without the slack about half the stream's frames missed
// their time by a fraction of a millisecond and went to the painter's
// goroutine, a wake-up each.
const paintSlack = 8

// Terminal modes the screen sets and clears.
const (
	modesOn  = "\x1b[?1049h\x1b[?25l\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[?1004h\x1b[2J"
	modesOff = "\x1b[?1004l\x1b[?2004l\x1b[?1006l\x1b[?1002l\x1b[?25h\x1b[?1049l"
)

// New returns a painter for the terminal in and out that paints at most
// one frame per interval; Start starts it.
func New(in, out *os.File, interval time.Duration) *Painter {
	return &Painter{in: in, out: out, interval: interval, kick: make(chan struct{}, 1), done: make(chan struct{})}
}

// Start puts the terminal in the program's modes and starts the painter.
func (s *Painter) Start() error {
	s.mu.Lock()
	err := s.enterLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.wg.Add(1)
	go s.paintLoop()
	return nil
}

// Stop stops the painter and gives the terminal back as it was.
func (s *Painter) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.wg.Wait()
	s.mu.Lock()
	s.leaveLocked()
	s.mu.Unlock()
}

func (s *Painter) enterLocked() error {
	if s.active {
		return nil
	}
	if s.in != nil && term.IsTerminal(s.in.Fd()) {
		raw, err := term.MakeRaw(s.in.Fd())
		if err != nil {
			return err
		}
		s.raw = raw
	}
	_, _ = io.WriteString(s.out, modesOn)
	s.active = true
	s.lines, s.painted = nil, ""
	return nil
}

func (s *Painter) leaveLocked() {
	if !s.active {
		return
	}
	_, _ = io.WriteString(s.out, modesOff)
	if s.raw != nil {
		_ = term.Restore(s.in.Fd(), s.raw)
		s.raw = nil
	}
	s.active = false
}

// Write hands the painter a frame.
//
// A frame due at once (the last one is an interval old, or nearly: see
// paintSlack) is painted right here, on the caller's goroutine: waking the
// painter for it cost a context switch per frame. Only a frame that must
// wait goes to the painter, which sleeps out the rest of the interval.
func (s *Painter) Write(view string) {
	s.mu.Lock()
	s.view = view
	if view == s.painted {
		s.mu.Unlock()
		return
	}
	if time.Since(s.last) >= s.interval-s.interval/paintSlack {
		s.paintLocked()
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Signal writes seq (a bell, a notification) between frames, never inside
// one.
func (s *Painter) Signal(seq string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active {
		_, _ = io.WriteString(s.out, seq)
	}
}

// resize records the terminal's size; the next frame is painted whole.
func (s *Painter) resize(width, height int) {
	s.mu.Lock()
	s.width, s.height = width, height
	s.lines, s.painted = nil, ""
	if s.active {
		_, _ = io.WriteString(s.out, "\x1b[2J")
	}
	s.mu.Unlock()
	s.Write(s.currentView())
}

func (s *Painter) currentView() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}

// paintLoop paints the newest frame each time Write kicks it, waiting out
// what is left of the interval since the last frame, so frames coming
// faster than the interval coalesce.
func (s *Painter) paintLoop() {
	defer s.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-s.kick:
		case <-s.done:
			return
		}
		s.mu.Lock()
		wait := s.interval - time.Since(s.last)
		s.mu.Unlock()
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-s.done:
				timer.Stop()
				return
			}
		}
		s.paint()
	}
}

// paint writes the lines of the newest frame that differ from the
// terminal's.
func (s *Painter) paint() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paintLocked()
}

func (s *Painter) paintLocked() {
	if !s.active || s.view == s.painted {
		return
	}
	lines := strings.Split(s.view, "\n")
	if s.height > 0 && len(lines) > s.height {
		lines = lines[len(lines)-s.height:]
	}
	b := &s.buf
	b.Reset()
	b.WriteString("\x1b[?2026h") // synchronized output: terminals that know it show the frame at once
	n := len(lines)
	if len(s.lines) == n {
		s.scrollLocked(lines)
	}
	for i, l := range lines {
		// The last line is drawn after the others, changed or not: the
		// cursor then rests after the frame, as Bubble Tea's renderer
		// left it, so whatever is printed after a crash (a shell's
		// prompt) starts after the frame, not over it.
		if i < n-1 && i < len(s.lines) && s.lines[i] == l {
			continue
		}
		if i == n-1 {
			break
		}
		s.paintLine(i, l)
	}
	if n < len(s.lines) {
		b.WriteString("\x1b[")
		b.WriteString(strconv.Itoa(n + 1))
		b.WriteString(";1H\x1b[m\x1b[J")
	}
	if n > 0 {
		s.paintLine(n-1, lines[n-1])
	}
	b.WriteString("\x1b[?2026l")
	_, _ = s.out.Write(b.Bytes())
	s.lines = append(s.lines[:0], lines...)
	s.painted = s.view
	s.last = time.Now()
	s.paints++
	if s.paints == 1 && s.first != "" {
		if s.firstFn != nil {
			s.firstFn()
		}
		_, _ = io.WriteString(s.out, s.first)
	}
}

// AfterFirstPaint writes seq (a query to the terminal) right after the
// first frame is painted, once, calling fn first: nothing the program asks
// the terminal holds that frame up. Call it before Start.
func (s *Painter) AfterFirstPaint(seq string, fn func()) {
	s.mu.Lock()
	s.first, s.firstFn = seq, fn
	s.mu.Unlock()
}

// maxScroll is the most lines a frame is scrolled by: a stream adds a
// line or two a frame; a bigger jump (a page) is painted whole.
const maxScroll = 8

// scrollLocked moves the lines a new frame shares with the painted one,
// shifted up (a transcript following its end), by scrolling that region
// of the terminal instead of rewriting them: a streaming answer's frame
// then writes its new lines alone, not the whole screen. It notes the
// moved lines in s.lines, so the paint that follows rewrites only the
// rest. The last line is never in the region (it is drawn last anyway).
func (s *Painter) scrollLocked(lines []string) {
	old := s.lines
	n := len(lines) - 1
	same := 0 // rows with text that need no paint as they are
	for i := range n {
		if lines[i] != "" && lines[i] == old[i] {
			same++
		}
	}
	bestK, bestTop, bestLen, bestText := 0, 0, 0, 0
	for k := 1; k <= maxScroll && k < n; k++ {
		// The run of rows showing what was k rows lower that holds the
		// most text (blank rows match too, but save nothing).
		start, text := 0, 0
		for i := 0; i+k < n; i++ {
			if lines[i] != old[i+k] {
				start, text = i+1, 0
				continue
			}
			if lines[i] != "" {
				text++
			}
			if text > bestText {
				bestK, bestTop, bestLen, bestText = k, start, i-start+1, text
			}
		}
	}
	// Worth it only when the scroll saves more rows than it costs.
	if bestText < 4 || bestText <= same+2 {
		return
	}
	top, bot := bestTop, bestTop+bestLen+bestK // rows top..bot-1 scroll up by k
	b := &s.buf
	b.WriteString("\x1b[m\x1b[")
	b.WriteString(strconv.Itoa(top + 1))
	b.WriteByte(';')
	b.WriteString(strconv.Itoa(bot))
	b.WriteString("r\x1b[")
	b.WriteString(strconv.Itoa(bestK))
	b.WriteString("S\x1b[r")
	copy(old[top:bot-bestK], old[top+bestK:bot])
	for i := bot - bestK; i < bot; i++ {
		old[i] = "\x00" // blank on the terminal, and unlike any line of a frame
	}
}

// paintLine writes line i of a frame, cut to the terminal's width, from no
// colour. A line
// as wide as the terminal leaves the cursor waiting to wrap, where erasing
// the rest of the line would erase its last cell, so only a shorter line
// is followed by an erase.
func (s *Painter) paintLine(i int, l string) {
	w := cells.StyledWidth(l)
	if s.width > 0 && w > s.width {
		l, w = ansi.Truncate(l, s.width, ""), s.width
	}
	b := &s.buf
	b.WriteString("\x1b[")
	b.WriteString(strconv.Itoa(i + 1))
	// Each line starts from no colour: what the line painted before it
	// left set must not colour this one's leading blanks and erase, now
	// that which lines are painted, and in which order, depends on what
	// scrolled.
	b.WriteString(";1H\x1b[m")
	b.WriteString(l)
	if s.width == 0 || w < s.width {
		b.WriteString("\x1b[K")
	}
}

// size reads the terminal's size.
func (s *Painter) size() (int, int, error) {
	return term.GetSize(s.out.Fd())
}

// WatchSize sends the terminal's size to p now and after every SIGWINCH
// until the screen stops.
func (s *Painter) WatchSize(p *tea.Program) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer signal.Stop(ch)
		for {
			if w, h, err := s.size(); err == nil {
				s.resize(w, h)
				go p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
			select {
			case <-ch:
			case <-s.done:
				return
			}
		}
	}()
}

// ExecProcess runs c with the terminal, as tea.ExecProcess does; on the
// painter (scr not nil), the terminal leaves the painter's modes for the
// time c runs.
func ExecProcess(scr *Painter, c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	if scr == nil {
		return tea.ExecProcess(c, fn)
	}
	return tea.Exec(painterExec{cmd: c, scr: scr}, fn)
}

// painterExec is a command that takes the terminal (the editor).
type painterExec struct {
	cmd *exec.Cmd
	scr *Painter
}

// SetStdin, SetStdout and SetStderr give the command the program's
// terminal unless it has streams of its own.
func (e painterExec) SetStdin(r io.Reader) {
	if e.cmd.Stdin == nil {
		e.cmd.Stdin = r
	}
}

func (e painterExec) SetStdout(w io.Writer) {
	if e.cmd.Stdout == nil {
		e.cmd.Stdout = w
	}
}

func (e painterExec) SetStderr(w io.Writer) {
	if e.cmd.Stderr == nil {
		e.cmd.Stderr = w
	}
}

// Run runs the command with the terminal as the screen found it.
func (e painterExec) Run() error {
	e.scr.mu.Lock()
	e.scr.leaveLocked()
	e.scr.mu.Unlock()
	err := e.cmd.Run()
	e.scr.mu.Lock()
	_ = e.scr.enterLocked()
	e.scr.mu.Unlock()
	e.scr.Write(e.scr.currentView())
	return err
}
