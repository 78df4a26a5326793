//go:build !linux

package procmark

import "os/exec"

// Tie marks cmd as a tool process of this covey (OwnerVar). There is no
// parent-death signal here, and Reap cannot see the marks, so a process
// left behind by a killed covey is not stopped.
func Tie(cmd *exec.Cmd) {
	cmd.Env = append(cmd.Env, SelfEnv())
}
