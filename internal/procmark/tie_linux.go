package procmark

import (
	"os/exec"
	"syscall"
)

// Tie marks cmd as a tool process of this covey (OwnerVar, inherited by
// everything it starts) and asks the kernel to kill it when covey dies
// (PR_SET_PDEATHSIG, kept across the sandbox helper's exec). What it
// started and left behind carries the mark, and Reap stops it at the next
// start. Call it after cmd.Env and cmd.SysProcAttr are set.
func Tie(cmd *exec.Cmd) {
	cmd.Env = append(cmd.Env, SelfEnv())
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
