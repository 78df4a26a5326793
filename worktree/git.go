package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"covey/internal/gitsafe"
)

// Errors callers branch on.
var (
	// ErrNoGit means git is not installed (not on PATH).
	ErrNoGit = errors.New("git is not installed (not found on PATH)")
	// ErrNotRepo means the workspace is not inside a git repository.
	ErrNotRepo = errors.New("not inside a git repository")
	// ErrNoCommit means the repository has no commit yet, so there is no
	// HEAD to start a worktree from.
	ErrNoCommit = errors.New("the repository has no commit yet, so there is no HEAD to start a worktree from")
)

// gitEnv is the environment of every git command: no prompts, no pager, no
// user-level hooks or config that would make output unpredictable, and
// none of the GIT_* variables of a calling hook that would redirect git to
// another repository or index.
func gitEnv(extra ...string) []string {
	env := make([]string, 0, len(os.Environ())+len(extra)+3)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "GIT_DIR", k == "GIT_WORK_TREE", k == "GIT_INDEX_FILE", k == "GIT_OBJECT_DIRECTORY",
			k == "GIT_ALTERNATE_OBJECT_DIRECTORIES", k == "GIT_COMMON_DIR", k == "GIT_PREFIX",
			k == "GIT_CONFIG_COUNT", strings.HasPrefix(k, "GIT_CONFIG_KEY_"), strings.HasPrefix(k, "GIT_CONFIG_VALUE_"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C",
		// covey's bookkeeping runs none of the user's hooks (a failing
		// post-checkout must not fail a worktree), signs none of its
		// commits (no passphrase prompt) and asks no fsmonitor daemon.
		"GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/dev/null",
		"GIT_CONFIG_KEY_1=commit.gpgSign", "GIT_CONFIG_VALUE_1=false",
		"GIT_CONFIG_KEY_2=core.fsmonitor", "GIT_CONFIG_VALUE_2=false")
	return append(env, extra...)
}

// git runs git in dir with args and returns its standard output. A failure
// carries git's own message.
func git(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	return gitInput(ctx, dir, env, nil, args...)
}

func gitInput(ctx context.Context, dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	if len(args) > 0 && args[0] != "config" {
		args = append(noFilters(ctx, dir), args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, ErrNoGit
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), &gitError{args: args, msg: msg, err: err}
	}
	return out.Bytes(), nil
}

// noFilters empties the filter drivers of the repository at dir: covey's
// git runs outside the sandbox, and the model can write .git/config and
// .gitattributes, so a filter it configured would run unconfined.
func noFilters(ctx context.Context, dir string) []string {
	return gitsafe.NoFilters(ctx, dir, gitEnv())
}

// gitError is a failed git command with git's message.
type gitError struct {
	args []string
	msg  string
	err  error
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), e.msg)
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode returns the exit code of a failed command, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func trim(b []byte) string { return strings.TrimSpace(string(b)) }
