package workspace

import (
	"context"
	"sync"
)

// maxReadMemory bounds the file content that read_file calls sharing a
// workspace hold at once: a hundred parallel reads of a 60 MB file take
// turns instead of holding 6 GB.
const maxReadMemory = 128 << 20

// MemBudget is a weighted semaphore over bytes: Acquire waits until n more
// fit (a request larger than the whole budget waits for all of it).
type MemBudget struct {
	mu      sync.Mutex
	size    int64
	held    int64
	peak    int64 // the most ever held at once (tests read it)
	waiters []chan struct{}
}

func newMemBudget(size int64) *MemBudget { return &MemBudget{size: size} }

// Acquire waits until n bytes are free, or ctx ends. The returned release
// gives them back (call it once).
func (b *MemBudget) Acquire(ctx context.Context, n int64) (release func(), err error) {
	n = min(max(n, 0), b.size)
	for {
		b.mu.Lock()
		if b.held+n <= b.size {
			b.held += n
			b.peak = max(b.peak, b.held)
			b.mu.Unlock()
			var once sync.Once
			return func() { once.Do(func() { b.release(n) }) }, nil
		}
		wake := make(chan struct{})
		b.waiters = append(b.waiters, wake)
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (b *MemBudget) release(n int64) {
	b.mu.Lock()
	b.held -= n
	waiters := b.waiters
	b.waiters = nil
	b.mu.Unlock()
	// Every waiter looks again; the few that fit go on.
	for _, w := range waiters {
		close(w)
	}
}

// MaxHeld is the most the budget ever held at once.
func (b *MemBudget) MaxHeld() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// ReadMemory is the workspace's budget for file content held by reads.
func (w *Workspace) ReadMemory() *MemBudget {
	w.readMemOnce.Do(func() {
		if w.readMem == nil {
			w.readMem = newMemBudget(maxReadMemory)
		}
	})
	return w.readMem
}

// SetReadMemory bounds the file content reads of the workspace hold at once
// to size bytes, in place of maxReadMemory. It has effect only before the
// first read.
func (w *Workspace) SetReadMemory(size int64) {
	w.readMemOnce.Do(func() { w.readMem = newMemBudget(size) })
}
