package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// everythingEnv names the variable holding the path of the real MCP test
// server, @modelcontextprotocol/server-everything (.ci/mcp-everything.sh
// installs it, pinned, and .ci/run sets the variable).
const everythingEnv = "COVEY_MCP_EVERYTHING"

// everythingBin returns the test server's executable. Without it the MCP
// tests skip locally (run .ci/mcp-everything.sh) and fail in CI.
func everythingBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv(everythingEnv)
	if bin == "" {
		if root, err := moduleRoot(); err == nil {
			bin = filepath.Join(root, ".cache", "mcp-everything", "node_modules", ".bin", "mcp-server-everything")
		}
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the MCP test server is missing (%v): .ci/run installs it with .ci/mcp-everything.sh", err)
		}
		t.Skipf("the MCP test server is not installed (%v): run .ci/mcp-everything.sh", err)
	}
	return bin
}

// mcpConfig writes a --mcp-config file of servers and returns its path.
func mcpConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// freePort returns a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// startHTTPEverything runs server-everything over HTTP (streamableHttp or
// sse) on a free port until the test ends. It binds every interface, so it
// lives only as long as the test, in its own process group.
func startHTTPEverything(t *testing.T, bin, transport string) int {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin, transport)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			_ = c.Close()
			return port
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %d: %s", transport, port, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMCPToolRoundTrip runs one MCP tool call of a headless run against the
// real server over each transport: the model calls get-sum, the server
// answers, and the answer reaches the model's next request.
func TestMCPToolRoundTrip(t *testing.T) {
	t.Parallel()
	bin := everythingBin(t)
	tests := map[string]func(t *testing.T) map[string]any{
		"stdio": func(t *testing.T) map[string]any {
			return map[string]any{"command": bin, "args": []string{"stdio"}}
		},
		"streamable http": func(t *testing.T) map[string]any {
			port := startHTTPEverything(t, bin, "streamableHttp")
			return map[string]any{"type": "http", "url": fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}
		},
		"sse": func(t *testing.T) map[string]any {
			port := startHTTPEverything(t, bin, "sse")
			return map[string]any{"type": "sse", "url": fmt.Sprintf("http://127.0.0.1:%d/sse", port)}
		},
	}
	for name, server := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "sum", Match: scripted.Match{FirstUser: "add two numbers"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_sum", Name: "mcp__everything__get-sum", Args: map[string]any{"a": 19, "b": 23}}}},
				{Text: "The server says 42."},
			}})
			cfg := mcpConfig(t, map[string]any{"everything": server(t)})
			ws := workspace(t, sampleFiles())
			env := newSandbox(t).env("OPENAI_BASE_URL=" + srv.URL())
			r := runCovey(t, ws, env, "", "--model", "e2e-model", "-p", "add two numbers", "--mcp-config", cfg, "--permission-mode", "bypassPermissions")
			if r.code != 0 || strings.TrimSpace(r.stdout) != "The server says 42." {
				t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if got := toolResult(t, srv, "call_sum"); !strings.Contains(got, "42") {
				t.Errorf("the model got %q back from get-sum", got)
			}
			// Headless waited for the server: the first request offered its tools.
			if j := srv.Journal(); len(j) == 0 || !slices.Contains(j[0].Tools, "mcp__everything__echo") {
				t.Errorf("first request offered %v", j[0].Tools)
			}
		})
	}
}

// TestMCPHeadlessPermissions: an MCP call needs permission; headless refuses
// it with a note saying how to allow it, and an allow rule lets it run.
func TestMCPHeadlessPermissions(t *testing.T) {
	t.Parallel()
	bin := everythingBin(t)
	for name, allow := range map[string]bool{"refused": false, "allowed by rule": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := scriptedtest.New(t)
			srv.Add(scripted.Conversation{Name: "echo", Match: scripted.Match{FirstUser: "echo"}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_echo", Name: "mcp__everything__echo", Args: map[string]any{"message": "hi there"}}}},
				{Text: "done"},
			}})
			box := newSandbox(t)
			if allow {
				cfgDir := filepath.Join(box.home, ".config", "covey")
				if err := os.MkdirAll(cfgDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("permissions:\n  allow: [mcp__everything]\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := mcpConfig(t, map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}}})
			r := runCovey(t, workspace(t, sampleFiles()), box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "echo it", "--mcp-config", cfg)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			got := toolResult(t, srv, "call_echo")
			if allow && got != "Echo: hi there" {
				t.Errorf("allowed call gave %q", got)
			}
			if !allow && (!strings.Contains(got, "needs permission") || !strings.Contains(got, "mcp__everything__echo")) {
				t.Errorf("refusal %q does not say how to allow it", got)
			}
		})
	}
}

// TestMCPListAndCrash: covey mcp list connects every server, lists the good
// one's tools and the crashing one's reason with its stderr, and exits 1;
// a project server nobody trusted is skipped with a word, not started.
func TestMCPListAndCrash(t *testing.T) {
	t.Parallel()
	bin := everythingBin(t)
	cfg := mcpConfig(t, map[string]any{
		"everything": map[string]any{"command": bin, "args": []string{"stdio"}},
		"crasher":    map[string]any{"command": "sh", "args": []string{"-c", "echo 'panic: cannot reach database' >&2; exit 2"}},
	})
	ws := workspace(t, map[string]string{".mcp.json": `{"mcpServers": {"repo": {"command": "sh", "args": ["-c", "touch started; sleep 60"]}}}`})
	env := newSandbox(t).env()
	r := runCovey(t, ws, env, "", "mcp", "list", "--json", "--mcp-config", cfg)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var list []struct {
		Name   string
		State  string
		Error  string
		Stderr []string
		Tools  []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	by := map[string]int{}
	for i, s := range list {
		by[s.Name] = i
	}
	if s := list[by["everything"]]; s.State != "connected" || len(s.Tools) < 10 {
		t.Errorf("everything: %+v", s)
	}
	if s := list[by["crasher"]]; s.State != "failed" || !strings.Contains(s.Error, "exited before it answered") || !slices.Contains(s.Stderr, "panic: cannot reach database") {
		t.Errorf("crasher: %+v", s)
	}
	if s := list[by["repo"]]; s.State != "untrusted" {
		t.Errorf("repo: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
		t.Error("an untrusted project server was started")
	}
	// Text output names the failure too.
	r = runCovey(t, ws, env, "", "mcp", "list", "--mcp-config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "crasher  failed") || !strings.Contains(r.stdout, "stderr: panic: cannot reach database") {
		t.Errorf("text list (exit %d):\n%s", r.code, r.stdout)
	}
}

// TestMCPAddRemove: covey mcp add writes the user config (stdio and http),
// covey mcp remove takes a server out again.
func TestMCPAddRemove(t *testing.T) {
	t.Parallel()
	box := newSandbox(t)
	ws := workspace(t, sampleFiles())
	cfgPath := filepath.Join(box.home, ".config", "covey", "config.yaml")
	run := func(args ...string) result { return runCovey(t, ws, box.env(), "", args...) }
	if r := run("mcp", "add", "everything", "--env", "LOG=debug", "--", "npx", "-y", "@modelcontextprotocol/server-everything"); r.code != 0 {
		t.Fatalf("add stdio: %d %s", r.code, r.stderr)
	}
	if r := run("mcp", "add", "--transport", "http", "docs", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer ${TOKEN}"); r.code != 0 {
		t.Fatalf("add http: %d %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(cfgPath)
	for _, want := range []string{"mcp_servers:", "everything:", "command: npx", "- -y", "LOG: debug", "docs:", "type: http", "url: https://mcp.example.com/mcp", "Bearer ${TOKEN}"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config lacks %q:\n%s", want, data)
		}
	}
	if r := run("mcp", "add", "docs", "--", "x"); r.code == 0 || !strings.Contains(r.stderr, "already configured") {
		t.Errorf("duplicate add: %d %s", r.code, r.stderr)
	}
	if r := run("mcp", "remove", "everything"); r.code != 0 {
		t.Fatalf("remove: %d %s", r.code, r.stderr)
	}
	data, _ = os.ReadFile(cfgPath)
	if strings.Contains(string(data), "everything") || !strings.Contains(string(data), "docs:") {
		t.Errorf("after remove:\n%s", data)
	}
	if r := run("mcp", "remove", "nope"); r.code != 1 || !strings.Contains(r.stderr, `no MCP server named "nope"`) {
		t.Errorf("remove unknown: %d %s", r.code, r.stderr)
	}
}

// TestMCPTUI drives the TUI with three servers: a slow starter, a crashing
// one and the real server. The first frame comes while the slow one is
// still starting, /mcp shows each state, a long-running tool shows its
// progress and is cancelled with esc, and quitting leaves no server
// process behind.
func TestMCPTUI(t *testing.T) {
	t.Parallel()
	bin := everythingBin(t)
	// A unique sleep length marks the slow server's processes (sh and its
	// sleep child) in /proc.
	marker := fmt.Sprintf("3600.%06d", time.Now().UnixNano()%1000000)
	cfg := mcpConfig(t, map[string]any{
		"everything": map[string]any{"command": bin, "args": []string{"stdio"}},
		// Never answers: it sleeps far longer than the test.
		"slow":    map[string]any{"command": "sh", "args": []string{"-c", "sleep " + marker + "; true"}},
		"crasher": map[string]any{"command": "sh", "args": []string{"-c", "echo 'panic: cannot reach database' >&2; exit 2"}},
	})
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "long", Match: scripted.Match{FirstUser: "run the long job"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{{ID: "call_long", Name: "mcp__everything__trigger-long-running-operation", Args: map[string]any{"duration": 60, "steps": 60}}}},
		{Text: "finished"},
	}})
	ws := workspace(t, sampleFiles())
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model", "--mcp-config", cfg, "--permission-mode", "bypassPermissions")
	tm.waitText(helpLine)
	tm.waitText("MCP server crasher failed", "panic: cannot reach database")

	tm.submit("/mcp")
	tm.waitText("everything  connected · 14 tools", "slow  starting…", "crasher  failed", "r reconnect")
	tm.closeMCP()

	tm.submit("run the long job")
	tm.waitMatch(regexp.MustCompile(`mcp__everything__trigger-long-running-operation .*\n\s+⎿ [0-9]+/60`))
	tm.press("Escape")
	tm.waitText("cancelled by the user")
	// The first request did not wait for the slow server: it offered the
	// real server's tools and none of the slow one's.
	j := srv.Journal()
	if len(j) == 0 || !slices.Contains(j[0].Tools, "mcp__everything__echo") || slices.ContainsFunc(j[0].Tools, func(n string) bool { return strings.HasPrefix(n, "mcp__slow__") }) {
		t.Errorf("first request offered %v", j[0].Tools)
	}
	tm.quitAndCheck(helpLine)
	// Quitting stopped every server it started, the slow one's sleep too.
	deadline := time.Now().Add(5 * time.Second)
	for processWith(marker) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if processWith(marker) {
		t.Error("the slow MCP server outlived covey")
	}
}

// processWith reports whether a running process has s in its command line.
func processWith(s string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(data), s) {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			// A zombie is gone in all but name.
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
				continue
			}
			return true
		}
	}
	return false
}

// TestWebFetchHeadless: web_fetch reads a local page through a domain rule,
// and with fetch_model set, that model answers the prompt over the page.
func TestWebFetchHeadless(t *testing.T) {
	t.Parallel()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><script>track()</script></head><body><nav>Home | Blog</nav><h1>Install</h1><p>Run <code>make install</code>.</p></body></html>`)
	}))
	defer page.Close()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{FirstUser: "read the docs"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{
			{ID: "call_page", Name: "web_fetch", Args: map[string]any{"url": page.URL + "/install"}},
			{ID: "call_ask", Name: "web_fetch", Args: map[string]any{"url": page.URL + "/install", "prompt": "How do I install it?"}},
		}},
		{Text: "Run make install."},
	}})
	srv.Add(scripted.Conversation{Name: "fetch", Match: scripted.Match{Model: "fetch-model"}, Turns: []scripted.Turn{
		{Text: "Use `make install`."},
	}})
	box := newSandbox(t)
	cfgDir := filepath.Join(box.home, ".config", "covey")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("fetch_model: fetch-model\npermissions:\n  allow: [\"web_fetch(domain:127.0.0.1)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCovey(t, workspace(t, sampleFiles()), box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "read the docs")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	got := toolResult(t, srv, "call_page")
	if !strings.Contains(got, "# Install") || !strings.Contains(got, "`make install`") || strings.Contains(got, "track()") || strings.Contains(got, "Blog") {
		t.Errorf("page as markdown: %q", got)
	}
	if got := toolResult(t, srv, "call_ask"); !strings.HasPrefix(got, "Use `make install`.") || !strings.Contains(got, "answered by fetch-model") {
		t.Errorf("answer over the page: %q", got)
	}
	var asked bool
	for _, e := range srv.Journal() {
		if e.Model == "fetch-model" {
			asked = len(e.Messages) > 1 && strings.Contains(e.Messages[len(e.Messages)-1].Content, "How do I install it?") &&
				strings.Contains(e.Messages[len(e.Messages)-1].Content, "# Install")
		}
	}
	if !asked {
		t.Error("the fetch model was not given the prompt and the page")
	}
}

// TestMCPHeadlessSkipsUntrustedProject: -p never starts the project's
// servers the user has not trusted, and says which it skipped.
func TestMCPHeadlessSkipsUntrustedProject(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "hi", Match: scripted.Match{FirstUser: "hello"}, Turns: []scripted.Turn{{Text: "hi"}}})
	ws := workspace(t, map[string]string{".mcp.json": `{"mcpServers": {"repo-db": {"command": "sh", "args": ["-c", "touch started; sleep 60"]}}}`})
	r := runCovey(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "hello")
	if r.code != 0 || !strings.Contains(r.stderr, "skipped the project's MCP servers repo-db: not trusted yet") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
		t.Error("the untrusted project server was started")
	}
}

// TestMCPHeadlessReportsFailedServer: a server that fails to start costs a
// headless run its tools, so the run says so on stderr, and goes on.
func TestMCPHeadlessReportsFailedServer(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "hi", Match: scripted.Match{FirstUser: "hello"}, Turns: []scripted.Turn{{Text: "hi"}}})
	cfg := mcpConfig(t, map[string]any{"crasher": map[string]any{"command": "sh", "args": []string{"-c", "echo 'panic: no database' >&2; exit 2"}}})
	r := runCovey(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "hello", "--mcp-config", cfg)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "hi" || !strings.Contains(r.stderr, "covey: MCP server crasher failed: the server exited before it answered; its last stderr line: panic: no database") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestMCPTUIServerCrashAndReconnect: a connected server that dies leaves a
// notice; /mcp shows it failed with the reason, and r brings it back.
func TestMCPTUIServerCrashAndReconnect(t *testing.T) {
	t.Parallel()
	bin := everythingBin(t)
	// The marker is sh's $0: it finds the server's process group leader.
	marker := fmt.Sprintf("covey-e2e-crash-%d", time.Now().UnixNano())
	cfg := mcpConfig(t, map[string]any{"everything": map[string]any{"command": "sh", "args": []string{"-c", shellQuote(bin) + " stdio; true", marker}}})
	srv := scriptedtest.New(t)
	tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model", "--mcp-config", cfg)
	tm.waitText(helpLine)
	tm.submit("/mcp")
	tm.waitText("everything  connected · 14 tools")
	tm.closeMCP()
	pid := pidWith(t, marker)
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the server's group: %v", err)
	}
	tm.waitText("MCP server everything failed: the server stopped")
	tm.submit("/mcp")
	tm.waitText("everything  failed")
	tm.typeText("r")
	tm.waitText("everything  connected · 14 tools")
	tm.closeMCP()
	tm.quitAndCheck(helpLine)
}

// pidWith returns the process whose command line holds s.
func pidWith(t *testing.T, s string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && strings.Contains(string(data), s) {
				var pid int
				if _, err := fmt.Sscan(e.Name(), &pid); err == nil {
					return pid
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process with %q", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// closeMCP leaves the /mcp screen and waits until it is gone: a key typed
// right after esc would read as alt+key.
func (tm *term) closeMCP() {
	tm.t.Helper()
	tm.press("Escape")
	tm.waitFor("the /mcp screen to close", waitLong, func(s string) bool {
		return !strings.Contains(s, "r reconnect") && strings.Contains(s, helpLine)
	})
}

// TestMCPPlanMode: plan mode offers (and runs) only the MCP tools an allow
// rule names.
func TestMCPPlanMode(t *testing.T) {
	t.Parallel()
	bin := everythingBin(t)
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "plan", Match: scripted.Match{FirstUser: "plan it"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{
			{ID: "call_echo", Name: "mcp__everything__echo", Args: map[string]any{"message": "planning"}},
			{ID: "call_sum", Name: "mcp__everything__get-sum", Args: map[string]any{"a": 1, "b": 2}},
		}},
		{Text: "planned"},
	}})
	box := newSandbox(t)
	cfgDir := filepath.Join(box.home, ".config", "covey")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("permissions:\n  allow: [mcp__everything__echo]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := mcpConfig(t, map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}}})
	r := runCovey(t, workspace(t, sampleFiles()), box.env("OPENAI_BASE_URL="+srv.URL()), "", "--model", "e2e-model", "-p", "plan it", "--mcp-config", cfg, "--permission-mode", "plan")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var mcpTools []string
	for _, n := range srv.Journal()[0].Tools {
		if strings.HasPrefix(n, "mcp__") {
			mcpTools = append(mcpTools, n)
		}
	}
	if !slices.Equal(mcpTools, []string{"mcp__everything__echo"}) {
		t.Errorf("plan mode offered %v", mcpTools)
	}
	if got := toolResult(t, srv, "call_echo"); got != "Echo: planning" {
		t.Errorf("echo: %q", got)
	}
	if got := toolResult(t, srv, "call_sum"); !strings.Contains(got, "unknown tool") {
		t.Errorf("get-sum in plan mode: %q", got)
	}
}
