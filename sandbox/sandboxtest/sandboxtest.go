// Package sandboxtest holds test helpers for code that runs commands under
// covey's sandbox. Only tests import it.
package sandboxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OutsideTemp makes a folder (named after pattern, removed when the test
// ends) that none of the temp folders the sandbox leaves writable holds:
// in the home folder, else beside the test's package. A checkout under
// /tmp cannot serve, since everything there is writable. With neither,
// the test is skipped with what was tried.
func OutsideTemp(t testing.TB, pattern string) string {
	t.Helper()
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	var tried []string
	for _, base := range []string{home, wd} {
		if base == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(base); err == nil {
			base = real
		}
		if InTemp(base) {
			tried = append(tried, base+" (a temp folder)")
			continue
		}
		d, err := os.MkdirTemp(base, pattern)
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		t.Cleanup(func() { _ = os.RemoveAll(d) })
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		return d
	}
	t.Skipf("no folder outside the sandbox's writable temp folders to test with (tried %s)", strings.Join(tried, "; "))
	return ""
}

// InTemp reports whether p (symlinks resolved) is in one of the temp
// folders the sandbox leaves writable.
func InTemp(p string) bool {
	for _, root := range []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"} {
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		if p == root || strings.HasPrefix(p, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
