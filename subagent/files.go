package subagent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"covey/agent"
	"covey/internal/gitsafe"
	"covey/internal/safefile"
	"covey/tools/tool"
)

// gitTimeout bounds each git status look, so a huge or locked repository
// costs a bash call at most this much.
const gitTimeout = 5 * time.Second

// fileWatcher finds the files a child's bash call changed by looking at the
// workspace's git status before and after the call.
type fileWatcher struct {
	root   string
	once   sync.Once
	git    bool   // the workspace is inside a git work tree
	prefix string // the workspace's path in the repository, "" or "sub/dir/"
}

// fileState is one dirty path as git status shows it, with a fingerprint
// so a second change to an already changed file shows too.
type fileState struct {
	xy      string
	size    int64
	modTime time.Time
	exists  bool
}

func (w *fileWatcher) isGit(ctx context.Context) bool {
	w.once.Do(func() {
		if w.root == "" {
			return
		}
		out, err := w.run(ctx, "rev-parse", "--is-inside-work-tree", "--show-prefix")
		lines := strings.Split(string(out), "\n")
		w.git = err == nil && strings.TrimSpace(lines[0]) == "true"
		if w.git && len(lines) > 1 {
			w.prefix = strings.TrimSpace(lines[1])
		}
	})
	return w.git
}

func (w *fileWatcher) run(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// Outside the sandbox, on a repository the child can write: its
	// core.fsmonitor, the filters of its attributes (git status and git
	// diff clean a changed file), its diff drivers and its hooks are
	// switched off, and nested repositories, whose config is theirs, are
	// not entered.
	safe := append([]string{"-C", w.root}, gitsafe.Options()...)
	if args[0] != "rev-parse" {
		safe = append(safe, gitsafe.NoFilters(ctx, w.root, nil)...)
	}
	switch args[0] {
	case "status":
		args = append([]string{"status", "--ignore-submodules=all"}, args[1:]...)
	case "diff":
		args = append([]string{"diff", "--ignore-submodules=all", "--no-ext-diff", "--no-textconv"}, args[1:]...)
	}
	cmd := exec.CommandContext(ctx, "git", append(safe, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	return cmd.Output()
}

// snapshot returns the dirty paths of the work tree (relative to the
// workspace root), or nil when git fails.
func (w *fileWatcher) snapshot(ctx context.Context) map[string]fileState {
	// Porcelain paths are relative to the repository root, whatever the
	// directory; the pathspec keeps the workspace's own.
	out, err := w.run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
	if err != nil {
		return nil
	}
	snap := map[string]fileState{}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		xy, path := string(f[:2]), string(f[3:])
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the rename's source follows
		}
		rel, ok := strings.CutPrefix(path, w.prefix)
		if !ok {
			continue
		}
		path = rel
		st := fileState{xy: xy}
		if fi, err := os.Lstat(filepath.Join(w.root, path)); err == nil {
			st.exists, st.size, st.modTime = true, fi.Size(), fi.ModTime()
		}
		snap[path] = st
	}
	return snap
}

// changes compares two snapshots and describes what changed, counting
// lines against HEAD where git can.
func (w *fileWatcher) changes(ctx context.Context, before, after map[string]fileState) []agent.FileChange {
	var paths []string
	for p, a := range after {
		if b, ok := before[p]; !ok || b != a {
			paths = append(paths, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			paths = append(paths, p) // back to clean: changed again
		}
	}
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	counts := w.numstat(ctx, paths)
	out := make([]agent.FileChange, 0, len(paths))
	for _, p := range paths {
		fc := agent.FileChange{Path: p, Status: "modified"}
		if a, ok := after[p]; ok {
			switch {
			case a.xy == "??" || strings.Contains(a.xy, "A"):
				fc.Status = "added"
			case strings.Contains(a.xy, "D") || !a.exists:
				fc.Status = "deleted"
			case a.xy[0] == 'R':
				fc.Status = "renamed"
			}
			if a.xy == "??" && a.exists {
				fc.Added = countLines(filepath.Join(w.root, p))
			}
		}
		if c, ok := counts[p]; ok {
			fc.Added, fc.Removed = c[0], c[1]
		}
		if len(out) < maxFileDiffs {
			fc.Diff = w.diff(ctx, p, after[p].xy == "??")
		}
		out = append(out, fc)
	}
	return out
}

// A bash call's diffs are kept for the first maxFileDiffs files it
// changed, each up to maxFileDiff bytes: enough to review, not a copy of
// a generated tree.
const (
	maxFileDiffs = 50
	maxFileDiff  = 64 << 10
)

// diff is path's unified diff against HEAD, or a new untracked file's
// whole content; "" when git cannot make one or it is too long.
func (w *fileWatcher) diff(ctx context.Context, path string, untracked bool) string {
	args := []string{"diff", "--no-color", "--relative", "HEAD", "--", path}
	if untracked {
		args = []string{"diff", "--no-color", "--no-index", "--", "/dev/null", path}
	}
	out, err := w.run(ctx, args...)
	var exit *exec.ExitError
	if err != nil && !(untracked && errors.As(err, &exit) && exit.ExitCode() == 1) { // --no-index: 1 means "they differ"
		return ""
	}
	if len(out) > maxFileDiff || bytes.Contains(out, []byte("\nBinary files ")) {
		return ""
	}
	return string(out)
}

// numstat counts added and removed lines of tracked paths against HEAD.
func (w *fileWatcher) numstat(ctx context.Context, paths []string) map[string][2]int {
	out, err := w.run(ctx, append([]string{"diff", "--numstat", "--relative", "HEAD", "--"}, paths...)...)
	if err != nil {
		return nil
	}
	counts := map[string][2]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) != 3 {
			continue
		}
		a, errA := strconv.Atoi(parts[0])
		r, errR := strconv.Atoi(parts[1])
		if errA != nil || errR != nil {
			continue // binary files show "-"
		}
		counts[parts[2]] = [2]int{a, r}
	}
	return counts
}

// countLines counts the lines of a new file, up to 1 MiB of it.
func countLines(path string) int {
	f, err := safefile.Open(path) // a child may have left a FIFO

	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	buf := make([]byte, 1<<20)
	n, _ := f.Read(buf)
	lines := bytes.Count(buf[:n], []byte{'\n'})
	if n > 0 && buf[n-1] != '\n' {
		lines++
	}
	return lines
}

// watchedBash wraps a child's bash tool: after each call it reports the
// files the call changed (ChildFiles).
type watchedBash struct {
	tool.Tool
	w *fileWatcher
	c *child
}

// watchFiles wraps t (bash) for child c when the workspace is a git work
// tree; otherwise it returns t.
func (m *Manager) watchFiles(t tool.Tool, c *child) tool.Tool {
	if m.cfg.Workspace == nil {
		return t
	}
	m.mu.Lock()
	if m.files == nil {
		m.files = &fileWatcher{root: m.cfg.Workspace.Root}
	}
	w := m.files
	m.mu.Unlock()
	return &watchedBash{Tool: t, w: w, c: c}
}

func (b *watchedBash) Run(ctx context.Context, args json.RawMessage) tool.Result {
	if !b.w.isGit(ctx) {
		return b.Tool.Run(ctx, args)
	}
	ws := b.c.m.cfg.Workspace
	mark := ws.WriteSeq()
	before := b.w.snapshot(ctx)
	r := b.Tool.Run(ctx, args)
	if before == nil {
		return r
	}
	// The look after runs even when the call was cancelled: the command
	// may have changed files before it stopped.
	look := context.WithoutCancel(ctx)
	after := b.w.snapshot(look)
	if after == nil {
		return r
	}
	// A file another agent's write_file or edit_file changed during the
	// call is that agent's change, not this command's.
	for p := range after {
		if ws.WrittenSince(filepath.Join(b.w.root, p), mark) {
			if st, ok := before[p]; ok {
				after[p] = st
			} else {
				delete(after, p)
			}
		}
	}
	if files := b.w.changes(look, before, after); len(files) > 0 {
		b.c.emit(agent.ChildFiles{Source: b.c.src, CallID: tool.CallID(ctx), Files: files})
		for _, f := range files {
			if note := b.c.m.touched(b.c.src, b.w.root, filepath.Join(b.w.root, f.Path), touchWrote, tool.CallID(ctx)); note != "" {
				r.Content += "\n\n" + note
			}
		}
	}
	return r
}
