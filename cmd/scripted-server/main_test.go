package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// goTool finds the go command that runs this test.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// chat posts a one-message streaming request and returns the response body.
func chat(t *testing.T, base, user string) (int, string) {
	t.Helper()
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":` + quote(user) + `}]}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer sk-very-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return resp.StatusCode, string(b)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// contentOf concatenates the content deltas of an SSE body.
func contentOf(t *testing.T, sse string) string {
	t.Helper()
	var out strings.Builder
	for _, line := range strings.Split(sse, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		for _, ch := range c.Choices {
			out.WriteString(ch.Delta.Content)
		}
	}
	return out.String()
}

func TestCommandServesScriptUntilSIGTERM(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "scripted-server")
	build := exec.CommandContext(t.Context(), goTool(t), "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	journal := filepath.Join(dir, "journal.jsonl")
	script := filepath.Join("..", "..", "internal", "scripted", "testdata", "example.yaml")
	cmd := exec.CommandContext(t.Context(), bin, "-addr", "127.0.0.1:0", "-script", script, "-journal", journal)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// If the test fails before SIGTERM, the context kills the process.
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("read URL line: %v (stderr %s)", err, stderr.String())
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
		t.Fatalf("URL line %q", url)
	}

	if status, _ := chat(t, url, "flaky"); status != 429 {
		t.Errorf("first flaky request: status %d, want 429", status)
	}
	status, body := chat(t, url, "flaky")
	if got := contentOf(t, body); status != 200 || got != "Answered after a retry." {
		t.Errorf("retry: status %d text %q", status, got)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v (stderr %s)", err, stderr.String())
	}

	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("sk-very-secret")) {
		t.Errorf("journal holds the API key:\n%s", data)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("journal has %d lines, want 2:\n%s", len(lines), data)
	}
	for i, line := range lines {
		var e struct {
			Conversation string          `json:"conversation"`
			Attempt      int             `json:"attempt"`
			Status       int             `json:"status"`
			HasAuth      bool            `json:"has_auth"`
			Body         json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("journal line %d: %v", i, err)
		}
		if e.Conversation != "flaky" || e.Attempt != i || !e.HasAuth || len(e.Body) == 0 {
			t.Errorf("journal line %d: %s", i, line)
		}
	}
}

func TestRun(t *testing.T) {
	tests := map[string]struct {
		args     []string
		wantErr  string
		wantText string
	}{
		"default conversation":     {args: []string{"-addr", "127.0.0.1:0"}, wantText: "Hello from the scripted server."},
		"script":                   {args: []string{"-addr", "127.0.0.1:0", "-script", "../../internal/scripted/testdata/example.yaml"}, wantText: "Hello from the example script."},
		"missing script":           {args: []string{"-script", "nope.yaml"}, wantErr: "nope.yaml"},
		"bad flag":                 {args: []string{"-port", "1"}, wantErr: "flag provided but not defined"},
		"stray argument":           {args: []string{"serve"}, wantErr: "unexpected arguments"},
		"bad address":              {args: []string{"-addr", "127.0.0.1:99999"}, wantErr: "listen"},
		"journal in a missing dir": {args: []string{"-addr", "127.0.0.1:0", "-journal", "/nonexistent/dir/j"}, wantErr: "open journal"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			pr, pw := io.Pipe()
			errc := make(chan error, 1)
			go func() {
				err := run(ctx, tc.args, pw, io.Discard)
				pw.CloseWithError(io.EOF)
				errc <- err
			}()
			line, readErr := bufio.NewReader(pr).ReadString('\n')
			if tc.wantErr != "" {
				if err := <-errc; err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if readErr != nil {
				t.Fatalf("no URL line: %v (run: %v)", readErr, <-errc)
			}
			go io.Copy(io.Discard, pr)
			_, body := chat(t, strings.TrimSpace(line), "hello")
			if got := contentOf(t, body); got != tc.wantText {
				t.Errorf("text %q, want %q", got, tc.wantText)
			}
			cancel()
			if err := <-errc; err != nil {
				t.Errorf("run after cancel: %v", err)
			}
		})
	}
}
