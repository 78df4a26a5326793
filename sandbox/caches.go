package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// cacheTimeout bounds each toolchain's answer about its cache.
const cacheTimeout = 3 * time.Second

// toolchainCaches finds the folders the usual toolchains write while
// building and testing, from their own settings: Go's build and module
// caches, npm's cache, pip's cache and cargo's registry. A toolchain that
// is not installed adds nothing.
func toolchainCaches() []string {
	home, _ := os.UserHomeDir()
	var (
		mu  sync.Mutex
		out []string
		wg  sync.WaitGroup
	)
	add := func(paths ...string) {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range paths {
			if p = strings.TrimSpace(p); filepath.IsAbs(p) {
				out = append(out, filepath.Clean(p))
			}
		}
	}
	ask := func(mkdir bool, name string, args ...string) {
		defer wg.Done()
		if _, err := exec.LookPath(name); err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), cacheTimeout)
		defer cancel()
		b, err := exec.CommandContext(ctx, name, args...).Output()
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line == "off" {
				continue
			}
			if mkdir {
				_ = os.MkdirAll(line, 0o755) // the toolchain would make it on first use
			}
			if exists(line) {
				add(line)
			}
		}
	}
	wg.Add(3)
	go ask(true, "go", "env", "GOCACHE", "GOMODCACHE")
	go func() {
		if c := os.Getenv("npm_config_cache"); c != "" {
			add(c)
			wg.Done()
			return
		}
		ask(false, "npm", "config", "get", "cache")
	}()
	go func() {
		if c := os.Getenv("PIP_CACHE_DIR"); c != "" {
			add(c)
			wg.Done()
			return
		}
		if home != "" && exists(filepath.Join(home, ".cache", "pip")) {
			add(filepath.Join(home, ".cache", "pip"))
			wg.Done()
			return
		}
		ask(false, "pip3", "cache", "dir")
	}()
	wg.Wait()
	cargo := os.Getenv("CARGO_HOME")
	if cargo == "" && home != "" {
		cargo = filepath.Join(home, ".cargo")
	}
	if cargo != "" {
		for _, sub := range []string{"registry", "git"} {
			if p := filepath.Join(cargo, sub); exists(p) {
				add(p)
			}
		}
	}
	return out
}
