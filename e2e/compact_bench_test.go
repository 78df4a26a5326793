package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// BenchmarkCompactRSS runs covey headless through 1,000 turns (model
// requests, each reading a 20 KB file) in one process, with a 16k window,
// and reports its peak resident memory: compaction keeps what the agent
// holds bounded, while the session file keeps everything.
// go test ./e2e -run '^$' -bench CompactRSS -benchtime 1x.
func BenchmarkCompactRSS(b *testing.B) {
	const turns = 1000
	for i := 0; i < b.N; i++ {
		srv := scriptedtest.New(b, scripted.WithWindow("", scripted.Window{Tokens: compactWindow, Hidden: true}))
		var mu sync.Mutex
		reads := 0
		main := func(r scripted.Request) scripted.Turn {
			mu.Lock()
			defer mu.Unlock()
			if reads < turns-1 {
				reads++
				return scripted.Turn{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "big.txt"})}}
			}
			return scripted.Turn{Text: "done reading"}
		}
		serve := make([]scripted.Turn, 100)
		for j := range serve {
			serve[j] = scripted.Turn{Func: main}
		}
		ls := &scriptedtest.LongSession{SummaryMarker: "conversation summariser"}
		srv.Add(ls.Conversations(scripted.Match{SystemContains: "conversation summariser"}, 2000)[1])
		srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: serve})
		files := sampleFiles()
		files["big.txt"] = bigFile()
		files[".covey/config.yaml"] = fmt.Sprintf("context_window: %d\n", compactWindow)
		ws := workspace(b, files)
		box := newSandbox(b)

		// Measured through the helper: covey's own peak, not the test
		// process's folded in at the exec (see peakrss_test.go).
		cmd, peakRSS := peakRSSCommand(b, "--model", "e2e-model", "-p", "read big.txt a thousand times", "--max-turns", fmt.Sprint(turns+10))
		cmd.Dir, cmd.Env = ws, box.env("OPENAI_BASE_URL="+srv.URL())
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run() // go test's -timeout bounds it
		if err != nil || strings.TrimSpace(stdout.String()) != "done reading" {
			b.Fatalf("covey: %v\nstdout %q\nstderr:\n%s", err, stdout.String(), stderr.String())
		}
		peak, over := 0, 0
		for _, e := range srv.Journal() {
			peak = max(peak, e.PromptTokens)
			if e.Overflow {
				over++
			}
		}
		if over > 0 {
			b.Fatalf("%d requests over the window", over)
		}
		b.ReportMetric(float64(peakRSS())/(1<<20), "maxrss_MB")
		b.ReportMetric(float64(strings.Count(stderr.String(), "compacted")), "compactions")
		b.ReportMetric(float64(peak), "peak_tokens")
		b.ReportMetric(time.Since(start).Seconds(), "wall_s")
	}
}
