package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
	env.WS.SetReadMemory(3 * size) // three reads at a time
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
	if peak := env.WS.ReadMemory().MaxHeld(); peak > 3*size || peak < size {
		t.Fatalf("the reads held %d bytes at once, want between one file and the %d budget", peak, 3*size)
	}
}
