package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"covey/internal/procmark"
	"covey/internal/proctree"
	"covey/permission"
	"covey/permission/shell"
	"covey/tools/tool"
	"covey/tools/toolname"
)

const (
	defaultBashTimeout = 120 * time.Second
	maxBashTimeout     = 600 * time.Second
	// bashOutputCap is how much output the model sees: the head and the tail,
	// each half of it, since errors tend to be at the end and context at the
	// start.
	bashOutputCap = 30 << 10
	// killGrace is how long a timed-out command gets to exit after SIGTERM
	// before its process group is killed outright.
	killGrace = 2 * time.Second
	// pipeGrace bounds the wait for output after the process group is gone:
	// a process that left the group (setsid) may hold the pipe for ever.
	pipeGrace = 500 * time.Millisecond
	// cancelGrace is the SIGTERM → SIGKILL wait when the user cancels.
	cancelGrace = 200 * time.Millisecond
)

// bashTool is bash.
type bashTool struct {
	env   *Env
	grace time.Duration // SIGTERM → SIGKILL; killGrace but in tests
}

// NewBash returns the bash tool, running commands in env's workspace root.
func NewBash(env *Env) tool.Tool { return &bashTool{env: env, grace: killGrace} }

func (t *bashTool) Name() string   { return toolname.Bash }
func (t *bashTool) ReadOnly() bool { return false }

func (t *bashTool) Description() string {
	return "Run a command with bash -c in the workspace root; returns stdout and stderr together (head and tail of long output) and the exit code. " +
		"No stdin; background processes are killed when it ends. Prefer read_file, grep and glob to cat, grep and find. " +
		"run_in_background keeps it running (a server, a watcher): bash_output reads it, kill_shell stops it."
}

func (t *bashTool) Schema() map[string]any { return bashSchema() }

var bashSchema = tool.ArgsSchema[bashArgs](tool.SchemaClosed)

// bashArgs are bash's arguments.
type bashArgs struct {
	Command    string   `json:"command" jsonschema:"Run with bash -c."`
	TimeoutS   *float64 `json:"timeout_s,omitempty" jsonschema:"Default 120, max 600."`
	Background flexBool `json:"run_in_background,omitempty" jsonschema:"Return at once with the shell's id (no timeout)."`
}

func (t *bashTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	var a bashArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("bash: invalid arguments: %v", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return tool.Errorf("bash: command is required")
	}
	if t.env == nil || t.env.WS == nil {
		return tool.Errorf("bash: no workspace configured")
	}
	timeout, note := defaultBashTimeout, ""
	if a.TimeoutS != nil {
		switch s := *a.TimeoutS; {
		case s <= 0:
			return tool.Errorf("bash: timeout_s must be positive, got %v", s)
		case s > maxBashTimeout.Seconds():
			timeout = maxBashTimeout
			note = fmt.Sprintf("(timeout_s %v clamped to the maximum of %d)\n", s, int(maxBashTimeout.Seconds()))
		default:
			timeout = time.Duration(s * float64(time.Second))
		}
	}
	dir := t.env.WS.Root
	if err := ctx.Err(); err != nil {
		return tool.Errorf("bash: not run: %v", err)
	}
	if err := t.checkRedirects(a.Command); err != nil {
		return tool.Errorf("bash: the command was not run: %v", err)
	}
	if g := t.env.Gate; g != nil {
		v := g.Check(ctx, permission.Request{Tool: toolname.Bash, Command: a.Command, Dir: dir})
		if !v.Allowed {
			reason := v.Reason
			if reason == "" {
				reason = "no reason given"
			}
			return tool.Errorf("bash: the command was not allowed: %s", reason)
		}
	}
	if a.Background {
		return t.background(ctx, a.Command, dir)
	}
	settings := t.env.WS.Settings().Before(t.env.WS.Root)
	run, err := t.run(ctx, a.Command, dir, timeout)
	// A command may create or delete any file: the next glob, grep or
	// list_dir must see the workspace as it is now.
	t.env.WS.Invalidate()
	restored, rerr := t.env.WS.Settings().After(t.env.WS.Root, settings)
	if err != nil {
		return tool.Errorf("bash: %v", err)
	}
	if run.exitCode == sandboxHelperFailed && strings.Contains(run.output, "covey sandbox:") {
		return tool.Errorf("bash: covey's sandbox could not start, so the command did not run: %s", strings.TrimSpace(run.output))
	}
	res := run.result(note, timeout)
	switch {
	case rerr != nil:
		res.Content += fmt.Sprintf("\n[the command changed covey's own settings and covey could not put them back: %v]", rerr)
		res.IsError = true
	case len(restored) > 0:
		res.Content += fmt.Sprintf("\n[the command changed %s, covey's own settings, and covey put it back: commands may not change what "+
			"the next session trusts; edit it with write_file or edit_file, which ask]", strings.Join(restored, ", "))
	}
	if t.env.Sandbox.Backend() != "" && sandboxBlocked(run.output) {
		res.Content += "\n[read-only file system: writes outside the workspace are blocked by covey's sandbox; see --sandbox. " +
			t.env.Sandbox.Describe(t.env.WS.Root) + "]"
	}
	return res
}

// background starts command as a background shell, after the same checks
// and gate as any command, and returns its id at once.
func (t *bashTool) background(ctx context.Context, command, dir string) tool.Result {
	if t.env.Shells == nil {
		return tool.Errorf("bash: run_in_background is not available to this agent; run the command without it")
	}
	settings := t.env.WS.Settings().Before(t.env.WS.Root)
	// Killed with covey should covey die without cleaning up (start ties
	// it; Close stops every shell on a normal exit).
	cmd, r, mark, err := t.start(command, dir, &syscall.SysProcAttr{Setsid: true})
	if err != nil {
		return tool.Errorf("bash: %v", err)
	}
	ws := t.env.WS
	after := func() string {
		ws.Invalidate()
		restored, err := ws.Settings().After(ws.Root, settings)
		switch {
		case err != nil:
			return fmt.Sprintf("[the command changed covey's own settings and covey could not put them back: %v]", err)
		case len(restored) > 0:
			return fmt.Sprintf("[the command changed %s, covey's own settings, and covey put it back]", strings.Join(restored, ", "))
		}
		return ""
	}
	info, err := t.env.Shells.start(cmd, r, mark, command, t.env.Agent, t.env.AgentDepth, tool.CallID(ctx), after)
	if err != nil {
		return tool.Errorf("bash: the background shell did not start: %v", err)
	}
	return tool.Result{
		Content: fmt.Sprintf("Started background shell %s (pid %d). Read its output with bash_output {\"id\": %q}; "+
			"stop it with kill_shell {\"id\": %q}. It is stopped when covey exits.", info.ID, cmd.Process.Pid, info.ID, info.ID),
		Summary: "background " + info.ID,
	}
}

// checkRedirects refuses a command whose redirections write outside the
// agent's allowed paths (an agent file's allowed_paths), as write_file
// would: a target known only when the line runs, or relative after a cd,
// cannot be checked and is refused. The files tee, cp, mv, ln, dd, sort
// -o, git --output and find -fprint write count as redirections; other
// programs that write files by their own arguments are not seen here, and
// the OS sandbox bounds those to the workspace.
func (t *bashTool) checkRedirects(command string) error {
	if len(t.env.AllowedPaths) == 0 {
		return nil
	}
	l := shell.Analyse(command)
	if l.Err != nil {
		return fmt.Errorf("covey cannot tell where it writes (%w), and this agent may write only %s", l.Err, strings.Join(t.env.AllowedPaths, ", "))
	}
	moves := slices.ContainsFunc(l.Cmds, func(c shell.Cmd) bool { return c.Name == "cd" || c.Name == "pushd" || c.Name == "popd" })
	for _, w := range l.Writes {
		target := w.Target
		if w.Dynamic || (moves && !filepath.IsAbs(target) && !strings.HasPrefix(target, "~")) {
			return fmt.Errorf("its redirection to %s goes where covey cannot tell before it runs, and this agent may write only %s",
				target, strings.Join(t.env.AllowedPaths, ", "))
		}
		real, err := t.env.WS.ResolveWrite(target)
		if err != nil {
			return fmt.Errorf("its redirection writes %w", err)
		}
		if err := permission.CheckAllowedPaths(t.env.AllowedPaths, t.env.WS.Rel(real)); err != nil {
			return fmt.Errorf("its redirection writes %s: %w", target, err)
		}
	}
	return nil
}

// allowedRoots are the folders an agent with allowed_paths may write, for
// the sandbox: the fixed leading folder of each glob (docs/** is docs;
// src/a.go is src). Nil, the whole workspace, when a glob starts with a
// wildcard or there are no allowed paths. A folder that does not exist yet
// is made, so the agent can write into it.
func (t *bashTool) allowedRoots() []string {
	if len(t.env.AllowedPaths) == 0 || t.env.Sandbox.Backend() == "" {
		return nil
	}
	var roots []string
	for _, pat := range t.env.AllowedPaths {
		pat = strings.TrimSuffix(strings.TrimPrefix(pat, "./"), "/")
		base, _ := doublestar.SplitPattern(pat)
		if !strings.ContainsAny(pat, "*?[{") {
			// A literal path: a folder is a root itself; for a file, its
			// folder is (a file cannot be one). Not there yet: a name with
			// an extension is taken for a file.
			base = pat
			info, err := os.Stat(filepath.Join(t.env.WS.Root, filepath.FromSlash(pat)))
			if (err == nil && !info.IsDir()) || (err != nil && strings.Contains(path.Base(pat), ".")) {
				base = path.Dir(pat)
			}
		}
		if base == "." || base == "" || base == "/" || strings.HasPrefix(base, "..") {
			return nil
		}
		dir := filepath.Join(t.env.WS.Root, filepath.FromSlash(base))
		if !t.env.WS.Contains(dir) {
			return nil
		}
		_ = os.MkdirAll(dir, 0o755)
		roots = append(roots, dir)
	}
	return roots
}

// sandboxHelperFailed is the exit status of covey's sandbox helper when it
// could not confine itself (and ran nothing).
const sandboxHelperFailed = 125

// sandboxBlocked reports whether output shows a write the sandbox may
// have stopped: Landlock refuses with EACCES, bubblewrap's read-only
// binds with EROFS.
func sandboxBlocked(output string) bool {
	return strings.Contains(output, "Read-only file system") || strings.Contains(output, "Permission denied") ||
		strings.Contains(output, "Operation not permitted")
}

// bashRun is the outcome of one command.
type bashRun struct {
	output    string
	exitCode  int
	signal    syscall.Signal // non-zero when a signal ended the shell
	timedOut  bool
	cancelled error // ctx's error when the caller gave up
}

// run starts command in its own process group and waits for it, the timeout
// or ctx, whichever ends first; then it kills whatever is left of the group.
func (t *bashTool) run(ctx context.Context, command, dir string, timeout time.Duration) (*bashRun, error) {
	cmd, r, mark, err := t.start(command, dir, &syscall.SysProcAttr{Setsid: true})
	if err != nil {
		return nil, err
	}
	pgid := cmd.Process.Pid

	out := newHeadTail(tool.ResultBudget(ctx, bashOutputCap) / 2)
	var sink io.Writer = out
	live := watchOutput(ctx) // the latest lines, shown while it runs
	if live != nil {
		sink = io.MultiWriter(out, live)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(sink, r)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := &bashRun{}
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-tctx.Done():
		res.timedOut = ctx.Err() == nil
		res.cancelled = ctx.Err()
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		// A user's cancel must stop everything within half a second; a
		// timeout can afford the command a longer chance to clean up.
		wait := t.grace
		if res.cancelled != nil {
			wait = min(wait, cancelGrace)
		}
		grace := time.NewTimer(wait)
		select {
		case waitErr = <-exited:
			grace.Stop()
		case <-grace.C:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			waitErr = <-exited
		}
	}
	// Whatever the shell left behind (background jobs, a pipeline's other
	// half, a setsid grandchild) goes with it; a command never outlives
	// its call.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	proctree.Kill(mark)
	pipe := time.NewTimer(pipeGrace)
	select {
	case <-copied:
		pipe.Stop()
	case <-pipe.C:
		_ = r.Close() // unblocks the copy; pipes from os.Pipe are pollable
		<-copied
	}
	_ = r.Close()
	live.stop()
	res.output = out.String()

	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		res.exitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = ws.Signal()
		}
	default:
		return nil, fmt.Errorf("wait for the shell: %w", waitErr)
	}
	return res, nil
}

// start starts command with bash -c (sh without bash) in dir, through the
// sandbox, in a session and process group of its own whose id is the
// returned command's pid (attr must ask for Setsid), with stdout and
// stderr on the one returned pipe. Everything it starts carries the
// returned mark (proctree), which finds what escapes the process group
// (setsid, daemons) so it ends with the command too, and is tied to
// covey's life (procmark.Tie: the shell dies with covey, and the next
// covey stops what it left running).
func (t *bashTool) start(command, dir string, attr *syscall.SysProcAttr) (cmd *exec.Cmd, out *os.File, mark string, err error) {
	shell, err := exec.LookPath("bash")
	if err != nil {
		if shell, err = exec.LookPath("sh"); err != nil {
			return nil, nil, "", fmt.Errorf("neither bash nor sh found: %w", err)
		}
	}
	// One pipe for stdout and stderr keeps their interleaving. We own it
	// (rather than giving exec an io.Writer) so that Wait returns when the
	// shell exits, not when the last grandchild closes its copy.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, "", fmt.Errorf("create output pipe: %w", err)
	}
	prog, args, err := t.env.Sandbox.CommandWithin(t.env.WS.Root, t.allowedRoots(), dir, []string{shell, "-c", command})
	if err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, nil, "", err
	}
	cmd = exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = w, w // Stdin nil reads from /dev/null
	mark = proctree.NewMark()
	cmd.Env = append(t.env.Sandbox.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", proctree.EnvEntry(mark))
	// A session of its own (and so a process group whose id is its pid):
	// without a controlling terminal a command cannot open /dev/tty to
	// draw over the TUI, read the user's keys or push keystrokes into
	// the terminal's input (TIOCSTI) for the shell covey returns to.
	cmd.SysProcAttr = attr
	procmark.Tie(cmd)
	if err := cmd.Start(); err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, nil, "", fmt.Errorf("start %s: %w", shell, err)
	}
	_ = w.Close()
	return cmd, r, mark, nil
}

// result words the run for the model.
func (b *bashRun) result(note string, timeout time.Duration) tool.Result {
	var sb strings.Builder
	sb.WriteString(note)
	if b.output == "" {
		sb.WriteString("(no output)\n")
	} else {
		sb.WriteString(b.output)
		if !strings.HasSuffix(b.output, "\n") {
			sb.WriteByte('\n')
		}
	}
	switch {
	case b.cancelled != nil:
		fmt.Fprintf(&sb, "[cancelled (%v); the command and its child processes were killed]", b.cancelled)
		return tool.Result{Content: sb.String(), IsError: true, Summary: "cancelled"}
	case b.timedOut:
		fmt.Fprintf(&sb, "[timed out after %v; the command and its child processes were killed]", timeout)
		return tool.Result{Content: sb.String(), IsError: true, Summary: fmt.Sprintf("timed out after %v", timeout)}
	case b.signal != 0:
		fmt.Fprintf(&sb, "[killed by signal %d (%v)]", int(b.signal), b.signal)
		return tool.Result{Content: sb.String(), Summary: fmt.Sprintf("killed by signal %d", int(b.signal))}
	}
	// A failing command is information, not a tool failure: tests that fail
	// are what the model ran them to find out.
	fmt.Fprintf(&sb, "[exit code %d]", b.exitCode)
	return tool.Result{Content: sb.String(), Summary: tool.ExitSummary(b.exitCode)}
}

// headTail keeps the first and last n bytes written to it and counts the
// rest, so a command that prints gigabytes costs 2n bytes of memory.
type headTail struct {
	n     int
	head  []byte
	tail  []byte // ring buffer once full
	start int    // oldest byte of tail
	total int64
}

func newHeadTail(n int) *headTail { return &headTail{n: n} }

// Write never fails.
func (h *headTail) Write(p []byte) (int, error) {
	h.total += int64(len(p))
	written := len(p)
	if room := h.n - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= h.n {
		h.tail = append(h.tail[:0], p[len(p)-h.n:]...)
		h.start = 0
		return written, nil
	}
	for len(p) > 0 {
		if len(h.tail) < h.n {
			k := min(h.n-len(h.tail), len(p))
			h.tail = append(h.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(h.tail[h.start:], p)
		p = p[k:]
		h.start = (h.start + k) % h.n
	}
	return written, nil
}

// String returns the head, a note of how much was cut, and the tail. The cut
// edges are moved off partial UTF-8 sequences.
func (h *headTail) String() string {
	tail := append(append([]byte(nil), h.tail[h.start:]...), h.tail[:h.start]...)
	cut := h.total - int64(len(h.head)) - int64(len(tail))
	if cut == 0 {
		return string(h.head) + string(tail)
	}
	head := trimPartialRuneEnd(h.head)
	tail = trimPartialRuneStart(tail)
	cut = h.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n… %d bytes cut (send the output to a file and grep or read_file it to see them) …\n%s", head, cut, tail)
}

// trimPartialRuneEnd drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRuneEnd(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return b
		}
		if c >= 0xC0 { // a lead byte: complete only if its sequence fits
			need := 2
			if c >= 0xE0 {
				need = 3
			}
			if c >= 0xF0 {
				need = 4
			}
			if need > i {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// trimPartialRuneStart drops continuation bytes at the start of b.
func trimPartialRuneStart(b []byte) []byte {
	k := 0
	for k < 3 && k < len(b) && b[k]&0xC0 == 0x80 {
		k++
	}
	return b[k:]
}
