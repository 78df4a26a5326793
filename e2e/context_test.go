package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
			config: "auto_compact: false\n", // the overflow ends the run instead of a compaction
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

// TestTUIContextGauge checks the gauge in the status bar of a real
// terminal against a server that tells its window (vLLM's /v1/models): it
// shows a share of the window, and /context breaks it down.
func TestTUIContextGauge(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	srv := scriptedtest.New(t, scripted.WithWindow("e2e-model", scripted.Window{Tokens: 16384, Style: scripted.StyleVLLM}))
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "main.go"})}},
		{Text: "E2E gauge answer."},
	}})
	ws := workspace(t, sampleFiles())
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	// Known before anything is sent: the server told its window.
	gauge := regexp.MustCompile(`ctx (\d+)%`)
	s := tm.waitMatch(gauge)
	before, _ := strconv.Atoi(gauge.FindStringSubmatch(s)[1])
	if before < 5 || before > 60 {
		t.Errorf("gauge %d%% before any request, want the prompt and tools' share of 16k:\n%s", before, frame(s))
	}
	tm.submit("read main.go")
	// The gauge after the turn: the answer's text can be on screen a
	// frame before the usage that ends its stream is.
	s = tm.waitFor("the answer and the end of its turn", waitLong, func(s string) bool {
		return strings.Contains(s, "E2E gauge answer.") && !strings.Contains(s, "esc cancel turn") && gauge.MatchString(s)
	})
	if after, _ := strconv.Atoi(gauge.FindStringSubmatch(s)[1]); after <= before {
		t.Errorf("gauge %d%% after a turn with a tool result, want more than %d%%:\n%s", after, before, frame(s))
	}
	if strings.Contains(s, "↑") {
		t.Errorf("the status bar still shows cumulative tokens:\n%s", frame(s))
	}

	tm.submit("/context")
	s = tm.waitText("Context:", "window: 16384 tokens, from the server", "tools, built-in", "tool results (1)", "messages (")
	if !regexp.MustCompile(`system prompt\s+\d`).MatchString(s) {
		t.Errorf("/context lacks the system prompt's tokens:\n%s", frame(s))
	}
}

// TestSmallWindowHeadless runs a model with an 8k window that reads a file
// of 200 KB: the result comes back sized to the window, no request passes
// it, and the turn ends with the model's answer.
func TestSmallWindowHeadless(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t, scripted.WithWindow("e2e-model", scripted.Window{Tokens: 8192, Style: scripted.StyleLlamaCpp}))
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "big.txt"})}},
		{Func: func(r scripted.Request) scripted.Turn {
			res := r.LastMessage().Content
			if !strings.Contains(res, "offset=") {
				return scripted.Turn{Text: "NO WAY ON in a result of " + strconv.Itoa(len(res)) + " bytes"}
			}
			return scripted.Turn{Text: "SMALL WINDOW OK " + strconv.Itoa(len(res))}
		}},
	}})
	files := sampleFiles()
	var big strings.Builder
	for i := 1; big.Len() < 200<<10; i++ {
		big.WriteString("line " + strconv.Itoa(i) + " of a file far bigger than the model's whole window\n")
	}
	files["big.txt"] = big.String()
	ws, box := workspace(t, files), newSandbox(t)
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "read big.txt")
	if r.code != 0 || !strings.Contains(r.stdout, "SMALL WINDOW OK") {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r.stdout), "SMALL WINDOW OK")))
	if n <= 0 || n > 8192/8*4 {
		t.Errorf("read_file returned %d bytes, want at most an eighth of the 8k window (%d bytes)", n, 8192/8*4)
	}
	for _, e := range srv.Journal() {
		if e.Overflow || e.PromptTokens > 8192 {
			t.Errorf("a request of %d tokens passed the 8k window", e.PromptTokens)
		}
	}
}

// TestChildOwnWindow checks that a child runs against its own model's
// window, from config's models map, not its parent's.
func TestChildOwnWindow(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	writeUserConfig(t, h.box, "subagent_model: child-model\nmodels:\n  e2e-model: {context_window: 50000}\n  child-model: {context_window: 20000}\n")
	scriptDelegation(h.srv)
	r := h.run(t, "", "-p", "where is greeting defined?", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	windows := map[string]float64{}
	for _, ev := range contextEvents(t, r.stdout) {
		who, _ := ev["agent_id"].(string)
		if who != "main" {
			who = "child"
		}
		windows[who], _ = ev["window"].(float64)
	}
	if windows["main"] != 50000 || windows["child"] != 20000 {
		t.Errorf("windows %v, want main 50000 and the child its own 20000", windows)
	}
}

// TestChildOverflowTeachesParent checks that a window one agent learns from
// an overflow is the model's for the whole session: a child on the main
// agent's model overflows reading a big file, and the main agent, on the
// same model, knows the window before its own next request.
func TestChildOverflowTeachesParent(t *testing.T) {
	t.Parallel()
	const window = 6000
	srv := scriptedtest.New(t, scripted.WithWindow("e2e-model", scripted.Window{Tokens: window, Hidden: true}))
	kid := child{marker: "[e2e:bigread]", description: "read the big file", turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("read_file", map[string]any{"path": "big.txt"})}},
		{Text: "never reached: the request above overflows"},
	}}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		spawn("Sending a reader.", kid),
		{Text: "PARENT ANSWER after the child's failure."},
	}})
	srv.Add(kid.conversation())
	files := sampleFiles()
	var big strings.Builder
	for i := 1; big.Len() < 60<<10; i++ {
		big.WriteString("line " + strconv.Itoa(i) + " of a file bigger than the window\n")
	}
	files["big.txt"] = big.String()
	ws, box := workspace(t, files), newSandbox(t)
	r := runCovey(t, ws, box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "read it", "--output-format", "stream-json")
	if r.code != 0 || !strings.Contains(r.stdout, "PARENT ANSWER") {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	learned := false
	for _, ev := range contextEvents(t, r.stdout) {
		if ev["agent_id"] == "main" && ev["window"] == float64(window) && ev["window_from"] == "overflow" {
			learned = true
		}
	}
	if !learned {
		t.Errorf("the main agent never learned the window its child met:\n%v", contextEvents(t, r.stdout))
	}
	overflows := 0
	for _, e := range srv.Journal() {
		if e.Overflow {
			overflows++
		}
	}
	if overflows != 1 {
		t.Errorf("%d requests overflowed, want only the child's one", overflows)
	}
}
