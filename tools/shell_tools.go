package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"covey/tools/tool"
	"covey/tools/toolname"
)

// ShellTools returns bash_output and kill_shell bound to env: an agent
// offered bash with background shells gets them too. Nil when env has no
// shells.
func ShellTools(env *Env) []tool.Tool {
	if env == nil || env.Shells == nil {
		return nil
	}
	return []tool.Tool{&bashOutputTool{env: env}, &killShellTool{env: env}}
}

// bashOutputTool is bash_output: a background shell's new output.
type bashOutputTool struct{ env *Env }

func (t *bashOutputTool) Name() string { return toolname.BashOutput }

// ReadOnly is true: reading a shell's output changes nothing.
func (t *bashOutputTool) ReadOnly() bool { return true }

func (t *bashOutputTool) Description() string {
	return "Read what a background shell printed since your last read, and whether it still runs or how it exited."
}

func (t *bashOutputTool) Schema() map[string]any { return bashOutputSchema() }

var bashOutputSchema = tool.ArgsSchema[bashOutputArgs](tool.SchemaClosed)

// bashOutputArgs are bash_output's arguments.
type bashOutputArgs struct {
	ID    string  `json:"id" jsonschema:"e.g. shell-1"`
	WaitS float64 `json:"wait_s,omitempty" jsonschema:"Wait up to this long for it to exit (max 600)."`
}

func (t *bashOutputTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	var a bashOutputArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("bash_output: invalid arguments: %v", err)
	}
	if a.WaitS < 0 {
		return tool.Errorf("bash_output: wait_s must not be negative, got %v", a.WaitS)
	}
	sh, err := t.env.Shells.lookup(a.ID, t.env.Agent)
	if err != nil {
		return tool.Errorf("bash_output: %v", err)
	}
	if a.WaitS > 0 {
		wait := min(time.Duration(a.WaitS*float64(time.Second)), maxShellWait)
		timer := time.NewTimer(wait)
		select {
		case <-sh.done:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	text, cut := sh.readNew()
	info := sh.snapshot()
	var b strings.Builder
	if cut > 0 {
		fmt.Fprintf(&b, "[… %d bytes printed since your last read were cut: covey keeps the last %d bytes of a shell's output]\n", cut, t.env.Shells.keep)
	}
	if text == "" {
		b.WriteString("(no new output)\n")
	} else {
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	switch {
	case info.Running:
		fmt.Fprintf(&b, "[%s is still running (%s)]", info.ID, elapsedWords(info.Elapsed))
	case info.Killed:
		fmt.Fprintf(&b, "[%s was killed]", info.ID)
	case info.Signal != 0:
		fmt.Fprintf(&b, "[%s was killed by signal %d (%v)]", info.ID, int(info.Signal), info.Signal)
	default:
		fmt.Fprintf(&b, "[%s exited with code %d]", info.ID, info.ExitCode)
	}
	if info.Note != "" {
		b.WriteString("\n" + info.Note)
	}
	return tool.Result{Content: b.String(), Summary: info.Status()}
}

// killShellTool is kill_shell: stop a background shell.
type killShellTool struct{ env *Env }

func (t *killShellTool) Name() string { return toolname.KillShell }

// ReadOnly is false: it stops a process the agent started.
func (t *killShellTool) ReadOnly() bool { return false }

func (t *killShellTool) Description() string {
	return "Stop a background shell and every process it started; its output stays readable."
}

func (t *killShellTool) Schema() map[string]any { return killShellSchema() }

var killShellSchema = tool.ArgsSchema[killShellArgs](tool.SchemaClosed)

// killShellArgs are kill_shell's arguments.
type killShellArgs struct {
	ID string `json:"id" jsonschema:"e.g. shell-1"`
}

func (t *killShellTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	var a killShellArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("kill_shell: invalid arguments: %v", err)
	}
	sh, err := t.env.Shells.lookup(a.ID, t.env.Agent)
	if err != nil {
		return tool.Errorf("kill_shell: %v", err)
	}
	if !t.env.Shells.kill(sh) {
		return tool.Result{Content: fmt.Sprintf("%s had already ended (%s).", sh.info.ID, sh.snapshot().Status()), Summary: "already ended"}
	}
	// Wait for it to be gone, so the answer is the truth.
	timer := time.NewTimer(shellKillGrace + pipeGrace + time.Second)
	defer timer.Stop()
	select {
	case <-sh.done:
	case <-timer.C:
		return tool.Result{Content: fmt.Sprintf("%s was sent SIGTERM and SIGKILL but has not exited yet.", sh.info.ID), IsError: true, Summary: "not gone yet"}
	case <-ctx.Done():
	}
	return tool.Result{Content: fmt.Sprintf("%s was killed.", sh.info.ID), Summary: "killed"}
}

// elapsedWords says a duration in whole seconds ("3s", "2m5s").
func elapsedWords(d time.Duration) string {
	return d.Round(time.Second).String()
}
