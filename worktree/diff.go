package worktree

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// Status is how a file changed.
type Status byte

// Statuses.
const (
	Added    Status = 'A'
	Modified Status = 'M'
	Deleted  Status = 'D'
)

// Mode bits of git entries.
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeGitlink = "160000"
)

// Change is one file the child changed, relative to the worktree's base.
type Change struct {
	// Path is relative to the repository's top, slash-separated.
	Path   string
	Status Status
	// Old and New are the content at the base and in the worktree; nil
	// when the file is absent on that side.
	Old, New []byte
	// OldMode and NewMode are git modes ("100644", "100755", "120000").
	OldMode, NewMode string
}

// Binary reports whether either side looks binary (a NUL byte early on).
func (c Change) Binary() bool { return isBinary(c.Old) || isBinary(c.New) }

func isBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

// Diff returns every file differing between the worktree's base and its
// current files, sorted by path: edits, new files (unless git ignores
// them) and deletions, whether or not the child committed them. It reads
// through a copy of the worktree's index and changes nothing.
func (w *Worktree) Diff(ctx context.Context) ([]Change, error) {
	tree, err := w.tree(ctx)
	if err != nil {
		return nil, err
	}
	return diffTrees(ctx, w.rec.Path, w.rec.BaseCommit, tree)
}

// tree writes the worktree's current files as a git tree and returns it.
func (w *Worktree) tree(ctx context.Context) (string, error) {
	w.indexMu.Lock()
	if w.index == "" {
		p, err := indexPath(ctx, w.rec.Path)
		if err != nil {
			w.indexMu.Unlock()
			return "", err
		}
		w.index = p
	}
	index := w.index
	w.indexMu.Unlock()
	idx, cleanup, err := tempIndex(ctx, w.rec.Path, index)
	if err != nil {
		return "", err
	}
	defer cleanup()
	env := []string{"GIT_INDEX_FILE=" + idx}
	if _, err := git(ctx, w.rec.Path, env, "add", "--all", "--", ":/"); err != nil {
		return "", fmt.Errorf("read the worktree's changes: %w", err)
	}
	out, err := git(ctx, w.rec.Path, env, "write-tree")
	if err != nil {
		return "", fmt.Errorf("read the worktree's changes: %w", err)
	}
	return trim(out), nil
}

// diffTrees lists the changes from tree a to tree b with their contents.
func diffTrees(ctx context.Context, dir, a, b string) ([]Change, error) {
	out, err := git(ctx, dir, nil, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", a, b)
	if err != nil {
		return nil, fmt.Errorf("diff the worktree: %w", err)
	}
	type side struct{ mode, oid string }
	type raw struct {
		path     string
		status   Status
		old, new side
	}
	var raws []raw
	var reqs []blobReq
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		// ":100644 100644 <old> <new> M" then the path.
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) < 5 {
			return nil, fmt.Errorf("diff the worktree: unexpected git output %q", fields[i])
		}
		r := raw{path: fields[i+1], old: side{meta[0], meta[2]}, new: side{meta[1], meta[3]}}
		if r.old.mode == modeGitlink || r.new.mode == modeGitlink {
			continue // a submodule's commit is not a file covey can merge
		}
		switch meta[4][0] {
		case 'A':
			r.status = Added
		case 'D':
			r.status = Deleted
		default:
			r.status = Modified
		}
		for _, s := range []side{r.old, r.new} {
			if !zeroOID(s.oid) {
				reqs = append(reqs, blobReq{oid: s.oid, path: r.path, link: s.mode == modeSymlink})
			}
		}
		raws = append(raws, r)
	}
	blobs, err := readBlobs(ctx, dir, reqs)
	if err != nil {
		return nil, err
	}
	changes := make([]Change, 0, len(raws))
	for _, r := range raws {
		c := Change{Path: r.path, Status: r.status}
		if !zeroOID(r.old.oid) {
			c.Old, c.OldMode = nonNil(blobs[blobReq{oid: r.old.oid, path: r.path, link: r.old.mode == modeSymlink}]), r.old.mode
		}
		if !zeroOID(r.new.oid) {
			c.New, c.NewMode = nonNil(blobs[blobReq{oid: r.new.oid, path: r.path, link: r.new.mode == modeSymlink}]), r.new.mode
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// blobReq is one blob to read, in the form a checkout of path has it.
type blobReq struct {
	oid, path string
	link      bool // a symlink's target: never converted
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func zeroOID(oid string) bool { return strings.Trim(oid, "0") == "" }

// readBlobs reads blobs in the form a checkout of their path holds, since
// that is the form of the user's files they are compared and merged with:
// blobs of paths whose attributes or config convert them (line endings,
// working-tree-encoding, ident) through `git cat-file --filters`, one by
// one (git 2.39's --batch --filters gives the stored size in its headers);
// the rest, and symlinks' targets, as stored in one `git cat-file --batch`.
// The repository's filter drivers are emptied (noFilters): covey's git runs
// outside the sandbox.
func readBlobs(ctx context.Context, dir string, reqs []blobReq) (map[blobReq][]byte, error) {
	blobs := make(map[blobReq][]byte, len(reqs))
	converts, err := convertedPaths(ctx, dir, reqs)
	if err != nil {
		return nil, err
	}
	var stored []blobReq
	for _, r := range reqs {
		if r.link || !converts[r.path] {
			stored = append(stored, r)
			continue
		}
		out, err := git(ctx, dir, nil, "cat-file", "--filters", "--path="+r.path, r.oid)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", r.path, err)
		}
		blobs[r] = out
	}
	if err := catFile(ctx, dir, stored, blobs); err != nil {
		return nil, err
	}
	return blobs, nil
}

// convertedPaths tells which of reqs' paths a checkout converts: those
// with a text, eol, working-tree-encoding or ident attribute, or every
// path when core.autocrlf is true.
func convertedPaths(ctx context.Context, dir string, reqs []blobReq) (map[string]bool, error) {
	out := map[string]bool{}
	var paths []string
	for _, r := range reqs {
		if !r.link && !out[r.path] {
			out[r.path] = false
			paths = append(paths, r.path)
		}
	}
	if len(paths) == 0 {
		return out, nil
	}
	if v, _ := git(ctx, dir, nil, "config", "--type=bool", "core.autocrlf"); trim(v) == "true" {
		for _, p := range paths {
			out[p] = true
		}
		return out, nil
	}
	in := []byte(strings.Join(paths, "\x00") + "\x00")
	res, err := gitInput(ctx, dir, nil, in, "check-attr", "-z", "--stdin", "text", "eol", "working-tree-encoding", "ident")
	if err != nil {
		return nil, fmt.Errorf("read the attributes: %w", err)
	}
	// path NUL attribute NUL value NUL, for each path and attribute.
	f := strings.Split(string(res), "\x00")
	for k := 0; k+2 < len(f); k += 3 {
		if v := f[k+2]; v != "unspecified" && v != "unset" {
			out[f[k]] = true
		}
	}
	return out, nil
}

// catFile reads reqs as stored, in one `git cat-file --batch`, into blobs.
func catFile(ctx context.Context, dir string, reqs []blobReq, blobs map[blobReq][]byte) error {
	if len(reqs) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, r := range reqs {
		in.WriteString(r.oid + "\n")
	}
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.Stdin = &in
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	br := bufio.NewReader(stdout)
	var readErr error
	for _, r := range reqs {
		header, err := br.ReadString('\n')
		if err != nil {
			readErr = err
			break
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			readErr = fmt.Errorf("unexpected header %q", strings.TrimSpace(header))
			break
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			readErr = err
			break
		}
		buf := make([]byte, size+1) // the content and its newline
		if _, err := io.ReadFull(br, buf); err != nil {
			readErr = err
			break
		}
		blobs[r] = buf[:size]
	}
	_, _ = io.Copy(io.Discard, br)
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = err
	}
	if readErr != nil {
		return fmt.Errorf("read blobs: %w", readErr)
	}
	return nil
}
