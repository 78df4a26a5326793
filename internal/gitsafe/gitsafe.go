// Package gitsafe holds what covey's own git commands need to run safely.
// They run in covey's process, outside the sandbox, on repositories whose
// .git/config and .gitattributes the model's commands can write: anything
// there that makes git run a program (filter drivers, fsmonitor, hooks,
// external diffs) would run unconfined.
package gitsafe

import (
	"context"
	"os"
	"os/exec"
	"strings"
)

// Options are git options for every covey git command: no fsmonitor, no
// hooks, no external diff.
func Options() []string {
	return []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external="}
}

// NoFilters returns git options emptying every filter driver the config of
// the repository at dir names (an empty command runs nothing), for the
// commands that clean or smudge files (status, diff, add, checkout,
// cat-file --filters). env is the caller's git environment (nil: covey's).
func NoFilters(ctx context.Context, dir string, env []string) []string {
	cmd := exec.CommandContext(ctx, "git", "config", "--null", "--get-regexp", `^filter\.`)
	cmd.Dir = dir
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, "LC_ALL=C")
	out, _ := cmd.Output() // exit 1: no filter configured
	var opts []string
	seen := map[string]bool{}
	for _, entry := range strings.Split(string(out), "\x00") {
		key, _, _ := strings.Cut(entry, "\n")
		name, ok := strings.CutPrefix(key, "filter.")
		if i := strings.LastIndexByte(name, '.'); ok && i > 0 && !seen[name[:i]] {
			seen[name[:i]] = true
			for _, k := range []string{"clean", "smudge", "process"} {
				opts = append(opts, "-c", "filter."+name[:i]+"."+k+"=")
			}
		}
	}
	return opts
}
