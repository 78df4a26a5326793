// Package workspace is the folder covey's tools act in: its paths, the
// files it shows (git's ignore rules), atomic writes and the temporary
// files they leave when killed, the locks and read records that keep agents
// from overwriting each other, covey's own settings kept from commands, and
// the undo log. It knows no tool, agent or UI.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"covey/internal/safefile"
)

// Workspace is the folder the tools act in. Relative paths resolve against
// its Root; writes outside it are refused. It also knows which files are
// visible (not ignored, git's rules): see Files and ListDir. A Workspace is
// safe for concurrent use and is shared by all agents of a session.
type Workspace struct {
	// Root is absolute and has its symlinks resolved.
	Root string

	mu      sync.Mutex
	cache   *fileSet         // the last listing of Root, nil when invalidated
	loading *listCall        // the listing in flight, shared by concurrent callers
	gen     uint64           // bumped by Invalidate; listings of older generations are dropped
	clock   func() time.Time // nil means time.Now; tests set it

	settings SettingsGuard // covey's own settings, kept from commands

	readMem     *MemBudget // file content held by reads at once (see ReadMemory)
	readMemOnce sync.Once

	writeMu  sync.Mutex
	writeSeq uint64            // counts file-tool writes
	written  map[string]uint64 // absolute path → writeSeq of its last file-tool write
}

// Settings guards covey's own settings in the workspace from the commands
// run in it (see SettingsGuard).
func (w *Workspace) Settings() *SettingsGuard { return &w.settings }

// NoteWrite records that a file tool writes abs now: a command running
// meanwhile did not make that change (WrittenSince).
func (w *Workspace) NoteWrite(abs string) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	w.writeSeq++
	if w.written == nil {
		w.written = map[string]uint64{}
	}
	w.written[abs] = w.writeSeq
}

// WriteSeq is a mark to pass to WrittenSince later.
func (w *Workspace) WriteSeq() uint64 {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	return w.writeSeq
}

// WrittenSince reports whether a file tool wrote abs after mark.
func (w *Workspace) WrittenSince(abs string, mark uint64) bool {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	return w.written[abs] > mark
}

func (w *Workspace) now() time.Time {
	if w.clock != nil {
		return w.clock()
	}
	return time.Now()
}

// ErrOutsideWorkspace is returned for a write whose target lies outside the
// workspace root once symlinks are resolved.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// NewWorkspace returns a workspace rooted at root.
func NewWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	return &Workspace{Root: real}, nil
}

// Resolve turns p (absolute, relative to the root, or starting with ~/) into
// a clean absolute path. It does not require the path to exist.
func (w *Workspace) Resolve(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Root, p)
	}
	return filepath.Clean(p)
}

// ResolveWrite resolves p for writing: the result, with every symlink of its
// existing part resolved, must lie inside the root.
//
// Resolving for a write also drops the cached file listing, since the
// caller is about to change the tree.
func (w *Workspace) ResolveWrite(p string) (string, error) {
	w.Invalidate()
	abs := w.Resolve(p)
	real, err := evalExisting(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", p, err)
	}
	if !w.Contains(real) {
		return "", fmt.Errorf("%s: %w (%s)", p, ErrOutsideWorkspace, w.Root)
	}
	return real, nil
}

// Contains reports whether the absolute path abs lies inside the root.
func (w *Workspace) Contains(abs string) bool {
	rel, err := filepath.Rel(w.Root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// Rel returns abs relative to the root with forward slashes, or abs itself
// when it lies outside.
func (w *Workspace) Rel(abs string) string {
	if !w.Contains(abs) {
		return abs
	}
	rel, _ := filepath.Rel(w.Root, abs)
	return filepath.ToSlash(rel)
}

// evalExisting resolves the symlinks of the longest existing prefix of p and
// appends the rest, so a new file's path can be checked before it exists. A
// dangling symlink on the way is followed to its target, where a write
// through it lands (docs/l -> ../src before src exists).
func evalExisting(p string) (string, error) { return evalExistingHops(p, 0) }

func evalExistingHops(p string, hops int) (string, error) {
	var rest []string
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if target, err := os.Readlink(cur); err == nil {
			if hops >= 40 {
				return "", fmt.Errorf("%s: too many levels of symbolic links", p)
			}
			if !filepath.IsAbs(target) {
				dir, err := evalExistingHops(parent, hops+1)
				if err != nil {
					return "", err
				}
				target = filepath.Join(dir, target)
			}
			for i := len(rest) - 1; i >= 0; i-- {
				target = filepath.Join(target, rest[i])
			}
			return evalExistingHops(target, hops+1)
		}
		if parent == cur {
			return p, nil
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// listingTTL bounds how long a cached listing of the workspace is trusted.
// Writes through ResolveWrite, Invalidate and a change of the git index drop
// it sooner; the TTL covers what none of those see (files a command made).
const listingTTL = 2 * time.Second

// fileSet is one listing of the visible files under a directory.
type fileSet struct {
	root  string   // absolute directory the paths are relative to
	files []string // sorted slash paths relative to root
	// rootClean says filepath.Clean leaves root alone, so a clean path
	// below it is root, a separator and the path (see joinClean).
	rootClean bool
	// gitDir is the repository's git directory when git produced the
	// listing; ignore questions about directories then go to git too.
	gitDir string
	// base holds the repository-wide rules (info/exclude) applied by the
	// walker when git itself is unavailable.
	base     *ignoreStack
	at       time.Time
	gen      uint64
	indexMod time.Time // mtime of the git index when listed
}

// listCall is a listing in progress that concurrent callers wait for.
type listCall struct {
	done chan struct{}
	fs   *fileSet
	err  error
	gen  uint64
}

// Invalidate drops the cached listing so the next call of Files, ListDir,
// glob or grep sees the tree as it is now. Tools that change files without
// ResolveWrite (e.g. a shell command) should call it when they finish.
func (w *Workspace) Invalidate() {
	w.mu.Lock()
	w.gen++
	w.cache = nil
	w.mu.Unlock()
}

// Files returns the visible files under dir (absolute, or relative to the
// root), sorted: paths relative to the root with forward slashes, or
// absolute paths when dir lies outside the root. Visible means what git
// would list with `git ls-files --cached --others --exclude-standard` in a
// repository, and what .gitignore files leave elsewhere; .git is never
// included, nor a tracked file that no longer exists on disk.
func (w *Workspace) Files(ctx context.Context, dir string) ([]string, error) {
	v, err := w.VisibleUnder(ctx, w.Resolve(dir))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(v.rels))
	for _, rel := range v.rels {
		if fi, err := os.Lstat(v.Abs(rel)); err != nil || fi.IsDir() {
			continue // deleted but still in the index, or a submodule
		}
		out = append(out, v.Display(w, rel))
	}
	return out, nil
}

// Visible is the set of visible files under one directory.
type Visible struct {
	set    *fileSet
	prefix string   // the directory relative to set.root, "" for the root itself
	rels   []string // paths relative to set.root, all under prefix
	// inIgnored is set when the directory itself is ignored and was named
	// explicitly: rels then holds everything below it that its own nested
	// .gitignore files leave, as ripgrep does for an explicit path.
	inIgnored bool
}

// openIgnored fills rels by walking abs when the directory is ignored (the
// listing holds nothing under it for that reason, not for being empty).
func (v *Visible) openIgnored(ctx context.Context, abs string) error {
	ign, err := v.ignored(ctx, []string{v.prefix})
	if err != nil || !ign[v.prefix] {
		return nil //nolint:nilerr // not ignored, or git cannot say: keep the empty answer
	}
	files, err := walkVisible(ctx, abs, nil)
	if err != nil {
		return err
	}
	for i, f := range files {
		files[i] = v.prefix + "/" + f
	}
	v.rels, v.inIgnored = files, true
	return nil
}

// Prefix is the directory the set lists, relative to the listing's root
// ("" for the root itself).
func (v *Visible) Prefix() string { return v.prefix }

// Rels are the set's paths, slash paths relative to the listing's root, all
// under Prefix, sorted.
func (v *Visible) Rels() []string { return v.rels }

// Abs is the absolute path of rel, a path of Rels.
func (v *Visible) Abs(rel string) string {
	return joinClean(v.set.root, v.set.rootClean, rel)
}

// joinClean is filepath.Join(root, rel) for a clean root and a slash path
// rel. The listing's paths are clean already, so the common case is a
// concatenation: Join cleans the whole result, which cost grep some 1,700
// instructions a file (6% of a search of GOROOT/src).
func joinClean(root string, rootClean bool, rel string) string {
	if !rootClean || root == "" || !isCleanRel(rel) {
		return filepath.Join(root, filepath.FromSlash(rel))
	}
	if os.IsPathSeparator(root[len(root)-1]) {
		return root + filepath.FromSlash(rel)
	}
	return root + string(filepath.Separator) + filepath.FromSlash(rel)
}

// isCleanRel reports whether rel is a relative slash path that
// filepath.Clean would leave alone: not empty, no leading or trailing
// slash, no empty, "." or ".." element.
func isCleanRel(rel string) bool {
	n := len(rel)
	if n == 0 || rel[0] == '/' || rel[n-1] == '/' {
		return false
	}
	for i := 0; ; {
		// rel[i:] starts an element: it may be neither empty, "." nor "..".
		if rel[i] == '/' {
			return false
		}
		if rel[i] == '.' {
			j := i + 1
			if j < n && rel[j] == '.' {
				j++
			}
			if j == n || rel[j] == '/' {
				return false
			}
		}
		k := strings.IndexByte(rel[i:], '/')
		if k < 0 {
			break
		}
		i += k + 1
	}
	return filepath.Separator == '/' || !strings.ContainsRune(rel, filepath.Separator)
}

// Display is how a path is shown to the model: relative to the workspace
// root when inside it, absolute otherwise.
func (v *Visible) Display(w *Workspace, rel string) string {
	if v.set.root == w.Root {
		return rel
	}
	return filepath.ToSlash(v.Abs(rel))
}

// under reports the slice of sorted paths lying below the directory dir
// ("" for all of them).
func under(paths []string, dir string) []string {
	if dir == "" {
		return paths
	}
	lo := sort.SearchStrings(paths, dir+"/")
	hi := sort.SearchStrings(paths, dir+"0") // '0' is the byte after '/'
	return paths[lo:hi]
}

// VisibleUnder lists the visible files under the absolute directory abs,
// from the workspace's cached listing when abs is inside the root.
func (w *Workspace) VisibleUnder(ctx context.Context, abs string) (*Visible, error) {
	if w.Contains(abs) {
		set, err := w.listing(ctx)
		if err != nil {
			return nil, err
		}
		prefix := w.Rel(abs)
		if prefix == "." {
			prefix = ""
		}
		v := &Visible{set: set, prefix: prefix, rels: under(set.files, prefix)}
		if len(v.rels) == 0 && prefix != "" {
			if err := v.openIgnored(ctx, abs); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
	set, err := listFiles(ctx, abs)
	if err != nil {
		return nil, err
	}
	return &Visible{set: set, rels: set.files}, nil
}

// listing returns the cached listing of the root, listing anew when it is
// missing, too old, invalidated or the git index changed. Concurrent callers
// share one listing.
func (w *Workspace) listing(ctx context.Context) (*fileSet, error) {
	for {
		w.mu.Lock()
		if c := w.freshLocked(); c != nil {
			w.mu.Unlock()
			return c, nil
		}
		call := w.loading
		if call == nil || call.gen != w.gen {
			call = &listCall{done: make(chan struct{}), gen: w.gen}
			w.loading = call
			go w.load(ctx, call)
		}
		w.mu.Unlock()
		select {
		case <-call.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if call.err == nil {
			return call.fs, nil
		}
		// The leader's context may have ended while ours goes on: retry.
		if ctx.Err() == nil && (errors.Is(call.err, context.Canceled) || errors.Is(call.err, context.DeadlineExceeded)) {
			continue
		}
		return nil, call.err
	}
}

// freshLocked is the cached listing when it may still be used, else nil.
// w.mu is held.
func (w *Workspace) freshLocked() *fileSet {
	if c := w.cache; c != nil && c.gen == w.gen && w.now().Sub(c.at) < listingTTL && c.indexMod.Equal(indexModTime(c.gitDir)) {
		return c
	}
	return nil
}

// EachVisible calls emit with the visible files under the absolute
// directory abs, in the order of VisibleUnder's rels, and returns the
// visible set they belong to (for its Abs and Display; its rels may be
// partial). Where VisibleUnder would walk a directory that is not a git
// repository (no listing cached), the files are handed over as the walk
// finds them instead of after it, and a complete walk of the root is
// cached as VisibleUnder's would be. emit returning false stops early.
func (w *Workspace) EachVisible(ctx context.Context, abs string, emit func(v *Visible, rel string) bool) (*Visible, error) {
	root := ""
	var gen uint64
	if w.Contains(abs) {
		if w.Rel(abs) == "." {
			w.mu.Lock()
			if w.freshLocked() == nil {
				root, gen = w.Root, w.gen
			}
			w.mu.Unlock()
		}
	} else {
		root = abs
	}
	if root != "" && findGitDir(root) == "" {
		if fi, err := os.Stat(root); err == nil && fi.IsDir() {
			return w.streamWalk(ctx, root, gen, emit)
		}
	}
	v, err := w.VisibleUnder(ctx, abs)
	if err != nil {
		return nil, err
	}
	for _, rel := range v.rels {
		if !emit(v, rel) {
			break
		}
	}
	return v, nil
}

// streamWalk is EachVisible's walk of root, which is w.Root (listed at
// generation gen) or a directory outside it.
func (w *Workspace) streamWalk(ctx context.Context, root string, gen uint64, emit func(v *Visible, rel string) bool) (*Visible, error) {
	start := w.now()
	set := &fileSet{root: root, rootClean: root == filepath.Clean(root), at: start}
	v := &Visible{set: set}
	err := walkVisibleFunc(ctx, root, nil, func(rel string) bool {
		set.files = append(set.files, rel)
		return emit(v, rel)
	})
	v.rels = set.files
	if errors.Is(err, errWalkStopped) {
		return v, nil
	}
	if err != nil {
		return nil, err // as listFiles returns it
	}
	if root == w.Root {
		w.mu.Lock()
		if gen == w.gen {
			set.gen = gen
			w.cache = set
		}
		w.mu.Unlock()
	}
	return v, nil
}

// load runs one listing for listing's callers and caches its result.
func (w *Workspace) load(ctx context.Context, call *listCall) {
	start := w.now()
	set, err := listFiles(ctx, w.Root)
	w.mu.Lock()
	defer w.mu.Unlock()
	call.fs, call.err = set, err
	if err == nil {
		set.gen, set.at = call.gen, start
		if call.gen == w.gen {
			w.cache = set
		}
	}
	if w.loading == call {
		w.loading = nil
	}
	close(call.done)
}

// listFiles lists the visible files under the absolute directory root: with
// git inside a repository, with the .gitignore walker elsewhere (or when git
// fails, e.g. it is not installed or distrusts the repository's owner).
func listFiles(ctx context.Context, root string) (*fileSet, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("list files in %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("list files in %s: not a directory", root)
	}
	start := time.Now()
	gitDir := findGitDir(root)
	var base *ignoreStack
	if gitDir != "" {
		mod := indexModTime(gitDir)
		files, gerr := gitListFiles(ctx, root)
		if gerr == nil {
			return &fileSet{root: root, rootClean: root == filepath.Clean(root), files: files, gitDir: gitDir, at: start, indexMod: mod}, nil
		}
		if ctx.Err() != nil {
			return nil, gerr
		}
		// Fall back to our own matcher, with the repository's exclude file.
		if data, err := safefile.Read(filepath.Join(gitDir, "info", "exclude"), maxIgnoreFile); err == nil {
			base = (&ignoreStack{}).with(parseIgnore(data, ""))
		}
	}
	files, err := walkVisible(ctx, root, base)
	if err != nil {
		return nil, err
	}
	return &fileSet{root: root, rootClean: root == filepath.Clean(root), files: files, base: base, at: start}, nil
}

// ListDir returns the visible entries of the directory dir (absolute, or
// relative to the root), sorted by name. A file is visible when Files would
// list it; a directory when it holds a visible file, or holds no file at all
// and is not ignored itself. .git is never returned. When dir is itself
// ignored (nothing visible below it), all its entries are returned and
// ignored reports it, so an explicit look inside an ignored folder works.
func (w *Workspace) ListDir(ctx context.Context, dir string) (entries []os.DirEntry, ignored bool, err error) {
	abs := w.Resolve(dir)
	all, err := os.ReadDir(abs)
	if err != nil {
		return nil, false, fmt.Errorf("list %s: %w", dir, err)
	}
	all = slices.DeleteFunc(all, func(e os.DirEntry) bool { return e.Name() == ".git" })
	v, err := w.VisibleUnder(ctx, abs)
	if err != nil {
		return nil, false, err
	}
	if v.inIgnored {
		return all, true, nil
	}
	join := func(name string) string {
		if v.prefix == "" {
			return name
		}
		return v.prefix + "/" + name
	}
	var out []os.DirEntry
	var maybe []string // directories holding no visible file
	for _, e := range all {
		rel := join(e.Name())
		if !e.IsDir() {
			if i := sort.SearchStrings(v.rels, rel); i < len(v.rels) && v.rels[i] == rel {
				out = append(out, e)
			}
			continue
		}
		if len(under(v.rels, rel)) > 0 {
			out = append(out, e)
		} else if !holdsFile(filepath.Join(abs, e.Name())) {
			maybe = append(maybe, rel)
		}
	}
	if len(maybe) > 0 {
		ign, err := v.ignored(ctx, maybe)
		if err != nil {
			return nil, false, err
		}
		for _, e := range all {
			if e.IsDir() && slices.Contains(maybe, join(e.Name())) && !ign[join(e.Name())] {
				out = append(out, e)
			}
		}
		slices.SortFunc(out, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	return out, false, nil
}

// ignored reports which directories (relative to the listing root) the
// ignore rules exclude, asking git when git made the listing.
func (v *Visible) ignored(ctx context.Context, dirs []string) (map[string]bool, error) {
	if len(dirs) == 1 && dirs[0] == "" {
		return map[string]bool{}, nil // the root itself is never ignored
	}
	if v.set.gitDir != "" {
		return gitIgnored(ctx, v.set.root, dirs)
	}
	res := map[string]bool{}
	for _, d := range dirs {
		parent, _ := splitRel(d)
		if ignoreStackFor(v.set.root, parent, v.set.base).ignored(d, true) {
			res[d] = true
		}
	}
	return res, nil
}

// splitRel splits a slash path into its parent ("" at the top) and name.
func splitRel(rel string) (parent, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}

// holdsFile reports whether dir contains anything but directories at any
// depth; it stops at the first such entry.
func holdsFile(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if !e.IsDir() || holdsFile(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}
