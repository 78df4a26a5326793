package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"covey/tools/toolname"
	"covey/tools/workspace"
)

// grepBenchCases are the patterns benchmarked on GOROOT/src, with the
// flags that make rg and GNU grep search the same thing. GOROOT/src is not
// a git repository and its few .gitignore files ignore nothing there, so
// rg needs --hidden (git does not hide dot files) and nothing else.
var grepBenchCases = []struct {
	name       string
	pattern    string
	ignoreCase bool
	rgArgs     []string
	grepArgs   []string
}{
	{"literal", "func main", false, []string{"-n", "--hidden", "func main"}, []string{"-rn", "func main"}},
	{"inner_literal", `[A-Z][a-z]+Reader\(`, false, []string{"-n", "--hidden", `[A-Z][a-z]+Reader\(`}, []string{"-rnE", `[A-Z][a-z]+Reader\(`}},
	{"ignore_case", "deadline", true, []string{"-n", "--hidden", "-i", "deadline"}, []string{"-rni", "deadline"}},
}

// goSrc returns $(go env GOROOT)/src.
func goSrc(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(runtime.GOROOT(), "src")
}

// BenchmarkGrep runs the grep tool on GOROOT/src in count mode (which
// searches every file: no output cap stops it early, so the work matches
// rg's and grep's) and, for comparison, rg and GNU grep with equivalent
// flags. The tool's listing
// cache is dropped before every run so each iteration walks the tree, as
// rg and grep do.
func BenchmarkGrep(b *testing.B) {
	src := goSrc(b)
	ws, err := workspace.NewWorkspace(src)
	if err != nil {
		b.Fatal(err)
	}
	tool := NewGrep(&Env{WS: ws})
	for _, c := range grepBenchCases {
		args, err := json.Marshal(map[string]any{"pattern": c.pattern, "ignore_case": c.ignoreCase, "output_mode": "count"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/covey", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ws.Invalidate()
				if res := tool.Run(context.Background(), args); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
		b.Run(c.name+"/covey_cached", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := tool.Run(context.Background(), args); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
		b.Run(c.name+"/rg", func(b *testing.B) { benchExec(b, src, "rg", c.rgArgs...) })
		b.Run(c.name+"/gnugrep", func(b *testing.B) { benchExec(b, src, toolname.Grep, append(c.grepArgs, ".")...) })
	}
}

// benchExec times an external search command in dir; exit status 1 (no
// match) is fine, anything else fails the benchmark.
func benchExec(b *testing.B, dir, name string, args ...string) {
	if _, err := exec.LookPath(name); err != nil {
		b.Skipf("%s not installed", name)
	}
	for b.Loop() {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				b.Fatalf("%s: %v", name, err)
			}
		}
	}
}
