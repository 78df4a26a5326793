package procmark

import (
	"os"
	"sync"
	"time"
)

// SelfEnv is OwnerVar=Owner of this process.
var SelfEnv = sync.OnceValue(func() string { return OwnerEnv(os.Getpid()) })

// Reap stops the tool processes a covey that died left running: those
// whose OwnerVar names a process that no longer runs (or a pid since given
// to another process). A process is touched only when its mark proves it
// was started for a covey that is gone; processes of a covey still
// running, and everything without the mark, are left alone. It returns
// how many it stopped.
func Reap() (int, error) {
	pids := Match(func(env []byte) bool {
		owner := Value(env, OwnerVar)
		return owner != "" && !Alive(owner)
	})
	if len(pids) == 0 {
		return 0, nil
	}
	return len(pids), Stop(pids, 5*time.Second)
}
