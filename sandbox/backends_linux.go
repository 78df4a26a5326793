package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// backends are tried in order.
func backends() []backend { return []backend{landlockBackend{}, &bwrapBackend{}} }

// landlockBackend re-executes covey as the helper, which confines itself
// with Landlock and executes the command.
type landlockBackend struct{}

func (landlockBackend) name() string { return "landlock" }

func (landlockBackend) probe() error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return fmt.Errorf("Landlock is not available: %w", err)
	}
	if abi < 1 {
		return errors.New("Landlock is not available")
	}
	if _, err := os.Executable(); err != nil {
		return fmt.Errorf("cannot find covey's own program to run the helper: %w", err)
	}
	return nil
}

func (landlockBackend) probeNetwork() error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 4 {
		return fmt.Errorf("Landlock ABI %d cannot cut off the network (needs 4, Linux 6.7)", abi)
	}
	return nil
}

func (landlockBackend) wrap(spec Spec, _ string, argv []string) (string, []string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: find covey's program: %w", err)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: %w", err)
	}
	return self, append([]string{HelperArg, string(b), "--"}, argv...), nil
}

// bwrapBackend runs the command under bubblewrap with the root file
// system bound read-only and the writable paths bound over it.
type bwrapBackend struct {
	once sync.Once
	path string
	err  error
}

func (*bwrapBackend) name() string { return "bubblewrap" }

func (b *bwrapBackend) probe() error {
	b.once.Do(func() {
		b.path, b.err = exec.LookPath("bwrap")
		if b.err != nil {
			b.err = errors.New("bwrap is not installed (apt install bubblewrap)")
			return
		}
		// User namespaces may be switched off: try once.
		out, err := exec.Command(b.path, "--ro-bind", "/", "/", "--dev", "/dev", "--", "true").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("bwrap cannot run here: %w %s", err, out)
		}
	})
	return b.err
}

func (b *bwrapBackend) wrap(spec Spec, dir string, argv []string) (string, []string, error) {
	args := []string{"--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc", "--die-with-parent"}
	for _, w := range spec.Writable {
		args = append(args, "--bind-try", w, w)
	}
	for _, r := range spec.ReadOnly {
		args = append(args, "--ro-bind-try", r, r)
	}
	if !spec.Network {
		args = append(args, "--unshare-net")
	}
	if dir != "" {
		args = append(args, "--chdir", dir)
	}
	return b.path, append(append(args, "--"), argv...), nil
}

// DefaultMode is the sandbox mode when the config and flags name none:
// on Linux, commands run confined to the workspace.
func DefaultMode() Mode { return ModeWorkspaceWrite }
