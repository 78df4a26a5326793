// Package checkpoint snapshots a workspace's files before each user turn
// and puts them back (/rewind). The snapshots live in a shadow git object
// store outside the workspace (one per workspace, shared by its sessions)
// with an index of its own per session: the repository's refs, index,
// branches and `git status` are never touched, and whatever changed a file
// (covey's tools, bash, a subagent working in place, an editor) the next
// snapshot sees it.
//
// A snapshot is `git add -A` into the private index followed by
// `git write-tree`: git compares each file's stat data with the index, so
// an unchanged workspace is hashed once, and a turn that changes nothing
// costs one pass of lstat calls. A workspace that is a repository's top
// folder seeds the private index from the repository's own (its stat data
// and its object store, read through alternates), so even the first
// snapshot hashes only the files that differ from the last `git add`.
//
// Not covered, by design: files the workspace's .gitignore rules (and
// .git/info/exclude and the user's global excludes) ignore, and files over
// Store.Limit bytes, which each snapshot names in Skipped.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"covey/internal/gitsafe"
)

// DefaultLimit is the size above which a file is left out of snapshots.
const DefaultLimit = 10 << 20

// ErrNoGit means git is not on PATH: covey cannot take checkpoints.
var ErrNoGit = errors.New("git is not installed (not found on PATH), so covey keeps no checkpoints for /rewind")

// emptyTree is git's well-known ID of the tree with nothing in it.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Store takes and restores the snapshots of one workspace for one session.
type Store struct {
	root    string // the workspace, absolute
	dir     string // the workspace's shadow folder (shared by its sessions)
	gitDir  string // dir/git: the object store
	index   string // this session's private index
	session string
	// Limit is the size in bytes above which a file is not snapshotted
	// (DefaultLimit when 0).
	Limit int64

	mu      sync.Mutex // one git command that writes the index at a time
	filters []string   // options emptying the filter drivers git's config names
	// last is the tree of the last snapshot ("" before the first); big
	// the files found too big, left out of every snapshot while they are.
	last string
	big  map[string]bool
}

// Snapshot is the state of the workspace at one moment.
type Snapshot struct {
	// Tree is the git tree ID of every covered file.
	Tree string
	// Skipped are the files (workspace-relative) left out for their size.
	Skipped []string
}

// Dir is where the shadow store of the workspace root is kept under base
// (covey's state folder): one folder per workspace, named by a hash of its
// path.
func Dir(base, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, "checkpoints", hex.EncodeToString(sum[:8]))
}

// Open opens (creating) the shadow store in dir for the workspace root and
// the session id. It runs no git command that reads the workspace.
func Open(ctx context.Context, dir, root, session string) (*Store, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, ErrNoGit
	}
	if session == "" || strings.ContainsAny(session, `/\`) {
		return nil, fmt.Errorf("checkpoints: invalid session ID %q", session)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	s := &Store{root: abs, dir: dir, gitDir: filepath.Join(dir, "git"), index: filepath.Join(dir, "index-"+session), session: session, big: map[string]bool{}}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	if _, err := os.Stat(filepath.Join(s.gitDir, "HEAD")); errors.Is(err, fs.ErrNotExist) {
		if err := s.create(ctx); err != nil {
			return nil, fmt.Errorf("checkpoints: create the shadow store: %w", err)
		}
	}
	s.filters = gitsafe.NoFilters(ctx, abs, s.env())
	return s, nil
}

// create makes the shadow store: a bare repository (it has no work tree
// of its own; every command names the workspace) that never collects
// garbage on its own and keeps every byte as it is.
func (s *Store) create(ctx context.Context) error {
	env := []string{}
	for _, kv := range s.env() {
		if k, _, _ := strings.Cut(kv, "="); k != "GIT_DIR" && k != "GIT_WORK_TREE" && k != "GIT_INDEX_FILE" {
			env = append(env, kv)
		}
	}
	args := [][]string{{"init", "-q", "--bare", s.gitDir}}
	for _, kv := range [][2]string{{"gc.auto", "0"}, {"core.autocrlf", "false"}, {"core.safecrlf", "false"},
		{"core.untrackedCache", "false"}, {"index.version", "4"}, {"core.bare", "false"}} {
		args = append(args, []string{"config", "--file", filepath.Join(s.gitDir, "config"), kv[0], kv[1]})
	}
	for _, a := range args {
		cmd := exec.CommandContext(ctx, "git", append(gitsafe.Options(), a...)...)
		cmd.Dir, cmd.Env = s.dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %s", a[0], strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// Root is the workspace the store snapshots.
func (s *Store) Root() string { return s.root }

func (s *Store) limit() int64 {
	if s.Limit > 0 {
		return s.Limit
	}
	return DefaultLimit
}

// env is the environment of every git command: the shadow store and the
// private index, no prompts, and none of a calling hook's GIT_* variables.
func (s *Store) env() []string {
	env := make([]string, 0, len(os.Environ())+6)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_DIR="+s.gitDir, "GIT_WORK_TREE="+s.root, "GIT_INDEX_FILE="+s.index,
		"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C")
}

// git runs git at the workspace root against the shadow store.
func (s *Store) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	// No untracked cache: it trusts folder mtimes, and a file created in
	// the same moment as the last look could be missed.
	all := append(append(append(gitsafe.Options(), "-c", "core.untrackedCache=false"), s.filters...), args...)
	cmd := exec.CommandContext(ctx, "git", all...)
	cmd.Dir = s.root
	cmd.Env = s.env()
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
		return out.Bytes(), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.Bytes(), nil
}

// Take snapshots the workspace now.
func (s *Store) Take(ctx context.Context) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := os.Stat(s.index); errors.Is(err, fs.ErrNotExist) {
		s.seed(ctx)
	}
	s.syncExcludes()
	snap, err := s.take(ctx)
	if err != nil && s.seeded() {
		// A seed git cannot use (a split index, a format it does not
		// read): start from nothing.
		_ = os.Remove(s.index)
		_ = os.Remove(filepath.Join(s.gitDir, "objects", "info", "alternates"))
		snap, err = s.take(ctx)
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("checkpoint: %w", err)
	}
	return snap, nil
}

func (s *Store) take(ctx context.Context) (Snapshot, error) {
	var snap Snapshot
	// One pass of lstat calls (git compares stat data with the private
	// index) finds and hashes what is new or changed; the files known to
	// be too big are left out before git reads them.
	args := []string{"add", "-A", "--ignore-errors", "--", "."}
	for _, rel := range sortedKeys(s.big) {
		if s.tooBig(rel) {
			snap.Skipped = append(snap.Skipped, rel)
			args = append(args, ":(exclude,literal)"+rel)
		} else {
			delete(s.big, rel)
		}
	}
	before, _ := os.Stat(s.index)
	if _, err := s.git(ctx, nil, args...); err != nil {
		return Snapshot{}, err
	}
	// git rewrites the index (a new file renamed over it) whenever
	// anything in it changed; when it did not, neither did the tree.
	after, _ := os.Stat(s.index)
	if s.last != "" && before != nil && after != nil && os.SameFile(before, after) && before.ModTime().Equal(after.ModTime()) && before.Size() == after.Size() {
		snap.Tree = s.last
		return snap, nil
	}
	tree, err := s.writeTree(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	if tree != s.last {
		// What changed since the last snapshot (trees compared in the
		// store: no file is read) is checked for size once; a file too
		// big leaves the index and is named, from now on, as not covered.
		out, err := s.git(ctx, nil, "diff-tree", "-r", "-z", "--name-only", "--no-renames", "--diff-filter=AMT", orEmpty(s.last), tree)
		if err != nil {
			return Snapshot{}, err
		}
		var big []string
		for _, rel := range strings.Split(string(out), "\x00") {
			if rel != "" && s.tooBig(rel) {
				big = append(big, rel)
			}
		}
		if len(big) > 0 {
			rm := append([]string{"update-index", "--force-remove", "--"}, big...)
			if _, err := s.git(ctx, nil, rm...); err != nil {
				return Snapshot{}, err
			}
			for _, rel := range big {
				s.big[rel] = true
			}
			snap.Skipped = append(snap.Skipped, big...)
			sort.Strings(snap.Skipped)
			if tree, err = s.writeTree(ctx); err != nil {
				return Snapshot{}, err
			}
		}
	}
	s.last, snap.Tree = tree, tree
	return snap, nil
}

func (s *Store) writeTree(ctx context.Context) (string, error) {
	out, err := s.git(ctx, nil, "write-tree")
	return strings.TrimSpace(string(out)), err
}

func (s *Store) tooBig(rel string) bool {
	fi, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(rel)))
	return err == nil && fi.Mode().IsRegular() && fi.Size() > s.limit()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// seed starts the private index from the repository's own when the
// workspace is a repository's top folder: its stat data lets git skip
// hashing every file it already knows, and its objects are read through
// alternates rather than copied.
func (s *Store) seed(ctx context.Context) {
	cmd := exec.CommandContext(ctx, "git", append(gitsafe.Options(), "rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir")...)
	cmd.Dir = s.root
	env := []string{}
	for _, kv := range s.env() {
		if k, _, _ := strings.Cut(kv, "="); k != "GIT_DIR" && k != "GIT_WORK_TREE" && k != "GIT_INDEX_FILE" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return // not a repository
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || filepath.Clean(lines[0]) != s.root {
		return
	}
	gitDir, common := abs(s.root, lines[1]), abs(s.root, lines[2])
	data, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Join(s.gitDir, "objects", "info"), 0o700); err != nil {
		return
	}
	alt := filepath.Join(s.gitDir, "objects", "info", "alternates")
	if err := os.WriteFile(alt, []byte(filepath.Join(common, "objects")+"\n"), 0o600); err != nil {
		return
	}
	_ = os.WriteFile(s.index, data, 0o600)
}

func (s *Store) seeded() bool {
	_, err := os.Stat(filepath.Join(s.gitDir, "objects", "info", "alternates"))
	return err == nil
}

// syncExcludes copies the repository's .git/info/exclude into the shadow
// store's, so what the user excludes there is not snapshotted either.
func (s *Store) syncExcludes() {
	src, err := os.ReadFile(filepath.Join(s.root, ".git", "info", "exclude"))
	if err != nil {
		return
	}
	dst := filepath.Join(s.gitDir, "info", "exclude")
	if cur, err := os.ReadFile(dst); err == nil && bytes.Equal(cur, src) {
		return
	}
	_ = os.MkdirAll(filepath.Dir(dst), 0o700)
	_ = os.WriteFile(dst, src, 0o600)
}

func abs(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}

// ForSession returns a store of the same workspace for another session
// (a fork), whose private index starts as a copy of this one's.
func (s *Store) ForSession(session string) *Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := &Store{root: s.root, dir: s.dir, gitDir: s.gitDir, index: filepath.Join(s.dir, "index-"+session), session: session,
		Limit: s.Limit, filters: s.filters, last: s.last, big: map[string]bool{}}
	for k := range s.big {
		n.big[k] = true
	}
	if data, err := os.ReadFile(s.index); err == nil {
		_ = os.WriteFile(n.index, data, 0o600)
	} else {
		n.last = ""
	}
	return n
}
