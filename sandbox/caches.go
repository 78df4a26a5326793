package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"covey/internal/safefile"
)

// toolchainCaches finds the folders the usual toolchains write while
// building and testing, from their own settings: Go's build and module
// caches (go env), npm's cache (npm_config_cache, ~/.npmrc, else ~/.npm),
// pip's cache (PIP_CACHE_DIR, pip.conf, else ~/.cache/pip) and cargo's
// registry (CARGO_HOME, else ~/.cargo). Only folders that exist count.
func toolchainCaches() []string {
	home, _ := os.UserHomeDir()
	var out []string
	add := func(p string) {
		if p = strings.TrimSpace(p); filepath.IsAbs(p) && exists(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	for _, dir := range goCaches() {
		add(dir)
	}
	// npm and pip are not started (node alone takes half a second): their
	// settings are read where they keep them.
	add(npmCache(home))
	add(pipCache(home))
	cargo := os.Getenv("CARGO_HOME")
	if cargo == "" && home != "" {
		cargo = filepath.Join(home, ".cargo")
	}
	if cargo != "" {
		add(filepath.Join(cargo, "registry"))
		add(filepath.Join(cargo, "git"))
	}
	return out
}

// goCaches finds Go's build and module caches as the go command would,
// making them as it would on first use; none when go is not installed.
// It reads go's settings instead of running "go env": the go command
// writes telemetry into the user's config folder and may leave a child
// behind to upload it, which covey must not start.
func goCaches() []string {
	if _, err := exec.LookPath("go"); err != nil {
		return nil
	}
	var dirs []string
	for _, dir := range []string{goSetting("GOCACHE"), goModCache()} {
		if filepath.IsAbs(dir) {
			_ = os.MkdirAll(dir, 0o755)
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// goSetting is a go setting: the environment's, else the one "go env -w"
// wrote, else Go's default ("" for those with none here).
func goSetting(key string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	file := os.Getenv("GOENV")
	if file == "" {
		if conf, err := os.UserConfigDir(); err == nil {
			file = filepath.Join(conf, "go", "env")
		}
	}
	if file != "" && file != "off" {
		if v := iniValue(file, key); v != "" {
			return v
		}
	}
	switch key {
	case "GOCACHE":
		if dir, err := os.UserCacheDir(); err == nil {
			return filepath.Join(dir, "go-build")
		}
	case "GOPATH":
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, "go")
		}
	}
	return ""
}

// goModCache is GOMODCACHE, by default pkg/mod in GOPATH's first folder.
func goModCache() string {
	if v := goSetting("GOMODCACHE"); v != "" {
		return v
	}
	if paths := filepath.SplitList(goSetting("GOPATH")); len(paths) > 0 && paths[0] != "" {
		return filepath.Join(paths[0], "pkg", "mod")
	}
	return ""
}

// npmCache is npm's cache folder: npm_config_cache, a cache= line of
// ~/.npmrc, or ~/.npm; "" when it does not exist.
func npmCache(home string) string {
	dir := os.Getenv("npm_config_cache")
	if dir == "" && home != "" {
		dir = filepath.Join(home, ".npm")
		if v := iniValue(filepath.Join(home, ".npmrc"), "cache"); v != "" {
			dir = expandHome(v, home)
		}
	}
	if dir == "" || !exists(dir) {
		return ""
	}
	return dir
}

// pipCache is pip's cache folder: PIP_CACHE_DIR, cache-dir in pip.conf,
// or ~/.cache/pip; "" when it does not exist.
func pipCache(home string) string {
	dir := os.Getenv("PIP_CACHE_DIR")
	if dir == "" && home != "" {
		dir = filepath.Join(home, ".cache", "pip")
		for _, conf := range []string{filepath.Join(home, ".config", "pip", "pip.conf"), filepath.Join(home, ".pip", "pip.conf")} {
			if v := iniValue(conf, "cache-dir"); v != "" {
				dir = expandHome(v, home)
				break
			}
		}
	}
	if dir == "" || !exists(dir) {
		return ""
	}
	return dir
}

// iniValue returns the value of key in a key = value file, or "".
func iniValue(path, key string) string {
	b, err := safefile.Read(path, 1<<20)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

func expandHome(p, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[1:])
	}
	return p
}
