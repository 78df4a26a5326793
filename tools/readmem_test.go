package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestReadFileParallelMemory runs many read_file calls of one large file
// at once: the file content held at the same time stays within the
// workspace's budget, and every call still answers.
func TestReadFileParallelMemory(t *testing.T) {
	env := wtEnv(t)
	const size = 4 << 20
	line := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(filepath.Join(env.WS.Root, "big.txt"), []byte(strings.Repeat(line, size/len(line))), 0o644); err != nil {
		t.Fatal(err)
	}
	env.WS.readMem = newMemBudget(3 * size) // three reads at a time
	tool := NewReadFile(env)
	args, _ := json.Marshal(map[string]any{"path": "big.txt", "limit": 5})
	var wg sync.WaitGroup
	for range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := tool.Run(context.Background(), args); r.IsError || !strings.Contains(r.Content, "Showing lines 1-5") {
				t.Errorf("result %+v", r)
			}
		}()
	}
	wg.Wait()
	if peak := env.WS.readMemory().maxHeld(); peak > 3*size || peak < size {
		t.Fatalf("the reads held %d bytes at once, want between one file and the %d budget", peak, 3*size)
	}
}

// TestMemBudget: a waiter is woken by a release and gives up with its
// context; a request larger than the budget takes all of it.
func TestMemBudget(t *testing.T) {
	b := newMemBudget(10)
	r1, err := b.acquire(context.Background(), 8)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.acquire(ctx, 5); err == nil {
		t.Fatal("acquired past the budget")
	}
	got := make(chan func(), 1)
	go func() {
		r, err := b.acquire(context.Background(), 100) // larger than the budget: all of it
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	time.Sleep(20 * time.Millisecond)
	r1()
	r1() // a second release changes nothing
	r2 := <-got
	if b.maxHeld() != 10 {
		t.Fatalf("peak %d, want 10", b.maxHeld())
	}
	r2()
	if b.held != 0 {
		t.Fatalf("held %d after every release", b.held)
	}
}
