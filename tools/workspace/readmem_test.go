package workspace

import (
	"context"
	"testing"
	"time"
)

// TestMemBudget: a waiter is woken by a release and gives up with its
// context; a request larger than the budget takes all of it.
func TestMemBudget(t *testing.T) {
	b := newMemBudget(10)
	r1, err := b.Acquire(context.Background(), 8)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.Acquire(ctx, 5); err == nil {
		t.Fatal("acquired past the budget")
	}
	got := make(chan func(), 1)
	go func() {
		r, err := b.Acquire(context.Background(), 100) // larger than the budget: all of it
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	time.Sleep(20 * time.Millisecond)
	r1()
	r1() // a second release changes nothing
	r2 := <-got
	if b.MaxHeld() != 10 {
		t.Fatalf("peak %d, want 10", b.MaxHeld())
	}
	r2()
	if b.held != 0 {
		t.Fatalf("held %d after every release", b.held)
	}
}
