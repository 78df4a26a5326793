package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"covey/tools/tool"

	"covey/permission"
)

// testServer is an in-memory MCP server with a few tools.
type testServer struct {
	srv     *sdk.Server
	mu      sync.Mutex
	session *sdk.ServerSession
	calls   []string
	block   chan struct{} // the "slow" tool waits on it
}

func newTestServer(t *testing.T) *testServer {
	ts := &testServer{block: make(chan struct{})}
	ts.srv = sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ts.srv.AddTool(&sdk.Tool{
		Name: "echo", Description: "Echoes its text.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args struct{ Text string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		ts.mu.Lock()
		ts.calls = append(ts.calls, "echo:"+args.Text)
		ts.mu.Unlock()
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Echo: " + args.Text}}}, nil
	})
	ts.srv.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil
		})
	ts.srv.AddTool(&sdk.Tool{Name: "slow", Description: "Reports progress, then waits.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= 3; i++ {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
			}
			select {
			case <-ts.block:
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "finished"}}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	ts.srv.AddTool(&sdk.Tool{Name: "mixed", Description: "All kinds of content.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{
				Content: []sdk.Content{
					&sdk.TextContent{Text: "here"},
					&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
					&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "inside"}},
				},
				StructuredContent: map[string]any{"n": 1},
			}, nil
		})
	return ts
}

// connector serves servers by name from in-memory transports; a name in
// fail fails to connect; a name in hold waits until released.
type connector struct {
	servers map[string]*testServer
	fail    map[string]error
	hold    map[string]chan struct{}
}

func (c *connector) connect(ctx context.Context, s Server) (sdk.Transport, error) {
	if err := c.fail[s.Name]; err != nil {
		return nil, err
	}
	if h := c.hold[s.Name]; h != nil {
		select {
		case <-h:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ts := c.servers[s.Name]
	if ts == nil {
		return nil, errors.New("no such test server")
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := ts.srv.Connect(context.Background(), st, nil)
	if err != nil {
		return nil, err
	}
	ts.mu.Lock()
	ts.session = ss
	ts.mu.Unlock()
	return ct, nil
}

func stdioServer(name string, scope Scope) Server {
	return Server{Name: name, Scope: scope, Config: ServerConfig{Command: "unused"}}
}

func newTestManager(t *testing.T, c *connector, opts Options, servers ...Server) *Manager {
	t.Helper()
	opts.Connect = c.connect
	m := NewManager(servers, opts)
	t.Cleanup(m.Close)
	return m
}

func toolByName(m *Manager, name string) tool.Tool {
	for _, t := range m.Tools() {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

func TestManagerConnectsAndCalls(t *testing.T) {
	ts := newTestServer(t)
	c := &connector{servers: map[string]*testServer{"everything": ts}}
	m := newTestManager(t, c, Options{}, stdioServer("everything", ScopeUser))
	m.Start(context.Background())
	if err := m.Wait(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	st := m.Statuses()
	if len(st) != 1 || st[0].State != StateConnected || len(st[0].Tools) != 4 {
		t.Fatalf("status %+v", st)
	}
	echo := toolByName(m, "mcp__everything__echo")
	if echo == nil {
		t.Fatalf("no echo tool among %d", len(m.Tools()))
	}
	if echo.Description() != "Echoes its text." || echo.Schema()["type"] != "object" {
		t.Errorf("description %q schema %v", echo.Description(), echo.Schema())
	}
	r := echo.Run(context.Background(), json.RawMessage(`{"text":"hi"}`))
	if r.IsError || r.Content != "Echo: hi" {
		t.Fatalf("result %+v", r)
	}
	r = toolByName(m, "mcp__everything__fail").Run(context.Background(), json.RawMessage(`{}`))
	if !r.IsError || !strings.Contains(r.Content, "it broke") {
		t.Errorf("isError result %+v", r)
	}
	r = toolByName(m, "mcp__everything__mixed").Run(context.Background(), json.RawMessage(`{}`))
	for _, want := range []string{"here", "[image: image/png, 2.0 KB", "[resource file:///a.txt, text/plain]\ninside", `"n": 1`} {
		if !strings.Contains(r.Content, want) {
			t.Errorf("mixed result lacks %q:\n%s", want, r.Content)
		}
	}
}

func TestManagerGateDecides(t *testing.T) {
	ts := newTestServer(t)
	c := &connector{servers: map[string]*testServer{"srv": ts}}
	var seen permission.Request
	gate := permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
		seen = req
		return permission.Verdict{Reason: "not today"}
	})
	m := newTestManager(t, c, Options{Gate: gate}, stdioServer("srv", ScopeUser))
	m.Start(context.Background())
	_ = m.Wait(waitCtx(t))
	r := toolByName(m, "mcp__srv__echo").Run(context.Background(), json.RawMessage(`{"text": "x"}`))
	if !r.IsError || !strings.Contains(r.Content, "not today") {
		t.Errorf("result %+v", r)
	}
	if seen.Tool != "mcp__srv__echo" || seen.Server != "srv" || seen.ServerTool != "echo" || seen.Args != `{"text":"x"}` {
		t.Errorf("gate saw %+v", seen)
	}
	if len(ts.calls) != 0 {
		t.Errorf("refused call reached the server: %v", ts.calls)
	}
}

func TestManagerProgressAndCancel(t *testing.T) {
	ts := newTestServer(t)
	c := &connector{servers: map[string]*testServer{"srv": ts}}
	m := newTestManager(t, c, Options{}, stdioServer("srv", ScopeUser))
	m.Start(context.Background())
	_ = m.Wait(waitCtx(t))
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got []tool.Progress
	ctx = tool.WithProgress(ctx, func(p tool.Progress) {
		mu.Lock()
		got = append(got, p)
		if len(got) == 3 {
			cancel() // Esc after the third step
		}
		mu.Unlock()
	})
	done := make(chan tool.Result)
	go func() { done <- toolByName(m, "mcp__srv__slow").Run(ctx, json.RawMessage(`{}`)) }()
	select {
	case r := <-done:
		if !r.IsError || !strings.Contains(r.Content, "cancelled") {
			t.Errorf("cancelled call gave %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end the call")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[2].Message != "step 3" || got[2].Total != 3 {
		t.Errorf("progress %+v", got)
	}
}

func TestManagerToolTimeout(t *testing.T) {
	ts := newTestServer(t)
	c := &connector{servers: map[string]*testServer{"srv": ts}}
	s := stdioServer("srv", ScopeUser)
	s.Config.ToolTimeout = Duration(50 * time.Millisecond)
	m := newTestManager(t, c, Options{}, s)
	m.Start(context.Background())
	_ = m.Wait(waitCtx(t))
	r := toolByName(m, "mcp__srv__slow").Run(context.Background(), json.RawMessage(`{}`))
	if !r.IsError || !strings.Contains(r.Content, "tool_timeout") {
		t.Errorf("result %+v", r)
	}
}

func TestManagerFailuresAndUntrusted(t *testing.T) {
	ts := newTestServer(t)
	hold := make(chan struct{})
	c := &connector{
		servers: map[string]*testServer{"good": ts, "slow": ts, "proj": ts},
		fail:    map[string]error{"bad": errors.New("exec: \"nope\": executable file not found")},
		hold:    map[string]chan struct{}{"slow": hold},
	}
	var mu sync.Mutex
	var changes []Status
	m := newTestManager(t, c, Options{OnChange: func(s Status) { mu.Lock(); changes = append(changes, s); mu.Unlock() }},
		stdioServer("good", ScopeUser), stdioServer("bad", ScopeFlag), stdioServer("slow", ScopeUser), stdioServer("proj", ScopeProject))
	m.Start(context.Background())
	// The grace passes while slow is still starting; good is ready.
	m.WaitGrace(context.Background(), 200*time.Millisecond)
	if m.Pending() != 1 {
		t.Fatalf("pending %d, want 1 (slow)", m.Pending())
	}
	byName := map[string]Status{}
	for _, s := range m.Statuses() {
		byName[s.Name] = s
	}
	if byName["bad"].State != StateFailed || !strings.Contains(byName["bad"].Err, "executable file not found") {
		t.Errorf("bad: %+v", byName["bad"])
	}
	if byName["proj"].State != StateUntrusted || byName["good"].State != StateConnected {
		t.Errorf("proj %s good %s", byName["proj"].State, byName["good"].State)
	}
	if n := len(m.Tools()); n != 4 {
		t.Errorf("%d tools offered before slow joined, want 4", n)
	}
	close(hold)
	_ = m.Wait(waitCtx(t))
	if n := len(m.Tools()); n != 8 {
		t.Errorf("%d tools once slow joined, want 8", n)
	}
	m.Trust(context.Background())
	_ = m.Wait(waitCtx(t))
	if n := len(m.Tools()); n != 12 {
		t.Errorf("%d tools after trusting the project, want 12", n)
	}
	time.Sleep(20 * time.Millisecond) // OnChange runs in goroutines
	mu.Lock()
	defer mu.Unlock()
	var failed bool
	for _, c := range changes {
		failed = failed || c.Name == "bad" && c.State == StateFailed
	}
	if !failed {
		t.Errorf("no failure reported through OnChange: %+v", changes)
	}
}

func TestManagerCrashAndReconnect(t *testing.T) {
	ts := newTestServer(t)
	c := &connector{servers: map[string]*testServer{"srv": ts}}
	m := newTestManager(t, c, Options{}, stdioServer("srv", ScopeUser))
	m.Start(context.Background())
	_ = m.Wait(waitCtx(t))
	ts.mu.Lock()
	_ = ts.session.Close() // the server goes away
	ts.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for m.Statuses()[0].State != StateFailed && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	st := m.Statuses()[0]
	if st.State != StateFailed || !strings.Contains(st.Err, "stopped") || len(m.Tools()) != 0 {
		t.Fatalf("after crash: %+v, %d tools", st, len(m.Tools()))
	}
	if err := m.Reconnect(context.Background(), "srv"); err != nil {
		t.Fatal(err)
	}
	_ = m.Wait(waitCtx(t))
	if st := m.Statuses()[0]; st.State != StateConnected || len(m.Tools()) != 4 {
		t.Fatalf("after reconnect: %+v", st)
	}
}

func TestManagerToolListChanged(t *testing.T) {
	ts := newTestServer(t)
	c := &connector{servers: map[string]*testServer{"srv": ts}}
	m := newTestManager(t, c, Options{}, stdioServer("srv", ScopeUser))
	m.Start(context.Background())
	_ = m.Wait(waitCtx(t))
	ts.srv.AddTool(&sdk.Tool{Name: "new.tool", Description: "Added later.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	deadline := time.Now().Add(5 * time.Second)
	for toolByName(m, "mcp__srv__new_tool") == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if toolByName(m, "mcp__srv__new_tool") == nil {
		t.Fatal("tools/list_changed did not add the new tool")
	}
}

func TestManagerMissingVariableFails(t *testing.T) {
	c := &connector{}
	s := Server{Name: "gh", Scope: ScopeUser, Config: ServerConfig{URL: "https://example.com/${HOST_MISSING}/mcp"}}
	m := newTestManager(t, c, Options{Getenv: func(string) (string, bool) { return "", false }}, s)
	m.Start(context.Background())
	_ = m.Wait(waitCtx(t))
	st := m.Statuses()[0]
	if st.State != StateFailed || !strings.Contains(st.Err, `"gh"`) || !strings.Contains(st.Err, "url") || !strings.Contains(st.Err, "HOST_MISSING") {
		t.Errorf("status %+v", st)
	}
}

// A real process: a stdio server that writes to stderr and exits at once
// fails with the reason and its stderr, which reaches its log and never
// covey's own stderr; its process group is gone afterwards.
func TestStdioServerExitsAtStart(t *testing.T) {
	logs := t.TempDir()
	s := Server{Name: "broken", Scope: ScopeUser, Config: ServerConfig{Command: "sh", Args: []string{"-c", "echo 'fatal: cannot open database' >&2; exit 3"}}}
	m := NewManager([]Server{s}, Options{LogDir: logs})
	defer m.Close()
	m.Start(context.Background())
	if err := m.Wait(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	st := m.Statuses()[0]
	if st.State != StateFailed || !strings.Contains(st.Err, "exited before it answered") || !strings.Contains(st.Err, "fatal: cannot open database") {
		t.Errorf("status %+v", st)
	}
	data, err := os.ReadFile(st.LogPath)
	if err != nil || !strings.Contains(string(data), "fatal: cannot open database") {
		t.Errorf("log %q: %v", data, err)
	}
}

// Close ends a stdio server's whole process group, children included.
func TestStdioCloseStopsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// A "server" that starts a grandchild and then answers nothing: the
	// start times out, and the grandchild must still be stopped.
	script := fmt.Sprintf("sleep 300 & echo $! > %s; wait", pidFile)
	s := Server{Name: "hang", Scope: ScopeUser, Config: ServerConfig{Command: "sh", Args: []string{"-c", script}, StartupTimeout: Duration(500 * time.Millisecond)}}
	m := NewManager([]Server{s}, Options{LogDir: dir})
	m.Start(context.Background())
	_ = m.Wait(waitCtx(t))
	if st := m.Statuses()[0]; st.State != StateFailed || !strings.Contains(st.Err, "did not start within 500ms") {
		t.Errorf("status %+v", st)
	}
	m.Close()
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the server's child %d outlived it", pid)
	}
}

// Close does not wait for a server that is still starting: it abandons
// the attempt and stops the process.
func TestCloseAbandonsStartingServer(t *testing.T) {
	s := Server{Name: "slow", Scope: ScopeUser, Config: ServerConfig{Command: "sh", Args: []string{"-c", "sleep 600; true"}}}
	m := NewManager([]Server{s}, Options{LogDir: t.TempDir()})
	m.Start(context.Background())
	time.Sleep(100 * time.Millisecond)
	done := make(chan struct{})
	go func() { m.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // far below the 30 s startup timeout
		t.Fatal("Close waited for a starting server")
	}
}

// A remote server that wants OAuth answers 401: the failure says so
// plainly, and the configured headers were sent.
func TestHTTP401SaysOAuthIsUnsupported(t *testing.T) {
	var gotAuth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth.Store(r.Header.Get("Authorization"))
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer srv.Close()
	for _, typ := range []string{TypeHTTP, TypeSSE} {
		t.Run(typ, func(t *testing.T) {
			s := Server{Name: "remote", Scope: ScopeUser, Config: ServerConfig{Type: typ, URL: srv.URL + "/mcp",
				Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}}
			m := NewManager([]Server{s}, Options{Getenv: func(k string) (string, bool) { return "tok-" + k, true }})
			defer m.Close()
			m.Start(context.Background())
			_ = m.Wait(waitCtx(t))
			st := m.Statuses()[0]
			if st.State != StateFailed || !strings.Contains(st.Err, "401 Unauthorized") || !strings.Contains(st.Err, "OAuth") {
				t.Errorf("status %+v", st)
			}
			if gotAuth.Load() != "Bearer tok-TOKEN" {
				t.Errorf("Authorization header %v", gotAuth.Load())
			}
		})
	}
}

// waitCtx bounds a test's wait for servers, so a hang fails the test with
// a message instead of stalling the suite.
func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Options.StartupTimeout (MCP_TIMEOUT) is the default for servers that set
// none; a server's own startup_timeout wins.
func TestDefaultStartupTimeout(t *testing.T) {
	hang := ServerConfig{Command: "sh", Args: []string{"-c", "sleep 60; true"}}
	own := hang
	own.StartupTimeout = Duration(400 * time.Millisecond)
	m := NewManager([]Server{{Name: "a", Scope: ScopeUser, Config: hang}, {Name: "b", Scope: ScopeUser, Config: own}},
		Options{LogDir: t.TempDir(), StartupTimeout: 300 * time.Millisecond})
	defer m.Close()
	m.Start(context.Background())
	_ = m.Wait(waitCtx(t))
	st := m.Statuses()
	if !strings.Contains(st[0].Err, "within 300ms") || !strings.Contains(st[1].Err, "within 400ms") {
		t.Errorf("errors %q, %q", st[0].Err, st[1].Err)
	}
}

// A stdio server that prints something other than JSON-RPC on stdout is
// reported for it, with the first bytes it wrote, whether it then exits
// or stays; one that writes nothing and exits still "exited".
func TestStdioServerWritesGarbage(t *testing.T) {
	tests := map[string]struct {
		script, want string
	}{
		"a banner, then exits": {script: "echo 'Server listening on port 3000'; exit 0",
			want: `wrote something that is not JSON-RPC on stdout (MCP's channel; logs belong on stderr): "Server listening on port 3000"`},
		"a banner, then stays": {script: "echo 'Welcome!'; echo more; exec sleep 30",
			want: `not JSON-RPC on stdout (MCP's channel; logs belong on stderr): "Welcome!"`},
		"binary garbage": {script: "printf '\\001\\002\\377garbage'; exit 0", want: `not JSON-RPC on stdout`},
		"nothing at all": {script: "exit 0", want: "the server exited before it answered"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := Server{Name: "noisy", Scope: ScopeUser, Config: ServerConfig{Command: "sh", Args: []string{"-c", tc.script}}}
			m := NewManager([]Server{s}, Options{LogDir: t.TempDir()})
			defer m.Close()
			m.Start(context.Background())
			if err := m.Wait(waitCtx(t)); err != nil {
				t.Fatal(err)
			}
			if st := m.Statuses()[0]; st.State != StateFailed || !strings.Contains(st.Err, tc.want) {
				t.Errorf("status %q: %s, want %q", st.State, st.Err, tc.want)
			}
		})
	}
}

// TestManagerLateServerKeepsOrder checks that a server connecting late
// adds its tools after those already offered, rather than before them by
// name: the tools already in every request keep their bytes and places.
func TestManagerLateServerKeepsOrder(t *testing.T) {
	release := make(chan struct{})
	c := &connector{
		servers: map[string]*testServer{"alpha": newTestServer(t), "beta": newTestServer(t)},
		hold:    map[string]chan struct{}{"alpha": release},
	}
	m := newTestManager(t, c, Options{}, stdioServer("alpha", ScopeUser), stdioServer("beta", ScopeUser))
	m.Start(context.Background())
	names := func() []string {
		var out []string
		for _, tl := range m.Tools() {
			out = append(out, tl.Name())
		}
		return out
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(m.Tools()) < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	first := names()
	if len(first) != 4 || !strings.HasPrefix(first[0], "mcp__beta__") {
		t.Fatalf("tools before alpha connects: %v, want beta's four", first)
	}
	close(release)
	if err := m.Wait(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	after := names()
	if len(after) != 8 || !slices.Equal(after[:4], first) {
		t.Errorf("tools after alpha connected: %v; want beta's %v first, unchanged", after, first)
	}
}
