// Package worktree gives a child agent its own git worktree: a checkout of
// the workspace's HEAD (plus, by default, the user's uncommitted tracked
// changes) outside the user's checkout, on a branch of its own. When the
// child is done, its changes (everything differing from the base, new files
// included) are read back as one change and merged three-way onto the
// user's current files, all or nothing; then the worktree and its branch
// are removed. An ownership record beside each worktree names the covey
// process that made it, so worktrees a crash left behind can be listed and
// pruned.
//
// The package runs the git binary; it knows nothing of agents or the UI.
package worktree

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"covey/internal/procmark"
)

// Base says what a new worktree starts from.
type Base string

// Bases.
const (
	// BaseWorking starts from HEAD plus the user's uncommitted changes to
	// tracked files (staged or not), so the child sees what the user sees.
	// It is the default.
	BaseWorking Base = "working"
	// BaseHead starts from HEAD alone.
	BaseHead Base = "head"
)

// ParseBase validates a configured base; "" is BaseWorking.
func ParseBase(s string) (Base, error) {
	switch Base(strings.ToLower(strings.TrimSpace(s))) {
	case "", BaseWorking:
		return BaseWorking, nil
	case BaseHead:
		return BaseHead, nil
	}
	return "", fmt.Errorf("unknown worktree base %q: use head or working", s)
}

// dirName is the folder, inside the repository's git directory, holding
// covey's worktrees and their ownership records.
const dirName = "covey-worktrees"

// BranchPrefix starts the name of every branch covey creates.
const BranchPrefix = "covey/"

// Repo is the git repository around a workspace. It serialises the
// operations of one process that change the repository's worktrees and
// branches, and the merges onto the user's files. A Repo is safe for
// concurrent use; share one per session.
type Repo struct {
	// Top is the absolute top folder of the user's checkout.
	Top string
	// CommonDir is the absolute git directory shared by all worktrees.
	CommonDir string
	// Prefix is the workspace's folder relative to Top, slash-separated,
	// "" or ending in "/".
	Prefix string

	index string // the user's index file
	// mu is shared by every Repo of one git directory (see At).
	mu *sync.Mutex
}

// Open finds the repository around dir. It fails with ErrNoGit when git is
// missing and ErrNotRepo outside a repository.
func Open(ctx context.Context, dir string) (*Repo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, ErrNoGit
	}
	out, err := git(ctx, dir, nil, "rev-parse", "--show-toplevel", "--git-common-dir", "--git-path", "index", "--show-prefix")
	if err != nil {
		if errors.Is(err, ErrNoGit) {
			return nil, err
		}
		return nil, fmt.Errorf("%s is %w", dir, ErrNotRepo)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 2 || lines[0] == "" {
		return nil, fmt.Errorf("%s is %w (it is a bare repository or a .git folder)", dir, ErrNotRepo)
	}
	r := &Repo{Top: lines[0], CommonDir: lines[1], mu: &sync.Mutex{}}
	if len(lines) > 2 {
		r.index = lines[2]
	}
	if len(lines) > 3 {
		r.Prefix = lines[3]
	}
	if !filepath.IsAbs(r.CommonDir) {
		r.CommonDir = filepath.Join(dir, r.CommonDir)
	}
	if r.index != "" && !filepath.IsAbs(r.index) {
		r.index = filepath.Join(dir, r.index)
	}
	if real, err := filepath.EvalSymlinks(r.Top); err == nil {
		r.Top = real
	}
	if real, err := filepath.EvalSymlinks(r.CommonDir); err == nil {
		r.CommonDir = real
	}
	return r, nil
}

// At opens the checkout at dir, one of r's worktrees (a child's, for its
// own children), sharing r's lock: worktrees made from it and merges into
// it go through the same queue as r's.
func (r *Repo) At(ctx context.Context, dir string) (*Repo, error) {
	sub, err := Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	if sub.CommonDir != r.CommonDir {
		return nil, fmt.Errorf("%s belongs to another repository (%s, not %s)", dir, sub.CommonDir, r.CommonDir)
	}
	sub.mu = r.mu
	return sub, nil
}

// root is the folder holding covey's worktrees and records.
func (r *Repo) root() string { return filepath.Join(r.CommonDir, dirName) }

// Options configure Create.
type Options struct {
	// Name names the child; the branch is covey/<name>-<short id>.
	Name string
	// Base is what the worktree starts from ("" is BaseWorking).
	Base Base
	// Session identifies the covey session that owns the worktree, shown
	// when listing.
	Session string
}

// Worktree is one child's checkout.
type Worktree struct {
	repo *Repo
	rec  Record

	indexMu sync.Mutex
	index   string // the worktree's own index file, found on first use
}

// Path is the worktree's top folder.
func (w *Worktree) Path() string { return w.rec.Path }

// Workdir is the folder matching the user's workspace inside the worktree
// (Path itself unless covey runs in a subfolder of the repository).
func (w *Worktree) Workdir() string {
	return filepath.Join(w.rec.Path, filepath.FromSlash(w.repo.Prefix))
}

// Branch is the worktree's branch (covey/<name>-<id>).
func (w *Worktree) Branch() string { return w.rec.Branch }

// BaseCommit is the commit the worktree started from: HEAD, or a commit on
// top of HEAD holding the user's uncommitted changes.
func (w *Worktree) BaseCommit() string { return w.rec.BaseCommit }

// Record is the worktree's ownership record.
func (w *Worktree) Record() Record { return w.rec }

// BaseDescription says in words what the worktree started from, for the
// child's pane: "HEAD 1a2b3c4 + your uncommitted changes (2 files)".
func (w *Worktree) BaseDescription() string { return w.rec.BaseDescription() }

// Create makes a new worktree for the child opt.Name. The ownership record
// is written before git is asked for anything and removed last, so a crash
// at any point leaves something Prune finds.
func (r *Repo) Create(ctx context.Context, opt Options) (*Worktree, error) {
	base := opt.Base
	if base == "" {
		base = BaseWorking
	}
	head, err := git(ctx, r.Top, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ErrNoCommit
	}
	rec := Record{
		Base:    base,
		Head:    trim(head),
		Repo:    r.Top,
		Session: opt.Session,
		Created: time.Now().UTC().Truncate(time.Second),
		Version: recordVersion,
	}
	rec.setOwner(os.Getpid())
	rec.BaseCommit = rec.Head
	if base == BaseWorking {
		commit, n, err := r.snapshot(ctx, rec.Head, opt.Name)
		if err != nil {
			return nil, err
		}
		rec.BaseCommit, rec.Uncommitted = commit, n
	}
	id, err := shortID()
	if err != nil {
		return nil, err
	}
	rec.Name = sanitize(opt.Name) + "-" + id
	rec.Branch = BranchPrefix + rec.Name
	rec.Path = filepath.Join(r.root(), rec.Name)

	r.mu.Lock()
	defer r.mu.Unlock()
	if err := os.MkdirAll(r.root(), 0o755); err != nil {
		return nil, fmt.Errorf("create worktree folder: %w", err)
	}
	if err := rec.write(r.root()); err != nil {
		return nil, err
	}
	w := &Worktree{repo: r, rec: rec}
	// A cancelled context must not leave a half-made worktree: the add
	// itself runs to its end, and a failure cleans up. Its processes carry
	// a mark naming the worktree, so if covey dies meanwhile, Prune can
	// find and stop them before removing what they were writing.
	addCtx := context.WithoutCancel(ctx)
	if _, err := git(addCtx, r.Top, []string{creatorEnv(rec.Path)}, "worktree", "add", "--quiet",
		"-b", rec.Branch, rec.Path, rec.BaseCommit); err != nil {
		_ = w.removeLocked(addCtx)
		return nil, fmt.Errorf("create worktree: %w", err)
	}
	// Only now is the checkout whole: until this record is on disk, the
	// worktree can be pruned but never applied.
	w.rec.Complete = true
	if err := w.rec.write(r.root()); err != nil {
		_ = w.removeLocked(addCtx)
		return nil, err
	}
	return w, nil
}

// creatorVar marks the processes of a `git worktree add`; its value is the
// worktree's path.
const creatorVar = "COVEY_WORKTREE_ADD"

func creatorEnv(path string) string { return creatorVar + "=" + path }

// stopCreators stops a `git worktree add` of path still running after the
// covey that started it died (its checkout of a large repository goes on
// writing files), so the folder can be removed without "Directory not
// empty".
func stopCreators(path string) error {
	pids := procmark.Find(creatorEnv(path))
	if len(pids) == 0 {
		return nil
	}
	if err := procmark.Stop(pids, 10*time.Second); err != nil {
		return fmt.Errorf("stop the git worktree add still creating %s: %w", path, err)
	}
	return nil
}

// snapshot commits HEAD plus the uncommitted changes to tracked files
// without touching the user's index or files: it works on a copy of the
// index. It returns HEAD itself when nothing is uncommitted, and how many
// files differ.
func (r *Repo) snapshot(ctx context.Context, head, name string) (string, int, error) {
	idx, cleanup, err := tempIndex(ctx, r.Top, r.index)
	if err != nil {
		return "", 0, err
	}
	defer cleanup()
	env := []string{"GIT_INDEX_FILE=" + idx}
	if _, err := git(ctx, r.Top, env, "add", "--update", "--", ":/"); err != nil {
		return "", 0, fmt.Errorf("read your uncommitted changes: %w", err)
	}
	tree, err := git(ctx, r.Top, env, "write-tree")
	if err != nil {
		return "", 0, fmt.Errorf("read your uncommitted changes: %w", err)
	}
	names, err := git(ctx, r.Top, nil, "diff-tree", "-r", "-z", "--name-only", "--no-renames", head, trim(tree))
	if err != nil {
		return "", 0, fmt.Errorf("read your uncommitted changes: %w", err)
	}
	n := countNUL(names)
	if n == 0 {
		return head, 0, nil
	}
	commit, err := git(ctx, r.Top, identityEnv(), "commit-tree", trim(tree), "-p", head,
		"-m", fmt.Sprintf("covey: your uncommitted changes when %s started", name))
	if err != nil {
		return "", 0, fmt.Errorf("record your uncommitted changes: %w", err)
	}
	return trim(commit), n, nil
}

// identityEnv names covey as the author of the commits it makes for its own
// bookkeeping, so they work without a configured user.
func identityEnv() []string {
	return []string{
		"GIT_AUTHOR_NAME=covey", "GIT_AUTHOR_EMAIL=covey@localhost",
		"GIT_COMMITTER_NAME=covey", "GIT_COMMITTER_EMAIL=covey@localhost",
	}
}

// tempIndex copies the index of the checkout at dir to a temporary file
// (keeping git's cached file stats, so reading the tree stays fast) and
// returns its path and a function that removes it.
func tempIndex(ctx context.Context, dir, src string) (string, func(), error) {
	if src == "" {
		var err error
		if src, err = indexPath(ctx, dir); err != nil {
			return "", nil, err
		}
	}
	f, err := os.CreateTemp("", "covey-index-*")
	if err != nil {
		return "", nil, fmt.Errorf("temporary index: %w", err)
	}
	name := f.Name()
	cleanup := func() { _ = os.Remove(name) }
	data, err := os.ReadFile(src)
	if errors.Is(err, os.ErrNotExist) {
		// No index yet: start from HEAD's tree (git wants no file at all
		// rather than an empty one).
		_ = f.Close()
		cleanup()
		if _, err := git(ctx, dir, []string{"GIT_INDEX_FILE=" + name}, "read-tree", "HEAD"); err != nil {
			cleanup()
			return "", nil, fmt.Errorf("temporary index: %w", err)
		}
		return name, cleanup, nil
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The copy keeps the index's time: git trusts a file whose size
		// and time (in whole seconds) match its entry unless the entry is
		// as new as the index itself ("racy git"), and a copy made a
		// moment later would hide a same-size edit made in the second
		// the index was written.
		var info os.FileInfo
		if info, err = os.Stat(src); err == nil {
			err = os.Chtimes(name, info.ModTime(), info.ModTime())
		}
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("temporary index: %w", err)
	}
	return name, cleanup, nil
}

// indexPath finds the index file of the checkout at dir.
func indexPath(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, nil, "rev-parse", "--git-path", "index")
	if err != nil {
		return "", fmt.Errorf("find the index: %w", err)
	}
	src := trim(out)
	if !filepath.IsAbs(src) {
		src = filepath.Join(dir, src)
	}
	return src, nil
}

// Remove deletes the worktree, its branch and its record. It does what it
// can when parts are already gone, and is safe to call twice.
func (w *Worktree) Remove(ctx context.Context) error {
	w.repo.mu.Lock()
	defer w.repo.mu.Unlock()
	return w.removeLocked(ctx)
}

func (w *Worktree) removeLocked(ctx context.Context) error {
	return removeRecord(ctx, w.repo, w.rec)
}

// removeRecord removes what rec describes: the worktree (even with changes
// or locked), then the branch, then the record itself, last, so an
// interrupted removal can be finished by Prune.
func removeRecord(ctx context.Context, r *Repo, rec Record) error {
	if why := r.validate(rec); why != "" {
		return fmt.Errorf("refusing the forged record %s: %s", rec.recordPath(r.root()), why)
	}
	if !rec.Complete {
		if err := stopCreators(rec.Path); err != nil {
			return err
		}
		// git locks a worktree while it creates it; a crash leaves the
		// lock, which would keep `git worktree prune` from forgetting it.
		_, _ = git(ctx, r.Top, nil, "worktree", "unlock", rec.Path)
	}
	var errs []error
	removed := false
	if _, err := os.Stat(rec.Path); err == nil {
		_, err := git(ctx, r.Top, nil, "worktree", "remove", "--force", "--force", rec.Path)
		removed = err == nil
		if err != nil {
			// git may not know the folder (a crash before it was
			// registered): remove it by hand.
			if rerr := os.RemoveAll(rec.Path); rerr != nil {
				errs = append(errs, fmt.Errorf("remove worktree %s: %w", rec.Path, err))
			}
		}
	}
	if !removed {
		// Forget a worktree whose folder is gone.
		if _, err := git(ctx, r.Top, nil, "worktree", "prune"); err != nil {
			errs = append(errs, err)
		}
	}
	if rec.Branch != "" && strings.HasPrefix(rec.Branch, BranchPrefix) {
		if _, err := git(ctx, r.Top, nil, "branch", "-D", "--quiet", rec.Branch); err != nil {
			// Already gone is fine; anything else is not.
			if _, verr := git(ctx, r.Top, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+rec.Branch); verr == nil {
				errs = append(errs, fmt.Errorf("delete branch %s: %w", rec.Branch, err))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := os.Remove(rec.recordPath(r.root())); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove worktree record: %w", err)
	}
	return nil
}

// Keep commits everything the child changed onto its branch (so `git diff`,
// `git merge` and `git log` show it from the user's checkout) and leaves
// the worktree in place, marked as kept: from then on `covey worktrees`
// may apply or prune it, even while the session that made it runs. It returns the commit, or "" when nothing changed.
func (w *Worktree) Keep(ctx context.Context, message string) (string, error) {
	w.repo.mu.Lock()
	defer w.repo.mu.Unlock()
	// Marked first: whatever happens next, no child works here any more,
	// so it may be applied or pruned even while its session runs.
	w.rec.Kept = true
	if err := w.rec.write(w.repo.root()); err != nil {
		return "", err
	}
	if _, err := git(ctx, w.rec.Path, nil, "add", "--all", "--", ":/"); err != nil {
		return "", fmt.Errorf("keep the child's changes: %w", err)
	}
	if _, err := git(ctx, w.rec.Path, nil, "diff", "--cached", "--quiet"); err == nil {
		out, err := git(ctx, w.rec.Path, nil, "rev-parse", "HEAD")
		return trim(out), err
	}
	if _, err := git(ctx, w.rec.Path, identityEnv(), "commit", "--quiet", "--no-verify", "-m", message); err != nil {
		return "", fmt.Errorf("keep the child's changes: %w", err)
	}
	out, err := git(ctx, w.rec.Path, nil, "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("keep the child's changes: %w", err)
	}
	return trim(out), nil
}

// sanitize makes name fit a branch and folder name: lower case letters,
// digits, '-', '_' and '.', no leading dot, at most 40 bytes.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-.")
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	s = strings.ReplaceAll(s, "..", ".")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-.")
	}
	if s == "" {
		s = "child"
	}
	return s
}

func shortID() (string, error) {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("worktree id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func countNUL(b []byte) int {
	n := 0
	for _, c := range b {
		if c == 0 {
			n++
		}
	}
	return n
}

// Repo is the repository the worktree was made from; its changes apply
// onto that repository's checkout.
func (w *Worktree) Repo() *Repo { return w.repo }
