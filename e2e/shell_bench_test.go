package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// BenchmarkBackgroundShellRSS measures what a background shell printing
// 100 MB costs covey's memory: the peak RSS of a headless run whose model
// starts the shell and waits for it with bash_output, against the same run
// with a shell that prints one line. Goal: growth under 20 MB (the shell's
// output is kept in a 1 MiB ring and reported to the crew a few times a
// second, however fast it prints).
//
//	go test ./e2e -run '^$' -bench BackgroundShellRSS -benchtime 1x
func BenchmarkBackgroundShellRSS(b *testing.B) {
	const big = "head -c 100000000 /dev/zero | tr '\\0' x | fold -w 99"
	for i := 0; i < b.N; i++ {
		base, _ := peakRSS(b, "echo one line")
		peak, out := peakRSS(b, big)
		if !strings.Contains(out, "exited with code 0") {
			b.Fatalf("the shell did not finish:\n%s", out)
		}
		growth := float64(peak-base) / (1 << 20)
		b.ReportMetric(float64(base)/(1<<20), "base-RSS-MB")
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
		b.ReportMetric(growth, "growth-MB")
		if growth >= 20 {
			b.Errorf("RSS grew by %.1f MB for 100 MB of shell output (goal: under 20 MB)", growth)
		}
	}
}

// peakRSS runs covey headless with a model that runs command as a
// background shell and waits for it, and returns covey's peak RSS in bytes
// (the largest VmHWM seen while it ran) and the bash_output result.
func peakRSS(b *testing.B, command string) (int64, string) {
	b.Helper()
	srv := scriptedtest.New(b)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "c1", Name: "bash", Args: map[string]any{"command": command, "run_in_background": true}}}},
		{ToolCalls: []scripted.Call{{ID: "c2", Name: "bash_output", Args: map[string]any{"id": "shell-1", "wait_s": 300}}}},
		{Text: "done"},
	}})
	ws := workspace(b, sampleFiles())
	env := newSandbox(b).env("OPENAI_BASE_URL=" + srv.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, coveyBin(b), "--model", "e2e-model", "-p", "go", "--permission-mode", "bypassPermissions")
	cmd.Dir, cmd.Env = ws, env
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	status := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if v := vmHWM(status); v > peak {
			peak = v
		}
		select {
		case err := <-done:
			if err != nil {
				b.Fatalf("covey: %v", err)
			}
			var result string
			for _, e := range srv.Journal() {
				if e.Turn == 2 && len(e.Messages) > 0 {
					result = e.Messages[len(e.Messages)-1].Content
				}
			}
			return peak, result
		case <-tick.C:
		}
	}
}

// vmHWM reads a process's peak resident set size in bytes (0 when it is
// gone).
func vmHWM(status string) int64 {
	f, err := os.Open(status)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
