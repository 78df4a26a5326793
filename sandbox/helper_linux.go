package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// helperFailed is the exit status of a helper that could not confine
// itself; the command did not run.
const helperFailed = 125

// RunHelper is the sandbox helper: args are a JSON Spec, "--" and the
// command. It confines the process with Landlock and executes the
// command in its place; it never returns. If it cannot confine itself it
// exits with status 125 and a message, and runs nothing.
func RunHelper(args []string) {
	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "covey sandbox: "+format+"; the command did not run\n", a...)
		os.Exit(helperFailed)
	}
	if len(args) < 3 || args[1] != "--" {
		fail("usage: covey %s SPEC -- COMMAND", HelperArg)
	}
	var spec Spec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		fail("bad spec: %v", err)
	}
	if err := confine(spec); err != nil {
		fail("%v", err)
	}
	argv := args[2:]
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		fail("%v", err)
	}
	err = syscall.Exec(prog, argv, os.Environ())
	fail("exec %s: %v", prog, err)
}

// confine applies spec to this process and its future children.
func confine(spec Spec) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("Landlock is not available (ABI %d): %w", abi, err)
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom").IgnoreIfMissing(),
		landlock.RWFiles("/dev/tty", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing(),
	}
	if len(spec.Writable) > 0 {
		rules = append(rules, landlock.RWDirs(spec.Writable...).WithRefer().IgnoreIfMissing())
	}
	if err := landlock.V11.BestEffort().RestrictPaths(rules...); err != nil {
		return fmt.Errorf("restrict the file system: %w", err)
	}
	if !spec.Network {
		if abi < 4 {
			return fmt.Errorf("this kernel's Landlock (ABI %d) cannot cut off the network (needs ABI 4)", abi)
		}
		if err := landlock.V11.BestEffort().RestrictNet(); err != nil {
			return fmt.Errorf("restrict the network: %w", err)
		}
	}
	if abi >= 6 {
		// Signals and abstract sockets stay inside the sandbox: a
		// command cannot signal covey or other programs of the user.
		if err := landlock.V11.BestEffort().RestrictScoped(); err != nil {
			return fmt.Errorf("restrict signals: %w", err)
		}
	}
	return nil
}
