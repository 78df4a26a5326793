package hooks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// OutputCap bounds what is kept of a hook's stdout and of its stderr; the
// rest is read and dropped, so a chatty hook never blocks on a full pipe.
const OutputCap = 64 << 10

// waitDelay is how long covey waits for a killed hook's pipes to close (a
// grandchild that left its group may hold them).
const waitDelay = 2 * time.Second

// run is the outcome of one hook process.
type run struct {
	hook     Hook
	exit     int // -1 when it did not exit by itself
	stdout   string
	stderr   string
	timedOut bool
	err      error // it could not start, or was killed
	elapsed  time.Duration
}

// capped keeps the first OutputCap bytes written to it.
type capped struct {
	buf       bytes.Buffer
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := OutputCap - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
			c.truncated = true
		} else {
			c.buf.Write(p)
		}
	} else if len(p) > 0 {
		c.truncated = true
	}
	return len(p), nil
}

func (c *capped) String() string {
	if c.truncated {
		return c.buf.String() + "\n[output truncated]"
	}
	return c.buf.String()
}

// Environ is covey's environment for a command it runs by itself (a hook,
// a status line, an MCP server): os.Environ() without the variables named
// in scrub (covey's own API keys, as bash gets it: see sandbox.Environ),
// then extra.
func Environ(scrub []string, extra ...string) []string {
	env := os.Environ()
	out := make([]string, 0, len(env)+len(extra))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(scrub, name) {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// execHook runs one hook with input on stdin, in dir, in its own process
// group (killed whole at its timeout or when ctx ends), with env as its
// whole environment.
func execHook(ctx context.Context, h Hook, input []byte, dir string, env []string) run {
	start := time.Now()
	tctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "/bin/sh", "-c", h.Command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own group, killed whole; and killed if covey dies first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		// The whole group: a hook's own children go with it.
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	r := run{hook: h, exit: -1, stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		r.exit = cmd.ProcessState.ExitCode()
	}
	// Whatever it left running in its group goes too.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	switch {
	case errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		r.timedOut, r.exit = true, -1
		r.err = errors.New("timed out after " + h.Timeout.String())
	case ctx.Err() != nil && r.exit < 0:
		r.err = ctx.Err()
	case err != nil && r.exit < 0:
		r.err = err
	}
	return r
}

// RunCommand runs a command covey runs by itself that is no hook (the
// status line) the way a hook runs: /bin/sh -c in dir with input on
// stdin, in its own process group killed whole at timeout or when ctx
// ends, each output kept to OutputCap, with env as its whole environment
// (see Environ). exit is -1 when it did not exit by itself; err says why
// it did not run to its end.
func RunCommand(ctx context.Context, command string, input []byte, dir string, env []string, timeout time.Duration) (stdout string, exit int, err error) {
	r := execHook(ctx, Hook{Command: command, Timeout: timeout}, input, dir, env)
	return r.stdout, r.exit, r.err
}

// ChangedScript names the first workspace script h runs (see Pin) whose
// content changed since it was pinned, "" when none did: for commands
// covey runs by itself beside the hooks (the status line).
func ChangedScript(h Hook, dir string) string { return changedScript(h, dir) }
