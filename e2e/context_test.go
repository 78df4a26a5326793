package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// contextEvents returns the context events of a stream-json run.
func contextEvents(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("stream-json line is not JSON: %v\n%s", err, sc.Text())
		}
		if ev["type"] == "context" {
			out = append(out, ev)
		}
	}
	return out
}

// TestContextWindowHeadless checks where the main agent's window comes
// from, as stream-json's context events tell it: config, the server's own
// answer, an overflow error naming the limit.
func TestContextWindowHeadless(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		config   string
		window   *scripted.Window
		prompt   string
		want     float64
		from     string
		failing  bool
		noEvents bool
	}{
		"from config": {
			config: "models:\n  e2e-model: {context_window: 50000}\n",
			window: &scripted.Window{Tokens: 40000, Style: scripted.StyleVLLM}, // config wins
			want:   50000, from: "config",
		},
		"from discovery": {
			window: &scripted.Window{Tokens: 40000, Style: scripted.StyleLlamaCpp},
			want:   40000, from: "server",
		},
		"from an overflow": {
			window: &scripted.Window{Tokens: 3000, Hidden: true},
			prompt: strings.Repeat("a long question ", 800),
			want:   3000, from: "overflow", failing: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var opts []scripted.Option
			if tc.window != nil {
				opts = append(opts, scripted.WithWindow("e2e-model", *tc.window))
			}
			srv := scriptedtest.New(t, opts...)
			srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{Text: "fine"}}})
			ws, box := workspace(t, sampleFiles()), newSandbox(t)
			if tc.config != "" {
				dir := filepath.Join(box.home, ".config", "covey")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			prompt := tc.prompt
			if prompt == "" {
				prompt = "hello"
			}
			r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", prompt, "--output-format", "stream-json")
			if (r.code != 0) != tc.failing {
				t.Fatalf("exit %d, failing %v\nstderr:\n%s", r.code, tc.failing, r.stderr)
			}
			evs := contextEvents(t, r.stdout)
			var last map[string]any
			for _, ev := range evs {
				if ev["window_from"] == tc.from {
					last = ev
				}
			}
			if last == nil || last["window"] != tc.want || last["agent_id"] != "main" {
				t.Fatalf("no context event of the main agent with window %v from %s; got %v", tc.want, tc.from, evs)
			}
			if tok, _ := last["tokens"].(float64); tok <= 0 {
				t.Errorf("context event %v, want a fill", last)
			}
			if tc.failing {
				for _, e := range srv.Journal() {
					if !e.Overflow {
						t.Errorf("request %+v was answered; want only overflows", e.PromptTokens)
					}
				}
			}
		})
	}
}
