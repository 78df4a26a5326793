package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestGoCachesFromGoSettings: Go's caches are found from its settings,
// the environment's first, then those "go env -w" wrote, then Go's
// defaults, without running go (which writes telemetry into the user's
// config and may leave a process behind).
func TestGoCachesFromGoSettings(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed: goCaches finds nothing, by design")
	}
	home := t.TempDir()
	for _, kv := range [][2]string{{"HOME", home}, {"XDG_CACHE_HOME", ""}, {"XDG_CONFIG_HOME", ""},
		{"GOENV", ""}, {"GOCACHE", ""}, {"GOMODCACHE", ""}, {"GOPATH", ""}} {
		t.Setenv(kv[0], kv[1])
	}
	check := func(name string, want ...string) {
		t.Helper()
		if got := goCaches(); !slices.Equal(got, want) {
			t.Errorf("%s: caches %q, want %q", name, got, want)
		}
		for _, d := range want {
			if !exists(d) {
				t.Errorf("%s: %s was not made", name, d)
			}
		}
	}
	check("defaults", filepath.Join(home, ".cache", "go-build"), filepath.Join(home, "go", "pkg", "mod"))

	envFile := filepath.Join(home, ".config", "go", "env")
	if err := os.MkdirAll(filepath.Dir(envFile), 0o755); err != nil {
		t.Fatal(err)
	}
	gopath := filepath.Join(home, "gp")
	if err := os.WriteFile(envFile, []byte("GOPATH="+gopath+string(filepath.ListSeparator)+"/elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("GOPATH by go env -w", filepath.Join(home, ".cache", "go-build"), filepath.Join(gopath, "pkg", "mod"))

	t.Setenv("GOCACHE", filepath.Join(home, "c"))
	t.Setenv("GOMODCACHE", filepath.Join(home, "m"))
	check("the environment first", filepath.Join(home, "c"), filepath.Join(home, "m"))

	t.Setenv("GOCACHE", "off")
	check("a cache switched off", filepath.Join(home, "m"))
	if _, err := os.Stat(filepath.Join(home, ".config", "go", "telemetry")); err == nil {
		t.Error("go was run: its telemetry folder is in the home")
	}
}
