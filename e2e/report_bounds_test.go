package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestHeadlessReportBounded: a child that logged 10 MB (a 10 MB answer,
// after a few tool calls) still gives a report of a few hundred KB in
// every format, through the built binary.
func TestHeadlessReportBounded(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	// One line: the child's summary is its answer's first line.
	line := "noisy child output "
	huge := strings.Repeat(line, 10<<20/len(line)+1)
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"description": "be loud", "name": "loud",
			"subagent_type": "Explore", "prompt": "[e2e:loud] Say everything."}}}},
		{Text: "BOUNDED ANSWER"},
	}})
	h.srv.Add(scripted.Conversation{Name: "loud", Match: scripted.Match{FirstUser: "[e2e:loud]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*"})}},
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "greet.go"})}},
		{Text: huge, ChunkSize: 1 << 20},
	}})
	r := h.run(t, "", "-p", "be loud")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "BOUNDED ANSWER" {
		t.Fatalf("exit %d\nstdout:\n%.2000s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(h.box.home, ".local", "share", "covey", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Size() < 10<<20 {
		t.Fatalf("the session file does not hold the child's 10 MB: %v", err)
	}
	for _, format := range []string{"md", "json", "html"} {
		rep := h.run(t, "", "report", "--format", format)
		if rep.code != 0 || !strings.Contains(rep.stdout, "loud") {
			t.Fatalf("covey report --format %s: exit %d\n%.2000s\n%s", format, rep.code, rep.stdout, rep.stderr)
		}
		if n := len(rep.stdout); n > 300<<10 {
			t.Errorf("the %s report of a 10 MB child is %d KB", format, n>>10)
		} else {
			t.Logf("%s report: %d bytes", format, n)
		}
	}
}
