// Package e2e tests the built covey binary end to end: in a real terminal
// (tmux) against the scripted OpenAI-compatible server and the embedded
// demo, and headless as a plain process.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// binEnv names the variable holding the covey binary under test. TestMain
// sets it after building; a developer may set it to test a prebuilt binary.
const binEnv = "COVEY_E2E_BIN"

// TestMain builds covey once for every test in the package.
func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if len(os.Args) > 1 && os.Args[1] == peakRSSArg {
		return runPeakRSSHelper(os.Args[2:])
	}
	if os.Getenv(binEnv) != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "covey-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir for the binary:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin, err := buildCovey(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	// The tests read the path from the environment rather than a package
	// variable; the same variable lets a developer skip the build.
	if err := os.Setenv(binEnv, bin); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return m.Run()
}

// buildCovey builds the covey command into dir and returns its path.
func buildCovey(dir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	// go test caches results by what the test process itself reads; the
	// binary is built by a child process, so stat covey's sources here to
	// make an edit anywhere in covey invalidate the cached e2e result.
	if err := statSources(root); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "covey")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build covey: %w\n%s", err, out.String())
	}
	return bin, nil
}

// moduleRoot finds the directory of covey's go.mod above the working
// directory (go test runs in the package's folder).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// statSources stats every Go source and the module files under root.
func statSources(root string) error {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, ".go") || name == "go.mod" || name == "go.sum" {
			_, err := os.Stat(path)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("stat covey's sources: %w", err)
	}
	return nil
}

// coveyBin returns the path of the binary under test.
func coveyBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(binEnv)
	if bin == "" {
		t.Fatalf("%s is not set: TestMain did not build covey", binEnv)
	}
	return bin
}

// sandbox is a private home for one covey run: config, data and state
// folders inside the test's temp dir, so no real config or session file
// leaks in or out.
type sandbox struct {
	home string
}

func newSandbox(t testing.TB) sandbox {
	t.Helper()
	home := t.TempDir()
	for _, d := range []string{".config", ".local/share", ".local/state"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatalf("sandbox: %v", err)
		}
	}
	return sandbox{home: home}
}

// env is the whole environment of a covey process: nothing is inherited but
// PATH (covey runs git), so an API key or config in the test runner's
// environment cannot change what is tested. extra entries are KEY=VALUE.
func (s sandbox) env(extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.home,
		"XDG_CONFIG_HOME=" + filepath.Join(s.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(s.home, ".local/share"),
		"XDG_STATE_HOME=" + filepath.Join(s.home, ".local/state"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
	}
	return append(env, extra...)
}

// workspace creates a git repository with the given files (path → content)
// in a temp dir and returns its path.
func workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatalf("workspace: %v", err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatalf("workspace: %v", err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
			"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("workspace: git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", ".")
	git("add", "-A")
	git("commit", "-q", "-m", "initial")
	return dir
}

// sampleFiles is a small project the scripted tools run against.
func sampleFiles() map[string]string {
	return map[string]string{
		"main.go":         "package main\n\nimport \"fmt\"\n\n// main greets.\nfunc main() {\n\tfmt.Println(greeting()) // TODO: flags\n}\n",
		"greet.go":        "package main\n\n// greeting is the text main prints.\nfunc greeting() string {\n\treturn \"hello\" // FIXME: localise\n}\n",
		"README.md":       "# sample\n\nA tiny project for covey's end-to-end tests.\n",
		"docs/guide.md":   "# Guide\n\nRun it with go run .\n",
		"internal/x/x.go": "package x\n\n// Answer is the answer.\nconst Answer = 42\n",
	}
}

// result is the outcome of one headless covey run.
type result struct {
	stdout, stderr string
	code           int
}

// runCovey runs the binary in dir with env (see sandbox.env), stdin and
// args, and waits for it to exit. A run that does not end within a minute
// fails the test rather than hanging the suite.
func runCovey(t testing.TB, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, coveyBin(t), args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && ctx.Err() == nil:
		r.code = exit.ExitCode()
	default:
		t.Fatalf("covey %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, r.stdout, r.stderr)
	}
	return r
}
