package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"covey/internal/gitsafe"
	"covey/internal/safefile"
)

// findGitDir returns the git directory of the repository holding dir, or ""
// outside any repository. A .git file (worktree, submodule) counts too.
func findGitDir(dir string) string {
	for {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p
			}
			return resolveGitFile(p, dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// resolveGitFile follows a "gitdir: <path>" file; when it cannot be read
// the .git file's own path still marks the repository.
func resolveGitFile(p, dir string) string {
	data, err := safefile.Read(p, 64<<10)
	if err != nil {
		return p
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return p
	}
	gd := strings.TrimSpace(line)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(dir, gd)
	}
	return gd
}

// indexModTime is the git index's modification time, the zero time when
// there is no repository or no index.
func indexModTime(gitDir string) time.Time {
	if gitDir == "" {
		return time.Time{}
	}
	fi, err := os.Stat(filepath.Join(gitDir, "index"))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// gitListFiles runs git ls-files in root: tracked files plus untracked ones
// that the ignore rules leave, relative to root, sorted and deduplicated (a
// file in conflict appears once per stage).
func gitListFiles(ctx context.Context, root string) ([]string, error) {
	out, err := runGit(ctx, root, nil, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	files := strings.Split(string(out), "\x00")
	if n := len(files); n > 0 && files[n-1] == "" {
		files = files[:n-1]
	}
	sort.Strings(files)
	return slices.Compact(files), nil
}

// gitIgnored asks git which of the paths (relative to root) its exclude
// rules ignore; tracked paths never count as ignored.
func gitIgnored(ctx context.Context, root string, paths []string) (map[string]bool, error) {
	in := strings.Join(paths, "\x00") + "\x00"
	out, err := runGit(ctx, root, strings.NewReader(in), "check-ignore", "-z", "--stdin")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return map[string]bool{}, nil // nothing is ignored
	}
	if err != nil {
		return nil, err
	}
	res := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			res[p] = true
		}
	}
	return res, nil
}

// runGit runs one git command in dir and returns its standard output. It
// runs in covey's own process, outside the sandbox, on a repository the
// model can write: the repository's core.fsmonitor (which git ls-files
// runs) and hooks are switched off, or a model confined by the sandbox
// could set one and have covey run it unconfined at the next grep.
func runGit(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append(append([]string{"-c", "core.quotePath=false"}, gitsafe.Options()...), args...)...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s in %s: %w", args[0], dir, ctx.Err())
		}
		return nil, fmt.Errorf("git %s in %s: %w: %s", args[0], dir, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
