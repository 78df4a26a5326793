package workspace

import (
	"context"
	"strings"
	"testing"
)

func TestFileLocks(t *testing.T) {
	l := NewFileLocks()
	unlock, err := l.Lock(context.Background(), "/a")
	if err != nil {
		t.Fatal(err)
	}
	// Another path is independent.
	unlockB, err := l.Lock(context.Background(), "/b")
	if err != nil {
		t.Fatal(err)
	}
	unlockB()
	// A waiter whose context ends gives up with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Lock(ctx, "/a"); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("cancelled waiter: %v", err)
	}
	unlock()
	unlock() // a second call is harmless
	again, err := l.Lock(context.Background(), "/a")
	if err != nil {
		t.Fatal(err)
	}
	again()
	if len(l.locks) != 0 {
		t.Fatalf("locks map keeps %d entries", len(l.locks))
	}
	var none *FileLocks
	u, err := none.Lock(context.Background(), "/a")
	if err != nil {
		t.Fatal(err)
	}
	u()
}
