package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
)

// ErrNotRead is returned when an agent writes an existing file it never read:
// overwriting a file blind is how edits lose other people's work.
var ErrNotRead = errors.New("read it first with read_file")

// ErrStale is returned when a file changed on disk since the agent read it.
var ErrStale = errors.New("changed on disk since you read it; read it again")

// ReadTracker records, per agent, the content hash of each file it read, so a
// later write can tell whether the file changed underneath. It compares
// content (sha256), never mtime: mtimes are coarse on some filesystems and
// lie after a checkout. It is safe for concurrent use; a nil *ReadTracker
// records nothing and checks nothing.
type ReadTracker struct {
	mu     sync.Mutex
	hashes map[string][sha256.Size]byte
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker {
	return &ReadTracker{hashes: map[string][sha256.Size]byte{}}
}

// Record notes that the agent has seen content as the whole of the file at
// the absolute path abs. read_file calls it after a read, the write tools
// after a successful write so the agent may edit a file it just wrote.
func (r *ReadTracker) Record(abs string, content []byte) {
	if r == nil {
		return
	}
	sum := sha256.Sum256(content)
	abs = trackKey(abs)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hashes == nil {
		r.hashes = map[string][sha256.Size]byte{}
	}
	r.hashes[abs] = sum
}

// Check reports whether the agent may overwrite the existing file abs whose
// current content is current: it must have read it, and the content must be
// what it read. The error wraps ErrNotRead or ErrStale.
func (r *ReadTracker) Check(abs string, current []byte) error {
	if r == nil {
		return nil
	}
	abs = trackKey(abs)
	r.mu.Lock()
	seen, ok := r.hashes[abs]
	r.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s exists and you have not read it: %w", abs, ErrNotRead)
	}
	if sha256.Sum256(current) != seen {
		return fmt.Errorf("%s %w", abs, ErrStale)
	}
	return nil
}

// trackKey names a file by its symlink-resolved path, so a read through a
// link and a write to its target (or the reverse) are one file to the
// tracker. A path that does not resolve is used as given.
func trackKey(abs string) string {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return filepath.Clean(abs)
}

// FileLocks serialises writes to one file across all agents of a session:
// the read-check-compute-write sequence of one write happens under the
// file's lock, so two agents never interleave on a file. Locks are keyed by
// absolute, symlink-resolved path and freed when no one holds or awaits
// them. A nil *FileLocks locks nothing.
type FileLocks struct {
	mu    sync.Mutex
	locks map[string]*pathLock
}

// pathLock is a one-slot semaphore, so waiting for it can honour a context.
type pathLock struct {
	slot  chan struct{}
	users int // holders plus waiters; the entry is deleted at zero
}

// NewFileLocks returns an empty set of locks.
func NewFileLocks() *FileLocks {
	return &FileLocks{locks: map[string]*pathLock{}}
}

// Lock waits for the lock of abs and returns the function that releases it.
// It gives up with ctx's error when ctx ends first.
func (l *FileLocks) Lock(ctx context.Context, abs string) (unlock func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*pathLock{}
	}
	pl, ok := l.locks[abs]
	if !ok {
		pl = &pathLock{slot: make(chan struct{}, 1)}
		l.locks[abs] = pl
	}
	pl.users++
	l.mu.Unlock()

	select {
	case pl.slot <- struct{}{}:
	case <-ctx.Done():
		l.release(abs, pl)
		return nil, fmt.Errorf("wait for lock on %s: %w", abs, ctx.Err())
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-pl.slot
			l.release(abs, pl)
		})
	}, nil
}

func (l *FileLocks) release(abs string, pl *pathLock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	pl.users--
	if pl.users == 0 {
		delete(l.locks, abs)
	}
}
