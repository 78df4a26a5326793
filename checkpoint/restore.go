package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"covey/internal/gitsafe"
)

// Change is one file that differs between two snapshots.
type Change struct {
	// Path is workspace-relative, with forward slashes.
	Path string
	// Status is 'A' (only in the later snapshot), 'D' (only in the
	// earlier) or 'M' (in both, different).
	Status byte
	// From and To are the file's blob IDs and modes on each side ("" when
	// the side has no such file).
	From, To         string
	FromMode, ToMode string
}

// Changes lists the files that differ from tree from to tree to.
func (s *Store) Changes(ctx context.Context, from, to string) ([]Change, error) {
	if from == to {
		return nil, nil
	}
	out, err := s.git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", orEmpty(from), orEmpty(to))
	if err != nil {
		return nil, fmt.Errorf("compare checkpoints: %w", err)
	}
	var cs []Change
	parts := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(parts); i += 2 {
		// :100644 100644 aaaa bbbb M
		f := strings.Fields(strings.TrimPrefix(parts[i], ":"))
		if len(f) < 5 {
			continue
		}
		c := Change{Path: parts[i+1], FromMode: f[0], ToMode: f[1], From: f[2], To: f[3], Status: f[4][0]}
		if c.Status == 'D' {
			c.To, c.ToMode = "", ""
		}
		if c.Status == 'A' {
			c.From, c.FromMode = "", ""
		}
		if c.Status == 'T' {
			c.Status = 'M'
		}
		cs = append(cs, c)
	}
	return cs, nil
}

func orEmpty(tree string) string {
	if tree == "" {
		return emptyTree
	}
	return tree
}

// Paths returns the paths of cs.
func Paths(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}

// Diff is a unified diff of path from tree from to tree to (either may
// lack it), for showing the user what a restore would overwrite.
func (s *Store) Diff(ctx context.Context, from, to, path string) (string, error) {
	out, err := s.git(ctx, nil, "diff-tree", "-p", "--no-color", "--no-ext-diff", orEmpty(from), orEmpty(to), "--", ":(literal)"+path)
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", path, err)
	}
	return string(out), nil
}

// Restored says what a restore did.
type Restored struct {
	// Written and Removed are workspace-relative paths.
	Written, Removed []string
	// Problems are files that could not be put back, with why.
	Problems []string
}

// journal is written before a restore touches a file and removed after
// the last one: a covey killed in between finds it at the next start and
// finishes the restore (every blob it needs is in the store already).
type journal struct {
	Session string    `json:"session"`
	From    string    `json:"from"`
	To      string    `json:"to"`
	Label   string    `json:"label"`
	Started time.Time `json:"started"`
	// Skip are files the user chose to keep as they are.
	Skip []string `json:"skip,omitempty"`
}

func (s *Store) journalPath() string { return filepath.Join(s.dir, "restore-"+s.session+".json") }

// Restore puts the workspace back from tree from (a snapshot just taken)
// to tree to: files created since are removed, changed and deleted ones
// written back. skip names files to leave as they are. label says what the
// restore goes back to, for the note after an interrupted one. before
// (when set) runs once the journal is written and before any file is
// touched (the session file records the rewind there); its error stops
// the restore. Between files, step (when set) is called with the count
// done: tests stop there.
func (s *Store) Restore(ctx context.Context, from, to, label string, skip []string, before func() error, step func(int)) (Restored, error) {
	j := journal{Session: s.session, From: from, To: to, Label: label, Started: time.Now().UTC(), Skip: skip}
	data, err := json.Marshal(j)
	if err != nil {
		return Restored{}, err
	}
	f, err := createLocked(s.journalPath(), data)
	if err != nil {
		return Restored{}, fmt.Errorf("restore: write the journal: %w", err)
	}
	if before != nil {
		if err := before(); err != nil {
			_ = os.Remove(s.journalPath())
			_ = f.Close()
			return Restored{}, err
		}
	}
	res, err := s.apply(ctx, j, step)
	if err == nil {
		err = os.Remove(s.journalPath())
	}
	_ = f.Close()
	return res, err
}

// apply makes every file of j's diff as it is in j.To. It is idempotent,
// so an interrupted restore is finished by running it again.
func (s *Store) apply(ctx context.Context, j journal, step func(int)) (Restored, error) {
	cs, err := s.Changes(ctx, j.From, j.To)
	if err != nil {
		return Restored{}, err
	}
	skip := map[string]bool{}
	for _, p := range j.Skip {
		skip[p] = true
	}
	var want []string
	for _, c := range cs {
		if c.To != "" && !skip[c.Path] && c.ToMode != "160000" {
			want = append(want, c.To)
		}
	}
	blobs, err := s.blobs(ctx, want)
	if err != nil {
		return Restored{}, err
	}
	var res Restored
	done := 0
	for _, c := range cs {
		if skip[c.Path] || c.ToMode == "160000" || c.FromMode == "160000" {
			continue
		}
		if step != nil {
			step(done)
		}
		abs := filepath.Join(s.root, filepath.FromSlash(c.Path))
		if !inside(s.root, abs) {
			res.Problems = append(res.Problems, c.Path+": outside the workspace")
			continue
		}
		if c.To == "" {
			if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", c.Path, err))
				continue
			}
			removeEmptyParents(s.root, filepath.Dir(abs))
			res.Removed = append(res.Removed, c.Path)
		} else {
			if err := writeBlob(abs, blobs[c.To], c.ToMode); err != nil {
				res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", c.Path, err))
				continue
			}
			res.Written = append(res.Written, c.Path)
		}
		done++
	}
	if len(res.Problems) > 0 {
		return res, fmt.Errorf("restore: %d file(s) could not be put back: %s", len(res.Problems), strings.Join(res.Problems, "; "))
	}
	return res, nil
}

func inside(root, abs string) bool {
	rel, err := filepath.Rel(root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// removeEmptyParents removes the folders a removal left empty, up to root.
func removeEmptyParents(root, dir string) {
	for dir != root && inside(root, dir) {
		if err := os.Remove(dir); err != nil {
			return // not empty, or gone
		}
		dir = filepath.Dir(dir)
	}
}

// writeBlob writes content at abs with a git mode: atomically for a file
// (a temporary beside it, renamed over), as a link for 120000.
func writeBlob(abs string, content []byte, mode string) error {
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
		if err := os.RemoveAll(abs); err != nil {
			return err
		}
	}
	if mode == "120000" {
		_ = os.Remove(abs)
		return os.Symlink(string(content), abs)
	}
	perm := os.FileMode(0o644)
	if mode == "100755" {
		perm = 0o755
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), ".covey-rewind-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(content)
	if werr == nil {
		werr = tmp.Chmod(perm)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(name, abs)
	}
	if werr != nil {
		_ = os.Remove(name)
	}
	return werr
}

// blobs reads the contents of ids from the store in one git process.
func (s *Store) blobs(ctx context.Context, ids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(ids) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, id := range ids {
		in.WriteString(id + "\n")
	}
	cmd := exec.CommandContext(ctx, "git", append(gitsafe.Options(), "cat-file", "--batch")...)
	cmd.Dir, cmd.Env, cmd.Stdin = s.root, s.env(), &in
	var raw bytes.Buffer
	cmd.Stdout = &raw
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("read checkpoint contents: %w", err)
	}
	r := bufio.NewReader(&raw)
	for range ids {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read checkpoint contents: %w", err)
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return nil, fmt.Errorf("a checkpoint's file is missing from the store (%s)", strings.TrimSpace(head))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("read checkpoint contents: %q", head)
		}
		buf := make([]byte, n+1)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("read checkpoint contents: %w", err)
		}
		out[f[0]] = buf[:n]
	}
	return out, nil
}

// Interrupted is a restore a killed covey left half done, now finished.
type Interrupted struct {
	Label   string
	Started time.Time
	Files   int
	// Err is set when finishing it failed too: the workspace is mixed
	// and the user must look.
	Err error
}

// Recover finishes every restore of the workspace that a covey killed
// mid-way left (its journal is there and no live process holds it), so
// the workspace is as the restore meant, never half, and says what it did.
func Recover(ctx context.Context, dir, root string) []Interrupted {
	names, _ := filepath.Glob(filepath.Join(dir, "restore-*.json"))
	sort.Strings(names)
	var out []Interrupted
	for _, name := range names {
		f, ok := lockStale(name)
		if !ok {
			continue // a live covey is restoring
		}
		data, err := io.ReadAll(f)
		var j journal
		if err == nil {
			err = json.Unmarshal(data, &j)
		}
		if err != nil || j.Session == "" {
			_ = f.Close()
			_ = os.Remove(name)
			continue
		}
		in := Interrupted{Label: j.Label, Started: j.Started}
		s, err := Open(ctx, dir, root, j.Session)
		if err == nil {
			var res Restored
			res, err = s.apply(ctx, j, nil)
			in.Files = len(res.Written) + len(res.Removed)
		}
		in.Err = err
		if err == nil {
			_ = os.Remove(name)
		}
		_ = f.Close()
		out = append(out, in)
	}
	return out
}
