package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"covey/internal/plural"
)

// Conflict is one file whose change cannot be merged onto the user's.
type Conflict struct {
	Path   string // relative to the repository's top
	Reason string
}

// ConflictError is Apply's error when some file does not merge cleanly.
// Nothing was written; the worktree and its branch are untouched.
type ConflictError struct {
	Conflicts []Conflict
	// Path and Branch are the kept worktree and its branch.
	Path, Branch string
}

// Error names every conflicting file and where the change is kept.
func (e *ConflictError) Error() string {
	parts := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		parts[i] = c.Path + " (" + c.Reason + ")"
	}
	return fmt.Sprintf("%d %s conflict with your current files, so nothing was applied: %s. The change is kept in the worktree %s on the branch %s",
		len(e.Conflicts), plural.Noun(len(e.Conflicts), "file"), strings.Join(parts, "; "), e.Path, e.Branch)
}

// Files lists the conflicting paths.
func (e *ConflictError) Files() []string {
	out := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		out[i] = c.Path
	}
	return out
}

// Locker takes the session's write lock of one absolute path and returns
// its release (workspace.FileLocks.Lock fits), so a merge does not interleave
// with an agent writing the same file.
type Locker func(ctx context.Context, abs string) (unlock func(), err error)

// ApplyOptions configure Apply.
type ApplyOptions struct {
	// Files limits the merge to these paths (relative to the repository's
	// top, as in Change.Path); nil applies every change.
	Files []string
	// Content replaces, by path, the child's content of a file with part
	// of its change (the hunks the user took): what is merged onto the
	// user's file instead. A file whose replacement equals its base is
	// left out.
	Content map[string][]byte
	// Lock, when set, is held on every target while it is read, merged
	// and written.
	Lock Locker
	// Before, when set, is told each file's state before the merge changes
	// it (workspace.UndoLog.Save fits, so /undo can take a merge back); an
	// error stops the merge before anything is written.
	Before func(abs, rel string, existed bool, content []byte, mode fs.FileMode) error
}

// fileState is a file in the user's checkout as found before the merge.
type fileState struct {
	exists bool
	link   bool
	data   []byte // the content, or the link's target
	perm   fs.FileMode
}

// plan is what the merge does to one file.
type plan struct {
	change Change
	abs    string
	before fileState
	skip   bool // the user's file already equals the child's
	remove bool
	data   []byte
	link   bool
	perm   fs.FileMode
}

// Apply merges the child's changes three-way onto the user's current files
// (base: the worktree's base; yours: the files now; theirs: the
// worktree's), all or nothing. A file only one side changed takes that
// side; a file both changed merges line by line. When any file conflicts,
// nothing is written and a *ConflictError says which. It returns the paths
// it changed. The worktree is left as it is: Remove it after.
func (w *Worktree) Apply(ctx context.Context, opt ApplyOptions) ([]string, error) {
	if !w.rec.Usable() {
		return nil, fmt.Errorf("refusing to apply %s: %w", w.rec.Branch, ErrIncomplete)
	}
	changes, err := w.Diff(ctx)
	if err != nil {
		return nil, err
	}
	if opt.Files != nil {
		want := map[string]bool{}
		for _, f := range opt.Files {
			want[f] = true
		}
		var kept []Change
		for _, c := range changes {
			if want[c.Path] {
				kept = append(kept, c)
				delete(want, c.Path)
			}
		}
		if len(want) > 0 {
			missing := make([]string, 0, len(want))
			for f := range want {
				missing = append(missing, f)
			}
			slices.Sort(missing)
			return nil, fmt.Errorf("the child changed no file named %s", strings.Join(missing, ", "))
		}
		changes = kept
	}
	if opt.Content != nil {
		kept := changes[:0:0]
		for _, c := range changes {
			if data, ok := opt.Content[c.Path]; ok {
				if c.Old != nil && bytes.Equal(data, c.Old) {
					continue // nothing of it taken
				}
				c.New = data
				if c.NewMode == "" {
					c.NewMode = c.OldMode
				}
			}
			kept = append(kept, c)
		}
		changes = kept
	}
	if len(changes) == 0 {
		return nil, nil
	}
	plans := make([]*plan, 0, len(changes))
	for _, c := range changes {
		abs, err := w.repo.target(c.Path)
		if err != nil {
			return nil, err
		}
		plans = append(plans, &plan{change: c, abs: abs})
	}
	if opt.Lock != nil {
		// Sorted (Diff's order), so two merges never wait on each other.
		for _, p := range plans {
			unlock, err := opt.Lock(ctx, p.abs)
			if err != nil {
				return nil, fmt.Errorf("wait to write %s: %w", p.change.Path, err)
			}
			defer unlock()
		}
	}
	w.repo.mu.Lock()
	defer w.repo.mu.Unlock()

	var conflicts []Conflict
	for _, p := range plans {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st, err := readState(p.abs)
		if err != nil {
			return nil, err
		}
		p.before = st
		if reason, err := p.merge(ctx); err != nil {
			return nil, err
		} else if reason != "" {
			conflicts = append(conflicts, Conflict{Path: p.change.Path, Reason: reason})
		}
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Conflicts: conflicts, Path: w.rec.Path, Branch: w.rec.Branch}
	}
	if opt.Before != nil {
		for _, p := range plans {
			if p.skip {
				continue
			}
			if err := opt.Before(p.abs, p.change.Path, p.before.exists, p.before.data, p.before.perm); err != nil {
				return nil, fmt.Errorf("apply %s: %w (nothing was applied)", p.change.Path, err)
			}
		}
	}
	return write(ctx, plans, w.repo.Top)
}

// target is the absolute path in the user's checkout of a repository path,
// refused when it would lead outside the checkout (through "..", or a
// folder that is a symlink to elsewhere).
func (r *Repo) target(rel string) (string, error) {
	clean := path.Clean(rel)
	if rel == "" || path.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, "../") || clean != rel {
		return "", fmt.Errorf("refusing to apply %q: not a plain path inside the repository", rel)
	}
	abs := filepath.Join(r.Top, filepath.FromSlash(clean))
	dir := filepath.Dir(abs)
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			if real != r.Top && !strings.HasPrefix(real, r.Top+string(filepath.Separator)) {
				return "", fmt.Errorf("refusing to apply %s: its folder leads outside the repository (%s)", rel, real)
			}
			return abs, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("apply %s: %w", rel, err)
		}
		if dir == r.Top || dir == filepath.Dir(dir) {
			return abs, nil
		}
		dir = filepath.Dir(dir)
	}
}

func readState(abs string) (fileState, error) {
	info, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{}, nil
	}
	if err != nil {
		return fileState{}, fmt.Errorf("read %s: %w", abs, err)
	}
	st := fileState{exists: true, perm: info.Mode().Perm()}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(abs)
		if err != nil {
			return fileState{}, fmt.Errorf("read %s: %w", abs, err)
		}
		st.link, st.data = true, []byte(t)
	case info.Mode().IsRegular():
		data, err := os.ReadFile(abs)
		if err != nil {
			return fileState{}, fmt.Errorf("read %s: %w", abs, err)
		}
		st.data = data
	default:
		return fileState{}, fmt.Errorf("apply %s: it is not a regular file in your checkout", abs)
	}
	return st, nil
}

// errChangedMeanwhile stops a merge whose target changed while it was
// being applied.
var errChangedMeanwhile = errors.New("the file changed while the merge was being applied; try again")

// same reports whether two states of a file are alike.
func (st fileState) same(o fileState) bool {
	return st.exists == o.exists && st.link == o.link && bytes.Equal(st.data, o.data)
}

// equals reports whether st holds content (nil: absent) with mode's kind.
func (st fileState) equals(content []byte, mode string) bool {
	if content == nil {
		return !st.exists
	}
	return st.exists && st.link == (mode == modeSymlink) && bytes.Equal(st.data, content)
}

// merge decides p's result, or returns why it conflicts.
func (p *plan) merge(ctx context.Context) (string, error) {
	c, st := p.change, p.before
	takeTheirs := func() {
		if c.New == nil {
			p.remove = true
			return
		}
		p.data, p.link = c.New, c.NewMode == modeSymlink
		p.perm = permOf(c.NewMode)
		if st.exists && !st.link && c.OldMode == c.NewMode {
			p.perm = st.perm // keep the user's permissions unless the child changed them
		}
	}
	switch {
	case st.equals(c.Old, c.OldMode):
		takeTheirs()
		return "", nil
	case st.equals(c.New, c.NewMode):
		p.skip = true
		return "", nil
	case c.Old == nil:
		return "you created it too, with other content", nil
	case c.New == nil:
		return "the child deleted it, and you changed it", nil
	case !st.exists:
		return "you deleted it, and the child changed it", nil
	case st.link || c.OldMode == modeSymlink || c.NewMode == modeSymlink:
		return "both changed this symlink", nil
	case isBinary(st.data) || c.Binary():
		return "both changed this binary file", nil
	}
	merged, clean, err := mergeFile(ctx, st.data, c.Old, c.New)
	if err != nil {
		return "", fmt.Errorf("merge %s: %w", c.Path, err)
	}
	if !clean {
		return "you and the child changed the same lines", nil
	}
	p.data, p.perm = merged, st.perm
	if c.OldMode != c.NewMode {
		p.perm = permOf(c.NewMode)
	}
	return "", nil
}

func permOf(mode string) fs.FileMode {
	if mode == modeExec {
		return 0o755
	}
	return 0o644
}

// mergeFile merges with `git merge-file`: ours and theirs from base.
func mergeFile(ctx context.Context, ours, base, theirs []byte) ([]byte, bool, error) {
	dir, err := os.MkdirTemp("", "covey-merge-*")
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	names := []string{filepath.Join(dir, "ours"), filepath.Join(dir, "base"), filepath.Join(dir, "theirs")}
	for i, data := range [][]byte{ours, base, theirs} {
		if err := os.WriteFile(names[i], data, 0o600); err != nil {
			return nil, false, err
		}
	}
	out, err := git(ctx, dir, nil, "merge-file", "-p", "-L", "yours", "-L", "base", "-L", "child", names[0], names[1], names[2])
	if err == nil {
		return out, true, nil
	}
	if code := exitCode(err); code > 0 && code < 128 {
		return nil, false, nil // the number of conflicts
	}
	return nil, false, err
}

// write carries out the plans, each file atomically; if one fails, the
// files already written are put back as they were.
func write(ctx context.Context, plans []*plan, top string) ([]string, error) {
	var done []*plan
	var changed []string
	for _, p := range plans {
		if p.skip {
			continue
		}
		err := ctx.Err()
		if err == nil {
			// The user may have saved the file since it was read: then
			// the merge is stale, and writing it would lose their edit.
			if now, rerr := readState(p.abs); rerr != nil {
				err = rerr
			} else if !now.same(p.before) {
				err = errChangedMeanwhile
			}
		}
		if err == nil {
			err = p.apply(top)
		}
		if err != nil {
			rollback(done, top)
			return nil, fmt.Errorf("apply %s: %w (nothing was applied)", p.change.Path, err)
		}
		done = append(done, p)
		changed = append(changed, p.change.Path)
	}
	return changed, nil
}

func (p *plan) apply(top string) error {
	if p.remove {
		if err := os.Remove(p.abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		removeEmptyParents(filepath.Dir(p.abs), top)
		return nil
	}
	return putFile(p.abs, p.data, p.link, p.perm)
}

// rollback restores the files of done to their state before the merge.
func rollback(done []*plan, top string) {
	for i := len(done) - 1; i >= 0; i-- {
		p := done[i]
		if !p.before.exists {
			_ = os.Remove(p.abs)
			removeEmptyParents(filepath.Dir(p.abs), top)
			continue
		}
		_ = putFile(p.abs, p.before.data, p.before.link, p.before.perm)
	}
}

// putFile replaces abs atomically with a file (or symlink) holding data.
func putFile(abs string, data []byte, link bool, perm fs.FileMode) error {
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if link {
		tmp := filepath.Join(dir, fmt.Sprintf(".covey-link-%s", filepath.Base(abs)))
		_ = os.Remove(tmp)
		if err := os.Symlink(string(data), tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, abs); err != nil {
			_ = os.Remove(tmp)
			return err
		}
		return nil
	}
	f, err := os.CreateTemp(dir, ".covey-merge-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), perm)
	}
	if err == nil {
		err = os.Rename(f.Name(), abs)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// removeEmptyParents removes dir and its parents while they are empty,
// stopping at top (as git does when the last file of a folder goes).
func removeEmptyParents(dir, top string) {
	for dir != top && strings.HasPrefix(dir, top+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
