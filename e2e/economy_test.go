package e2e

import (
	"encoding/json"
	"os"
	"sort"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// maxFirstRequest is the budget of covey's first request for a one-line
// prompt: system prompt, tool definitions and the prompt (issue 20 §6).
const maxFirstRequest = 10 << 10

// firstRequest runs covey headless with a one-line prompt and returns the
// body of its one request.
func firstRequest(t testing.TB) []byte {
	t.Helper()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{Text: "hi"}}})
	ws, box := workspace(t, sampleFiles()), newSandbox(t)
	if r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "say hi"); r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	j := srv.Journal()
	if len(j) != 1 {
		t.Fatalf("%d requests, want 1", len(j))
	}
	return j[0].Body
}

// TestFirstRequestSize keeps the first request of a one-line prompt within
// maxFirstRequest and reports its parts: every byte of it is sent, and
// paid for, with every request of the session.
func TestFirstRequestSize(t *testing.T) {
	t.Parallel()
	body := firstRequest(t)
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &raw)
	type part struct {
		name string
		n    int
	}
	var parts []part
	for i, tl := range raw.Tools {
		parts = append(parts, part{req.Tools[i].Function.Name, len(tl)})
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].n > parts[j].n })
	tools := 0
	for _, p := range parts {
		tools += p.n
		t.Logf("tool %-14s %5d bytes", p.name, p.n)
	}
	if p := os.Getenv("COVEY_DUMP_FIRST_REQUEST"); p != "" {
		_ = os.WriteFile(p, body, 0o644)
	}
	t.Logf("first request: %d bytes (tools %d, messages %d)", len(body), tools, len(req.Messages[0]))
	if len(body) > maxFirstRequest {
		t.Errorf("the first request of a one-line prompt is %d bytes, over the budget of %d", len(body), maxFirstRequest)
	}
}

// BenchmarkFirstRequestBytes reports the size of the first request of a
// one-line prompt (bytes/request); the time is covey's whole headless run.
func BenchmarkFirstRequestBytes(b *testing.B) {
	var n int
	for b.Loop() {
		n = len(firstRequest(b))
	}
	b.ReportMetric(float64(n), "bytes/request")
}
