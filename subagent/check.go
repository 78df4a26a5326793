package subagent

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"covey/internal/plural"
	"covey/internal/procmark"
	"covey/internal/proctree"
	"covey/permission"
	"covey/sandbox"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// Bounds of an attempt's check.
const (
	defaultCheckTimeout = 5 * time.Minute
	checkTail           = 2 << 10 // the output's end that is kept
)

// checkCommand is the check for g's attempts: the task's own, else the
// config's; "" for none.
func (m *Manager) checkCommand(g *attemptGroup) string {
	if c := strings.TrimSpace(g.spec.Check); c != "" {
		return c
	}
	return strings.TrimSpace(m.cfg.Check)
}

// checkAttempts runs the check in every attempt's worktree at once and
// reads the language servers' counts for each; it returns nil for an
// attempt with nothing to show. A check the model chose (the task's
// check) is a command like any bash call: the gate is asked once first.
func (m *Manager) checkAttempts(ctx context.Context, g *attemptGroup, views []*attemptView) []*tool.AttemptCheck {
	out := make([]*tool.AttemptCheck, len(views))
	cmd := m.checkCommand(g)
	refused := ""
	if cmd != "" && strings.TrimSpace(g.spec.Check) != "" && m.cfg.Gate != nil {
		v := m.cfg.Gate.Check(ctx, permission.Request{Tool: toolname.Bash, Command: cmd})
		if !v.Allowed {
			refused = "not run: " + strings.TrimSuffix(v.Reason, ".")
		}
	}
	timeout := m.cfg.CheckTimeout
	if timeout <= 0 {
		timeout = defaultCheckTimeout
	}
	var wg sync.WaitGroup
	for i, v := range views {
		if v.c.iso == nil || v.c.iso.wt == nil {
			continue
		}
		dir := v.c.iso.wt.Path()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var chk *tool.AttemptCheck
			switch {
			case cmd == "":
			case refused != "":
				chk = &tool.AttemptCheck{Command: cmd, Error: refused, ExitCode: -1}
			default:
				chk = runCheck(ctx, m.cfg.Sandbox, dir, cmd, timeout)
			}
			if m.cfg.LSP != nil && len(m.cfg.LSP.Status()) > 0 {
				if e, w := m.cfg.LSP.Counts(dir); e+w > 0 || m.cfg.LSP.Reported(dir) {
					if chk == nil {
						chk = &tool.AttemptCheck{}
					}
					chk.Diagnosed, chk.Errors, chk.Warnings = true, e, w
				}
			}
			out[i] = chk
		}()
	}
	wg.Wait()
	return out
}

// runCheck runs command with bash in dir through the sandbox (dir is the
// workspace it may write), in a process group of its own that is killed
// at the timeout, and keeps its output's end.
func runCheck(ctx context.Context, box *sandbox.Sandbox, dir, command string, timeout time.Duration) *tool.AttemptCheck {
	res := &tool.AttemptCheck{Command: command, ExitCode: -1}
	shell, err := exec.LookPath("bash")
	if err != nil {
		if shell, err = exec.LookPath("sh"); err != nil {
			res.Error = "neither bash nor sh found"
			return res
		}
	}
	prog, args, err := box.Command(dir, dir, []string{shell, "-c", command})
	if err != nil {
		res.Error = fmt.Sprintf("the sandbox cannot run it: %v", err)
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	tail := &tailWriter{max: checkTail}
	cmd.Stdout, cmd.Stderr = tail, tail
	mark := proctree.NewMark()
	cmd.Env = append(box.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", proctree.EnvEntry(mark))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	procmark.Tie(cmd)
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		res.Error = fmt.Sprintf("start: %v", err)
		return res
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
		res.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		if !res.TimedOut {
			res.Error = "cancelled"
		}
	}
	proctree.Kill(mark)
	res.Output = strings.TrimRight(tail.String(), "\n")
	var ee *exec.ExitError
	switch {
	case res.TimedOut:
		res.Output += fmt.Sprintf("\n[stopped after %s]", timeout)
	case err == nil:
		res.ExitCode, res.Passed = 0, res.Error == ""
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	default:
		res.Error = err.Error()
	}
	return res
}

// checkWords says a check's outcome in a few words: "passed", "failed
// (exit 1)", plus diagnostics.
func checkWords(c *tool.AttemptCheck) string {
	if c == nil {
		return ""
	}
	var parts []string
	switch {
	case c.Command == "":
	case c.Error != "":
		parts = append(parts, "check "+c.Error)
	case c.TimedOut:
		parts = append(parts, "check timed out")
	case c.Passed:
		parts = append(parts, "check passed")
	default:
		parts = append(parts, fmt.Sprintf("check failed (exit %d)", c.ExitCode))
	}
	if c.Diagnosed {
		parts = append(parts, plural.Count(c.Errors, "error")+", "+plural.Count(c.Warnings, "warning")+" from the language server")
	}
	return strings.Join(parts, ", ")
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		if i := strings.IndexByte(string(b), '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
