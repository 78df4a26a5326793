package tools

import (
	"covey/internal/proctree"

	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of a background shell.
const (
	// ShellRing is how much of a background shell's output is kept: the
	// newest bytes; older ones are counted and said to be cut.
	ShellRing = 1 << 20
	// shellTick is how often a running shell's new output is reported to
	// the observer (the panes): never more, however fast it prints.
	shellTick = 200 * time.Millisecond
	// shellTailLines is how many of its last lines a report carries.
	shellTailLines = 10
	// shellLineMemory bounds one reported line.
	shellLineMemory = 512
	// shellKillGrace is the SIGTERM → SIGKILL wait of kill_shell and of
	// covey's exit.
	shellKillGrace = 500 * time.Millisecond
	// maxShellWait bounds bash_output's wait_s.
	maxShellWait = 600 * time.Second
)

// Kinds of ShellEvent.
const (
	ShellStarted = "started"
	ShellOutput  = "output"
	ShellExited  = "exited"
)

// ShellEvent reports a change of a background shell to the session's
// observer: it started, printed (at most every shellTick), or exited.
type ShellEvent struct {
	Kind string
	Info ShellInfo
	// Tail is its last lines of output (output and exited).
	Tail []string
}

// ShellInfo is a background shell as others see it.
type ShellInfo struct {
	ID      string
	Command string
	// Owner is the AgentID of the agent that started it, OwnerDepth that
	// agent's depth, CallID its bash call.
	Owner      string
	OwnerDepth int
	CallID     string
	Started    time.Time
	Running    bool
	// ExitCode, Signal and Killed say how it ended, once not Running;
	// Killed is set when kill_shell, the user or covey's exit stopped it.
	ExitCode int
	Signal   syscall.Signal
	Killed   bool
	Elapsed  time.Duration
	// Bytes is all it printed; Kept how many of them are kept.
	Bytes int64
	Kept  int
	// Note is what covey adds to its outcome (a settings file put back).
	Note string
}

// Status says in a few words how the shell stands: "running", "exit 0",
// "killed", "killed by signal 9".
func (i ShellInfo) Status() string {
	switch {
	case i.Running:
		return "running"
	case i.Killed:
		return "killed"
	case i.Signal != 0:
		return fmt.Sprintf("killed by signal %d", int(i.Signal))
	}
	return fmt.Sprintf("exit %d", i.ExitCode)
}

// Shells runs the background shells of one session: commands the bash
// tool started with run_in_background, read with bash_output and stopped
// with kill_shell. Their output is kept in a ring of ShellRing bytes.
// Close stops them all; nothing outlives the session.
type Shells struct {
	tick time.Duration // how often new output is reported
	keep int           // bytes of output kept per shell

	mu      sync.Mutex
	seq     int
	shells  map[string]*bgShell
	closed  bool
	observe func(ShellEvent)
	wg      sync.WaitGroup
}

// NewShells returns an empty set of background shells.
func NewShells() *Shells {
	return &Shells{tick: shellTick, keep: ShellRing, shells: map[string]*bgShell{}}
}

// SkipIDs makes the next shell's id follow those up to shell-n (a resumed
// session's shells keep theirs: a new shell must not take one).
func (s *Shells) SkipIDs(n int) {
	s.mu.Lock()
	s.seq = max(s.seq, n)
	s.mu.Unlock()
}

// Observe sets the function told of every shell's start, output and exit
// (the session turns them into crew events). Set it before the first
// shell starts; it must not block for long.
func (s *Shells) Observe(f func(ShellEvent)) {
	s.mu.Lock()
	s.observe = f
	s.mu.Unlock()
}

func (s *Shells) notify(e ShellEvent) {
	s.mu.Lock()
	f := s.observe
	s.mu.Unlock()
	if f != nil {
		f(e)
	}
}

// errShellsClosed refuses a shell once the session is ending.
var errShellsClosed = errors.New("covey is shutting down")

// bgShell is one background command.
type bgShell struct {
	info   ShellInfo // ID, Command, Owner... fixed at start
	pgid   int
	mark   string // proctree's mark on everything it started
	cmd    *exec.Cmd
	done   chan struct{} // closed once it exited and its output is in
	change chan struct{} // closed and replaced on new output or exit

	mu     sync.Mutex
	out    ring
	read   int64 // the model's read offset into all output
	exited bool
	code   int
	sig    syscall.Signal
	killed bool
	ended  time.Time
	note   string
}

// start runs cmd (already started, its output on r) as background shell.
// after runs once it has exited, and its return is noted in its outcome.
func (s *Shells) start(cmd *exec.Cmd, r *os.File, mark, command, owner string, depth int, callID string, after func() string) (ShellInfo, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		_ = r.Close()
		return ShellInfo{}, errShellsClosed
	}
	s.seq++
	sh := &bgShell{
		info: ShellInfo{ID: fmt.Sprintf("shell-%d", s.seq), Command: command, Owner: owner, OwnerDepth: depth, CallID: callID, Started: time.Now()},
		pgid: cmd.Process.Pid, mark: mark, cmd: cmd, done: make(chan struct{}), change: make(chan struct{}),
	}
	sh.out.cap = s.keep
	s.shells[sh.info.ID] = sh
	s.wg.Add(1)
	s.mu.Unlock()
	info := sh.snapshot()
	s.notify(ShellEvent{Kind: ShellStarted, Info: info})
	go s.follow(sh, r, after)
	return info, nil
}

// follow copies the shell's output into its ring, reports it at most every
// tick, and once the shell exits kills what is left of its process group
// and reports the exit.
func (s *Shells) follow(sh *bgShell, r *os.File, after func() string) {
	defer s.wg.Done()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				sh.mu.Lock()
				sh.out.Write(buf[:n])
				sh.signalLocked()
				sh.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- sh.cmd.Wait() }()
	tick := time.NewTicker(s.tick)
	defer tick.Stop()
	var reported int64
	report := func() {
		sh.mu.Lock()
		total := sh.out.total
		sh.mu.Unlock()
		if total != reported {
			reported = total
			s.notify(ShellEvent{Kind: ShellOutput, Info: sh.snapshot(), Tail: sh.tail()})
		}
	}
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-exited:
			break wait
		case <-tick.C:
			report()
		}
	}
	// Whatever the shell left in its group, or started under setsid,
	// goes with it.
	_ = syscall.Kill(-sh.pgid, syscall.SIGKILL)
	proctree.Kill(sh.mark)
	pipe := time.NewTimer(pipeGrace)
	select {
	case <-copied:
		pipe.Stop()
	case <-pipe.C:
		_ = r.Close()
		<-copied
	}
	_ = r.Close()
	note := ""
	if after != nil {
		note = after()
	}
	sh.mu.Lock()
	sh.exited, sh.ended, sh.note = true, time.Now(), note
	var exitErr *exec.ExitError
	if errors.As(waitErr, &exitErr) {
		sh.code = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sh.sig = ws.Signal()
		}
	} else if waitErr != nil {
		sh.code = -1
		sh.note = strings.TrimSpace(sh.note + " " + waitErr.Error())
	}
	sh.signalLocked()
	sh.mu.Unlock()
	close(sh.done)
	s.notify(ShellEvent{Kind: ShellExited, Info: sh.snapshot(), Tail: sh.tail()})
}

// signalLocked wakes whoever waits for news of the shell.
func (sh *bgShell) signalLocked() {
	close(sh.change)
	sh.change = make(chan struct{})
}

func (sh *bgShell) snapshot() ShellInfo {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	i := sh.info
	i.Running = !sh.exited
	i.ExitCode, i.Signal, i.Killed, i.Note = sh.code, sh.sig, sh.killed, sh.note
	end := sh.ended
	if end.IsZero() {
		end = time.Now()
	}
	i.Elapsed = end.Sub(i.Started)
	i.Bytes, i.Kept = sh.out.total, sh.out.len()
	return i
}

// tail is the shell's last lines of output, each cut to shellLineMemory.
func (sh *bgShell) tail() []string {
	sh.mu.Lock()
	last := sh.out.last(shellTailLines * shellLineMemory)
	sh.mu.Unlock()
	last = bytes.TrimRight(last, "\n")
	lines := strings.Split(string(last), "\n")
	if len(lines) > shellTailLines {
		lines = lines[len(lines)-shellTailLines:]
	}
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimRight(l, "\r")
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:] // a progress bar redrawn in place: its last state
		}
		if len(l) > shellLineMemory {
			l = l[:shellLineMemory]
		}
		out = append(out, l)
	}
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}

// lookup finds a shell the agent owner may reach: its own, or any when
// owner is the main agent ("main").
func (s *Shells) lookup(id, owner string) (*bgShell, error) {
	s.mu.Lock()
	sh, ok := s.shells[strings.TrimSpace(id)]
	var ids []string
	if !ok {
		for k, v := range s.shells {
			if owner == mainAgent || v.info.Owner == owner {
				ids = append(ids, k)
			}
		}
	}
	s.mu.Unlock()
	if !ok {
		sort.Strings(ids)
		known := "none"
		if len(ids) > 0 {
			known = strings.Join(ids, ", ")
		}
		return nil, fmt.Errorf("no background shell %q (this agent's shells: %s)", id, known)
	}
	if owner != mainAgent && owner != "" && sh.info.Owner != owner {
		return nil, fmt.Errorf("background shell %q belongs to another agent", id)
	}
	return sh, nil
}

// mainAgent is the AgentID of the main agent (agent.MainAgentID, which
// tools cannot import): it may reach every shell of the session.
const mainAgent = "main"

// Info returns a shell's state.
func (s *Shells) Info(id string) (ShellInfo, bool) {
	sh, err := s.lookup(id, mainAgent)
	if err != nil {
		return ShellInfo{}, false
	}
	return sh.snapshot(), true
}

// Output returns all the output a shell's ring keeps (for the user's
// full view, not the model's read offset) and how many bytes before it
// were cut.
func (s *Shells) Output(id string) (out string, cut int64, ok bool) {
	sh, err := s.lookup(id, mainAgent)
	if err != nil {
		return "", 0, false
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	kept := sh.out.last(sh.out.len())
	return string(kept), sh.out.total - int64(len(kept)), true
}

// Kill stops a running shell and everything in its process group:
// SIGTERM, then SIGKILL after a short grace. It reports whether the shell
// was running; it returns before the shell is gone (its exit is reported).
func (s *Shells) Kill(id string) bool {
	sh, err := s.lookup(id, mainAgent)
	if err != nil {
		return false
	}
	return s.kill(sh)
}

func (s *Shells) kill(sh *bgShell) bool {
	sh.mu.Lock()
	if sh.exited {
		sh.mu.Unlock()
		return false
	}
	sh.killed = true
	sh.mu.Unlock()
	_ = syscall.Kill(-sh.pgid, syscall.SIGTERM)
	go func() {
		t := time.NewTimer(shellKillGrace)
		defer t.Stop()
		select {
		case <-sh.done:
		case <-t.C:
			_ = syscall.Kill(-sh.pgid, syscall.SIGKILL)
		}
	}()
	return true
}

// KillOwnedBy stops the running shells agent owner started (a child that
// ended can no longer read them).
func (s *Shells) KillOwnedBy(owner string) {
	if s == nil {
		return
	}
	for _, sh := range s.list() {
		if sh.info.Owner == owner {
			s.kill(sh)
		}
	}
}

func (s *Shells) list() []*bgShell {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*bgShell, 0, len(s.shells))
	for _, sh := range s.shells {
		out = append(out, sh)
	}
	return out
}

// Running returns the IDs of the shells running now, sorted.
func (s *Shells) Running() []string {
	var ids []string
	for _, sh := range s.list() {
		if sh.snapshot().Running {
			ids = append(ids, sh.info.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// Close stops every shell and waits until each has exited and been
// reported; no shell starts after it.
func (s *Shells) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	for _, sh := range s.list() {
		s.kill(sh)
	}
	s.wg.Wait()
}

// read returns the output since the model's last read, at most
// bashOutputCap bytes of it (head and tail), and moves the read offset to
// the end. cut counts what the ring lost before it could be read.
func (sh *bgShell) readNew() (text string, cut int64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	from := sh.read
	oldest := sh.out.total - int64(sh.out.len())
	if from < oldest {
		cut = oldest - from
		from = oldest
	}
	data := sh.out.last(int(sh.out.total - from))
	sh.read = sh.out.total
	ht := newHeadTail(bashOutputCap / 2)
	_, _ = ht.Write(data)
	return ht.String(), cut
}
