package subagent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"covey/sandbox"
)

// TestMain lets this test binary be the sandbox's helper, as covey is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		sandbox.RunHelper(os.Args[2:])
	}
	os.Exit(m.Run())
}

func TestRunCheck(t *testing.T) {
	dir := t.TempDir()
	tests := map[string]struct {
		command  string
		timeout  time.Duration
		passed   bool
		exit     int
		timedOut bool
		output   string
	}{
		"passes":            {command: "echo building; true", timeout: time.Minute, passed: true, exit: 0, output: "building"},
		"fails":             {command: "echo 'main.go:5:6: undefined: x' >&2; exit 1", timeout: time.Minute, exit: 1, output: "main.go:5:6: undefined: x"},
		"times out":         {command: "echo started; sleep 30", timeout: 3 * time.Second, exit: -1, timedOut: true, output: "started"},
		"keeps the tail":    {command: "for i in $(seq 1 5000); do echo line-$i; done; exit 3", timeout: time.Minute, exit: 3, output: "line-5000"},
		"runs in its place": {command: "test -f marker", timeout: time.Minute, passed: true},
	}
	if err := os.WriteFile(filepath.Join(dir, "marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	box, err := sandbox.New(sandbox.Config{}, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			c := runCheck(context.Background(), box, dir, tt.command, tt.timeout)
			if c.Passed != tt.passed || c.ExitCode != tt.exit || c.TimedOut != tt.timedOut || c.Error != "" {
				t.Errorf("check = %+v", c)
			}
			if !strings.Contains(c.Output, tt.output) || len(c.Output) > checkTail+100 {
				t.Errorf("output (%d bytes) lacks %q:\n%s", len(c.Output), tt.output, c.Output)
			}
			if name == "keeps the tail" && strings.Contains(c.Output, "line-1\n") {
				t.Error("the output's start should be dropped, its end kept")
			}
		})
	}
}

func TestCheckWords(t *testing.T) {
	if got := checkNote(runCheck(context.Background(), nil, t.TempDir(), "exit 2", time.Minute)); got != ", check failed (exit 2)" {
		t.Errorf("checkNote = %q", got)
	}
}
