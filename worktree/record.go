package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"covey/internal/plural"
	"covey/internal/procmark"
)

// Record is the ownership record of one worktree covey created, kept as
// JSON beside the worktree in the repository's git directory (where the
// child cannot touch it).
type Record struct {
	// Name is the worktree's folder name, <child>-<short id>.
	Name   string `json:"name"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
	// Repo is the top folder of the user's checkout.
	Repo string `json:"repo"`
	Base Base   `json:"base"`
	// Head is the user's HEAD when the worktree was made; BaseCommit the
	// commit it started from (Head, or a commit of the user's uncommitted
	// changes on top of it); Uncommitted how many files that commit holds.
	Head        string `json:"head"`
	BaseCommit  string `json:"base_commit"`
	Uncommitted int    `json:"uncommitted,omitempty"`
	// PID is the owning covey process; PIDStart its start time as the
	// kernel counts it, so a reused PID is not mistaken for the owner.
	PID      int       `json:"pid"`
	PIDStart string    `json:"pid_start,omitempty"`
	Session  string    `json:"session,omitempty"`
	Created  time.Time `json:"created"`
	// Kept says the child is done with it and its change was kept (a
	// conflict, nobody to ask, a cancelled turn): no session will touch it
	// again.
	Kept bool `json:"kept,omitempty"`
	// Complete says `git worktree add` finished: the checkout holds every
	// file of its base. It is written only after git returns, so a crash
	// during the checkout leaves a record without it, and a half-made
	// worktree (whose missing files would read as deletions) is never
	// applied, only pruned.
	Complete bool `json:"complete,omitempty"`
	// Version is recordVersion for records that say Complete; an older
	// record (0) is judged by git's own mark of an unfinished add.
	Version int `json:"version,omitempty"`

	// Forged says why covey will not act on this record: it names a
	// folder that is not its own under covey's worktree folder. Records
	// live in the git directory, which the model's commands can write;
	// covey checks what it reads back before removing or applying
	// anything (see validate).
	Forged string `json:"-"`
	// Registered says git lists the worktree (git worktree list).
	Registered bool `json:"-"`
}

// recordVersion is the version of records that carry Complete.
const recordVersion = 2

// gitFinished reports whether git finished creating the worktree at path,
// for a record older than Complete: git keeps its administrative folder
// locked as "initializing" until the checkout is done. The folder is found
// by its name, not through the worktree's .git file, which the child could
// have rewritten.
func (r *Repo) gitFinished(path string) bool {
	admin := filepath.Join(r.CommonDir, "worktrees", filepath.Base(path))
	if _, err := os.Stat(filepath.Join(path, ".git")); err != nil {
		return false
	}
	if _, err := os.Stat(admin); err != nil {
		return false
	}
	lock, err := os.ReadFile(filepath.Join(admin, "locked"))
	return err != nil || !strings.HasPrefix(string(lock), "initializing")
}

// Usable reports whether the worktree's checkout is whole, so its
// difference from the base is the child's work: its creation was recorded
// complete, or it was kept (which only a finished creation allows).
func (r Record) Usable() bool { return r.Complete || r.Kept }

// ErrIncomplete refuses to apply a worktree whose creation never finished.
var ErrIncomplete = errors.New("it was never completely created (covey stopped while git was checking it out), so every file not yet checked out would be taken for a deletion; `covey worktrees prune` removes it and leaves your files alone")

// BaseDescription says what the worktree started from, in words.
func (r Record) BaseDescription() string {
	s := "HEAD " + short(r.Head)
	if r.Uncommitted > 0 {
		s += fmt.Sprintf(" + your uncommitted changes (%d %s)", r.Uncommitted, plural.Noun(r.Uncommitted, "file"))
	} else if r.Base == BaseWorking {
		s += " (no uncommitted changes)"
	} else if r.Base == BaseHead {
		s += " (worktree.base head: your uncommitted changes are not in it)"
	}
	return s
}

func (r Record) recordPath(root string) string { return filepath.Join(root, r.Name+".json") }

func (r *Record) setOwner(pid int) {
	r.PID = pid
	r.PIDStart = procmark.StartTime(pid)
}

// write stores the record atomically.
func (r Record) write(root string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("worktree record: %w", err)
	}
	tmp, err := os.CreateTemp(root, ".record-*")
	if err != nil {
		return fmt.Errorf("worktree record: %w", err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), r.recordPath(root))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("worktree record: %w", err)
	}
	return nil
}

// Live reports whether the process that owns the worktree is still
// running (and is the same process, not a later one given its PID, nor a
// zombie, which owns nothing any more).
func (r Record) Live() bool {
	if r.PID <= 0 {
		return false
	}
	return procmark.Alive(strconv.Itoa(r.PID) + "." + r.PIDStart)
}

// Entry is one worktree covey created, as listed.
type Entry struct {
	Record
	// Live says a running covey process owns it.
	Live bool
	// Missing says the worktree's folder is gone (a crash mid-removal).
	Missing bool
	// Changed counts the files differing from its base; -1 when unknown.
	Changed int
}

// List returns the worktrees covey created in this repository, oldest
// first, whoever owns them.
func (r *Repo) List(ctx context.Context) ([]Entry, error) {
	return r.entries(ctx, func(Record) bool { return true })
}

// Orphans returns the worktrees covey created that no running covey will
// touch again: their owner has exited, or they were kept.
func (r *Repo) Orphans(ctx context.Context) ([]Entry, error) {
	return r.entries(ctx, func(rec Record) bool { return rec.Kept || !rec.Live() })
}

// entries lists the records keep accepts, with their state and how many
// files each changed.
func (r *Repo) entries(ctx context.Context, keep func(Record) bool) ([]Entry, error) {
	recs, err := r.records(ctx)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, rec := range recs {
		if !keep(rec) {
			continue
		}
		e := Entry{Record: rec, Live: rec.Live(), Changed: -1}
		if rec.Forged != "" {
			out = append(out, e)
			continue // nothing is read from a folder it names
		}
		if _, err := os.Stat(rec.Path); err != nil {
			e.Missing = true
		} else if rec.BaseCommit != "" && rec.Usable() && rec.Registered {
			w := &Worktree{repo: r, rec: rec}
			if ch, err := w.Diff(ctx); err == nil {
				e.Changed = len(ch)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// Prune removes the worktrees, branches and records of every orphan and
// returns what it removed. It goes on past a failure and reports them all.
func (r *Repo) Prune(ctx context.Context) ([]Entry, error) {
	orphans, err := r.Orphans(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var done []Entry
	var errs []error
	for _, e := range orphans {
		if e.Forged != "" {
			errs = append(errs, fmt.Errorf("refusing the forged record %s: %s; nothing was removed for it (delete the record file yourself once you have looked at it)",
				e.recordPath(r.root()), e.Forged))
			continue
		}
		if err := removeRecord(ctx, r, e.Record); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Name, err))
			continue
		}
		done = append(done, e)
	}
	return done, errors.Join(errs...)
}

// records reads every ownership record, plus a bare entry for a worktree
// folder whose record is missing (so nothing covey made stays hidden).
func (r *Repo) records(ctx context.Context) ([]Record, error) {
	ents, err := os.ReadDir(r.root())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	seen := map[string]bool{}
	var recs []Record
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(r.root(), name))
		if err != nil {
			return nil, fmt.Errorf("read worktree record: %w", err)
		}
		var rec Record
		if err := json.Unmarshal(data, &rec); err != nil || rec.Name+".json" != name {
			// A damaged record still names a worktree covey made.
			rec = Record{Name: strings.TrimSuffix(name, ".json")}
			rec.Path = filepath.Join(r.root(), rec.Name)
			rec.Branch = BranchPrefix + rec.Name
		}
		if rec.Version < recordVersion && !rec.Complete {
			rec.Complete = r.gitFinished(rec.Path)
		}
		seen[rec.Name] = true
		recs = append(recs, rec)
	}
	for _, e := range ents {
		if e.IsDir() && !seen[e.Name()] {
			recs = append(recs, Record{Name: e.Name(), Path: filepath.Join(r.root(), e.Name()), Branch: BranchPrefix + e.Name()})
		}
	}
	registered, err := r.registered(ctx)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		recs[i].Forged = r.validate(recs[i])
		recs[i].Registered = registered[recs[i].Path]
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if !recs[i].Created.Equal(recs[j].Created) {
			return recs[i].Created.Before(recs[j].Created)
		}
		return recs[i].Name < recs[j].Name
	})
	return recs, nil
}

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}

// Adopt returns the worktree a record describes, found by its name or
// branch, so a worktree left behind can be applied or removed. A worktree a
// running covey owns is refused: that session will review it.
func (r *Repo) Adopt(ctx context.Context, nameOrBranch string) (*Worktree, error) {
	all, err := r.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range all {
		if e.Name != nameOrBranch && e.Branch != nameOrBranch {
			continue
		}
		switch {
		case e.Forged != "":
			return nil, fmt.Errorf("refusing the forged record %s: %s", e.recordPath(r.root()), e.Forged)
		case e.Live && !e.Kept:
			return nil, fmt.Errorf("%s belongs to a running covey (pid %d) whose child still works there; that session reviews the change", e.Branch, e.PID)
		case e.Missing || e.BaseCommit == "":
			return nil, fmt.Errorf("%s has no usable worktree or record left; `covey worktrees prune` removes what remains", e.Branch)
		case !e.Usable():
			return nil, fmt.Errorf("refusing to apply %s: %w", e.Branch, ErrIncomplete)
		case !e.Registered:
			return nil, fmt.Errorf("refusing to apply %s: git does not list %s as a worktree of this repository; `covey worktrees prune` removes what remains", e.Branch, e.Path)
		}
		return &Worktree{repo: r, rec: e.Record}, nil
	}
	return nil, fmt.Errorf("no worktree made by covey is named %q here (`covey worktrees` lists them)", nameOrBranch)
}

// validate says why rec may not be acted on, "" when it may: its name is
// one folder name, its path is that folder in covey's worktree folder
// (and no symbolic link out of it), its branch one of covey's.
func (r *Repo) validate(rec Record) string {
	root := r.root()
	switch {
	case rec.Name == "" || rec.Name == "." || rec.Name == ".." || strings.ContainsAny(rec.Name, `/\`):
		return fmt.Sprintf("its name %q is not a folder name", rec.Name)
	case filepath.Clean(rec.Path) != filepath.Join(root, rec.Name):
		return fmt.Sprintf("it names %s, which is not its folder in %s", rec.Path, root)
	case rec.Branch != "" && (!strings.HasPrefix(rec.Branch, BranchPrefix) || strings.Contains(rec.Branch, "..")):
		return fmt.Sprintf("its branch %q is not one covey makes", rec.Branch)
	}
	if fi, err := os.Lstat(rec.Path); err == nil && !fi.IsDir() {
		return fmt.Sprintf("%s is not a folder (a symbolic link?)", rec.Path)
	}
	return ""
}

// registered is the set of worktree folders git lists for the repository.
func (r *Repo) registered(ctx context.Context) (map[string]bool, error) {
	out, err := git(ctx, r.Top, nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("list git's worktrees: %w", err)
	}
	set := map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if p, ok := strings.CutPrefix(f, "worktree "); ok {
			set[filepath.Clean(p)] = true
			if real, err := filepath.EvalSymlinks(p); err == nil {
				set[real] = true
			}
		}
	}
	return set, nil
}
